"""LAMA's T-REx probe: facts of 37 Wikidata relations, 24 of them with Wikipedia evidence sentences.

Layout (relative to the data folder): `lama_trex/TREx_all/<P>/test.jsonl` holds facts with
`evidences` (the sentence with `[MASK]` where the object's surface form stood); `<P>.jsonl`,
`train.jsonl`, `dev.jsonl` and `TREx_train_extra/<P>/<P>.{jsonl,tsv}` hold further facts without
evidence. All of them count as known positives when hard negatives are mined.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

from agentkgv.data.errors import DataError, require
from agentkgv.data.jsonl import read_jsonl
from agentkgv.data.records import Fact, Triple

ROOT = Path("lama_trex")
EVIDENCE_FILE = "test.jsonl"
MASK = "[MASK]"


def restore_sentence(masked: str, object_surface: str) -> str:
    return masked.replace(MASK, object_surface)


def relations_with_evidence(data_dir: Path) -> list[str]:
    base = data_dir / ROOT / "TREx_all"
    if not base.is_dir():
        raise DataError(base, "LAMA T-REx folder not found (is the data folder set right?)")
    return sorted(p.name for p in base.iterdir() if (p / EVIDENCE_FILE).exists())


def all_relations(data_dir: Path) -> list[str]:
    return sorted(p.name for p in (data_dir / ROOT / "TREx_all").iterdir() if p.is_dir())


def _triple(record: dict, relation: str, label: str, path: Path, line: int) -> Triple:
    return Triple(
        subject=str(require(record, "sub_label", path, line)),
        predicate=label,
        object=str(require(record, "obj_label", path, line)),
        predicate_id=record.get("predicate_id", relation),
        subject_id=record.get("sub_uri"),
        object_id=record.get("obj_uri"),
    )


def iter_evidence_facts(data_dir: Path, relation: str, label: str | None = None) -> Iterator[Fact]:
    """Facts of one relation with their restored evidence sentences (deduplicated, order kept)."""
    path = data_dir / ROOT / "TREx_all" / relation / EVIDENCE_FILE
    for line, record in read_jsonl(path):
        triple = _triple(record, relation, label or relation, path, line)
        evidences = record.get("evidences") or []
        if not isinstance(evidences, list):
            raise DataError(path, "expected a list", line, "evidences")
        sentences: dict[str, None] = {}
        subjects, objects = [], []
        for item in evidences:
            masked = require(item, "masked_sentence", path, line)
            surface = str(item.get("obj_surface") or triple.object)
            sentences[restore_sentence(str(masked), surface)] = None
            subjects.append(str(item.get("sub_surface") or triple.subject))
            objects.append(surface)
        yield Fact(triple=triple, evidences=tuple(sentences), source=f"lama_trex:{relation}",
                   subject_surfaces=tuple(subjects), object_surfaces=tuple(objects))


def iter_known_triples(data_dir: Path) -> Iterator[tuple[str, str, str, str, str]]:
    """Every (predicate id, subject id, subject label, object id, object label) in every LAMA facts file."""
    base = data_dir / ROOT
    for folder in ("TREx_all", "TREx_train_extra"):
        for relation_dir in sorted((base / folder).glob("P*")):
            relation = relation_dir.name
            for path in sorted(relation_dir.glob("*.jsonl")):
                for line, record in read_jsonl(path):
                    yield (
                        relation,
                        str(record.get("sub_uri", "")),
                        str(require(record, "sub_label", path, line)),
                        str(record.get("obj_uri", "")),
                        str(require(record, "obj_label", path, line)),
                    )
            for path in sorted(relation_dir.glob("*.tsv")):
                yield from _iter_wikidata_tsv(path, relation)


def _iter_wikidata_tsv(path: Path, relation: str) -> Iterator[tuple[str, str, str, str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        missing = {"item", "itemLabel", "value", "valueLabel"} - set(reader.fieldnames or [])
        if missing:
            raise DataError(path, f"missing columns {sorted(missing)}", 1)
        for row in reader:
            yield (
                relation,
                row["item"].rsplit("/", 1)[-1],
                row["itemLabel"] or "",
                row["value"].rsplit("/", 1)[-1],
                row["valueLabel"] or "",
            )
