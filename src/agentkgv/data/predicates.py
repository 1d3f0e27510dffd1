"""Predicate metadata: label, description, aliases and paraphrase templates, merged from four sources.

The agent's paraphrased predicate p' comes from here: Wikidata aliases (RE-NLG's property CSV), and the
verb phrases of ParaRel's and X-FACTR's templates (`[X] was born in [Y].` -> `was born in`).
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

from agentkgv.data.errors import DataError
from agentkgv.data.jsonl import read_json, read_jsonl

PROPERTIES = Path("properties")
_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
_ALT_LABEL = "http://www.w3.org/2004/02/skos/core#altLabel"


@dataclass(frozen=True, slots=True)
class PredicateInfo:
    id: str
    label: str
    description: str = ""
    aliases: tuple[str, ...] = ()
    templates: tuple[str, ...] = ()
    # X-FACTR's cardinality type: "N-1" or "1-1" when a subject has one object, "N-M" when several.
    cardinality: str = ""

    @property
    def single_valued(self) -> bool:
        return self.cardinality in ("N-1", "1-1")

    def paraphrases(self) -> list[str]:
        """Surface forms other than the label: aliases first, then template verb phrases; no repeats."""
        seen = {self.label.lower()}
        out = []
        for phrase in (*self.aliases, *(template_phrase(t) for t in self.templates)):
            if phrase and phrase.lower() not in seen:
                seen.add(phrase.lower())
                out.append(phrase)
        return out


def template_phrase(template: str) -> str:
    """The words between the subject and object slots: `[X] was born in [Y] .` -> `was born in`."""
    match = re.search(r"\[X\](.*?)\[Y\]", template)
    if match:
        return match.group(1).strip(" .,")
    return re.sub(r"\[[XY]\]", "", template).strip(" .,")


def load_predicates(data_dir: Path) -> dict[str, PredicateInfo]:
    """All predicates any source names, keyed by Wikidata id (`P19`)."""
    base = data_dir / PROPERTIES
    labels: dict[str, str] = {}
    descriptions: dict[str, str] = {}
    aliases: dict[str, list[str]] = {}
    templates: dict[str, list[str]] = {}
    cardinality: dict[str, str] = {}

    csv_path = base / "wikidata-properties.csv"
    if csv_path.exists():
        with csv_path.open(encoding="utf-8", newline="") as handle:
            for line, row in enumerate(csv.reader(handle, delimiter="\t"), start=1):
                if len(row) != 3:
                    raise DataError(csv_path, f"expected 3 tab-separated columns, got {len(row)}", line)
                pid, kind, value = row[0].rsplit("/", 1)[-1], row[1], row[2].strip('"')
                if kind == _LABEL:
                    labels.setdefault(pid, value)
                elif kind == _ALT_LABEL:
                    aliases.setdefault(pid, []).append(value)

    pid2name = base / "pid2name.json"
    if pid2name.exists():
        for pid, pair in read_json(pid2name).items():
            if not isinstance(pair, list) or len(pair) != 2:
                raise DataError(pid2name, "expected [label, description]", field=pid)
            labels.setdefault(pid, pair[0])
            if pair[1] and pair[1] != "No description defined":
                descriptions.setdefault(pid, pair[1])

    xfactr = base / "xfactr-relations.jsonl"
    if xfactr.exists():
        for _, record in read_jsonl(xfactr):
            pid = record.get("relation")
            if not pid:
                continue
            labels.setdefault(pid, record.get("label", pid))
            if record.get("description"):
                descriptions.setdefault(pid, record["description"])
            if record.get("template"):
                templates.setdefault(pid, []).append(record["template"])
            if record.get("type"):
                cardinality.setdefault(pid, record["type"])

    for path in sorted((base / "pararel_patterns").glob("P*.jsonl")):
        for _, record in read_jsonl(path):
            if record.get("pattern"):
                templates.setdefault(path.stem, []).append(record["pattern"])

    if not labels:
        raise DataError(base, "no predicate metadata found (is the data folder set right?)")
    return {
        pid: PredicateInfo(
            id=pid,
            label=labels.get(pid, pid),
            description=descriptions.get(pid, ""),
            aliases=tuple(dict.fromkeys(aliases.get(pid, []))),
            templates=tuple(dict.fromkeys(templates.get(pid, []))),
            cardinality=cardinality.get(pid, ""),
        )
        for pid in sorted(set(labels) | set(templates))
    }


def paraphrase_table(predicates: dict[str, PredicateInfo], limit: int = 4) -> dict[str, list[str]]:
    """p' candidates by predicate id and by lower-cased label (user graphs often carry labels only)."""
    table: dict[str, list[str]] = {}
    for pid, info in predicates.items():
        phrases = info.paraphrases()[:limit]
        table[pid] = phrases
        table.setdefault(info.label, phrases)
    return table
