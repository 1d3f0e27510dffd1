"""Predicate metadata: label, description, aliases and paraphrase templates, merged from four sources.

The agent's paraphrased predicate p' comes from here: Wikidata aliases (RE-NLG's property CSV), and the
verb phrases of ParaRel's and X-FACTR's templates (`[X] was born in [Y].` -> `was born in`).

The package ships the part a run needs wherever it is installed (`predicates.json.gz` beside this file, written
by `agentkgv build-predicates`): the labels, aliases, descriptions and templates of the sources whose licences
allow it (RE-NLG's CSV, FewRel's names, ParaRel's templates: MIT). X-FACTR states no licence, so its templates,
descriptions and cardinalities are read only from a data folder (its one-valued relations, less a player's teams and
with a relation LAMA types that its list lacks, ship as reader_agent/one_valued.json, a list of relation names). A
data folder, where there is one, is read instead.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Container, Mapping
from typing import TypeVar

import gzip
import json
from importlib import resources

from agentkgv.data.errors import DataError
from agentkgv.data.jsonl import read_json, read_jsonl
from agentkgv.data.records import Triple
from agentkgv.data.text import FUNCTION_WORDS

PROPERTIES = Path("properties")
SHIPPED_FILE = "predicates.json.gz"
_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
_ALT_LABEL = "http://www.w3.org/2004/02/skos/core#altLabel"
V = TypeVar("V")


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

    def paraphrases(self, statements_first: bool = False) -> list[str]:
        """Surface forms other than the label: aliases first, then template verb phrases; no repeats. With
        `statements_first`, the verb phrases first: the words a passage states the relation with (`was born in`),
        which a search for its statements needs more than another name for it (`birthplace`)."""
        seen = {self.label.lower()}
        out = []
        verbs = tuple(template_phrase(t) for t in self.templates)
        if statements_first:
            # A template that leads with the relation's noun ("The native language of [X] is [Y].") leaves only
            # function words ("is"), which search for nothing but the subject.
            verbs = tuple(v for t in self.templates if (v := subject_phrase(t))
                          and not set(v.lower().split()) <= FUNCTION_WORDS)
        for phrase in (*verbs, *self.aliases) if statements_first else (*self.aliases, *verbs):
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


def subject_phrase(template: str) -> str | None:
    """The words that follow the subject where a statement leads with it: `template_phrase` where the subject's
    slot comes first, less a possessive's ending ("[X]'s capital is [Y]." -> `capital is`); the words of its
    possessive where the object's does ("[Y] is [X]'s native language." -> `native language`); else None: "[Y] owns
    [X]" says nothing from the subject's end, and its slots' words run together ("is 's native language") would be
    searched for as written."""
    if re.search(r"\[X\].*?\[Y\]", template):
        return re.sub(r"^['’]s\s+", "", template_phrase(template))
    possessive = re.search(r"\[X\]\s*['’]s\s+(.+)$", template)
    return possessive.group(1).strip(" .,") if possessive and "[Y]" not in possessive.group(1) else None


def shipped_predicates_path() -> Path:
    return Path(str(resources.files("agentkgv.data").joinpath(SHIPPED_FILE)))


def load_predicates(data_dir: Path | None, shipped_if_missing: bool = False) -> dict[str, PredicateInfo]:
    """All predicates any source names, keyed by Wikidata id (`P19`), from the data folder. `shipped_if_missing`:
    the table shipped in the package where the data folder has no `properties/` (what a run of a user's own
    graph reads); without it, a missing folder is an error, as a benchmark or a training run needs the sources."""
    if shipped_if_missing and (data_dir is None or not (data_dir / PROPERTIES).is_dir()):
        return shipped_predicates()
    if data_dir is None:
        raise DataError(PROPERTIES, "no data folder given for the predicate metadata")
    return read_sources(data_dir)


def shipped_predicates() -> dict[str, PredicateInfo]:
    path = shipped_predicates_path()
    try:
        table = json.loads(gzip.decompress(path.read_bytes()))
        return {pid: PredicateInfo(pid, row["label"], row.get("description", ""), tuple(row.get("aliases", ())),
                                   tuple(row.get("templates", ()))) for pid, row in table.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise DataError(path, f"not a predicate table: {error!r}") from None


def shippable(data_dir: Path) -> dict[str, PredicateInfo]:
    """The data folder's predicates from the sources whose licences allow shipping them (X-FACTR's left out)."""
    return read_sources(data_dir, xfactr=False)


def write_shipped_predicates(predicates: dict[str, PredicateInfo], path: Path) -> int:
    """The table `shipped_predicates` reads, written reproducibly (no time stamp in the gzip header); returns
    its size in bytes."""
    table = {pid: {k: v for k, v in (("label", info.label), ("description", info.description),
                                     ("aliases", list(info.aliases)), ("templates", list(info.templates))) if v}
             for pid, info in sorted(predicates.items())}
    data = gzip.compress(json.dumps(table, ensure_ascii=False, sort_keys=True).encode("utf-8"), 9, mtime=0)
    path.write_bytes(data)
    return len(data)


def read_sources(data_dir: Path, xfactr: bool = True) -> dict[str, PredicateInfo]:
    """The predicates the data folder's four sources name (X-FACTR's only with `xfactr`)."""
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

    xfactr_path = base / "xfactr-relations.jsonl"
    if xfactr and xfactr_path.exists():
        for _, record in read_jsonl(xfactr_path):
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


GLOSS_STYLES = ("descriptions", "paraphrases")


def relation_gloss(info: PredicateInfo, style: str = "descriptions", limit: int = 4, max_words: int = 16) -> str:
    """What the relation means in a few words. "descriptions": its description's first clause (`subject
    currently or formerly holds the object position or public office`), cross-references, examples and
    inverse notes left out. "paraphrases": the forms a passage states it in (`birthplace, born in, POB,
    birth place`), else its description. "" where the predicate has neither."""
    if style not in GLOSS_STYLES:
        raise ValueError(f"gloss style must be one of {GLOSS_STYLES}, not {style!r}")
    if style == "paraphrases" and info.paraphrases():
        return ", ".join(info.paraphrases()[:limit])
    text = re.sub(r"\([^)]*\)|\[[^]]*\]", "", info.description)
    text = re.split(r";|\. |,? e\.g\b|\bsee also\b|\binverse property\b", text, maxsplit=1, flags=re.IGNORECASE)[0]
    words = text.replace('"', "").split()
    return " ".join(words[:max_words]).strip(" ,.:")


def gloss_table(predicates: dict[str, PredicateInfo], style: str = "descriptions") -> dict[str, str]:
    """Relation glosses (`relation_gloss`), keyed as `by_name` keys them."""
    glosses = {pid: relation_gloss(info, style) for pid, info in predicates.items()}
    return by_name(predicates, {pid: gloss for pid, gloss in glosses.items() if gloss})


def by_name(predicates: dict[str, PredicateInfo], values: dict[str, V]) -> dict[str, V]:
    """`values` (by predicate id) keyed by id, then by lower-cased label, then by alias (a graph that carries
    words only, DBpedia's `birth place` among them): a predicate's own label wins over another's alias, and
    among aliases the lowest id's."""
    by_id = sorted(values, key=lambda pid: (len(pid), pid))
    table = {pid: values[pid] for pid in by_id}
    for names in (lambda info: (info.label,), lambda info: info.aliases):
        for pid in by_id:
            for name in names(predicates[pid]) if pid in predicates else ():
                table.setdefault(name.lower(), values[pid])
    return table


def predicate_key(table: Container[str], triple: Triple) -> str | None:
    """The key a table keyed as `by_name` keys it holds the triple under: its id, else its lower-cased words or their
    "N of M" form (`Triple.predicate_keys`); None where it holds none."""
    return next((key for key in triple.predicate_keys if key in table), None)


def by_predicate(table: Mapping[str, V], triple: Triple, default: V) -> V:
    """The triple's entry in a table keyed as `by_name` keys it (`predicate_key`), else `default`."""
    key = predicate_key(table, triple)
    return default if key is None else table[key]


def paraphrase_table(predicates: dict[str, PredicateInfo], limit: int = 4) -> dict[str, list[str]]:
    """p' candidates, the words that state the relation first, keyed as `by_name` keys: by id, lower-cased label
    and alias, since a user's graph often names its predicates in words, DBpedia's among them (`birth place`)."""
    phrases = {pid: info.paraphrases(statements_first=True)[:limit] for pid, info in predicates.items()}
    return by_name(predicates, {pid: found for pid, found in phrases.items() if found})


# Relations X-FACTR types as one object per subject (it reads LAMA, which keeps one object of each) whose values a
# subject holds one after another: another club a page names is a player's earlier or later one, no contradiction. The
# readers' training data keeps X-FACTR's type (`PredicateInfo.single_valued`): the shipped readers learned from it.
HELD_IN_TURN = frozenset({"P54"})


# A relation LAMA types N-1 ("[X] was founded in [Y] .") that the data folder's X-FACTR list lacks: a firm or a band is
# founded in one place (its headquarters may move). Not LAMA's other such, the manufacturer (P176): the value reader
# reads no maker off a page and the facts files name none, so nothing would contradict it, and its claims would be
# read for other values for nothing. As with `HELD_IN_TURN`, the readers' training data keeps
# `PredicateInfo.single_valued`, which does not count it.
LAMA_ONE_VALUED = frozenset({"P740"})


def one_valued_keys(predicates: dict[str, PredicateInfo], keep: set[str] | None = None) -> list[str]:
    """The ids, labels and aliases (lower-cased, as `by_name` keys them) of the relations with one value per
    subject by X-FACTR's type, less those `HELD_IN_TURN`, with those `LAMA_ONE_VALUED`; those of `keep` only when
    given; a name that is also the label or alias of another typed relation stays out."""
    typed = {pid: ((info.single_valued and pid not in HELD_IN_TURN) or pid in LAMA_ONE_VALUED)
             and (keep is None or pid in keep)
             for pid, info in predicates.items() if info.cardinality or pid in LAMA_ONE_VALUED}
    return sorted(key for key, one in by_name(predicates, typed).items() if one)

