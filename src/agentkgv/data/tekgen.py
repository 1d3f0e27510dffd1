"""Text2KGBench's TekGen part: Wikipedia sentences with the Wikidata triples they state, in 10 ontologies.

Layout (relative to the data folder): `tekgen/{train,validation}/ont_<n>_<name>_<split>.jsonl` hold one
triple a line, with labels and ids (`sub_label`, `rel_label`, `obj_label`, `sub`, `rel`, `obj`) and
its sentence `sent`; `test/` holds sentences only, and `ground_truth/` the same sentences with their
`triples` as labels (no ids: the predicate id is looked up by label in the ontology and train files).
About one line in ten is mojibake (UTF-8 read as Latin-1: `ByÅ«tifuru`), repaired here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from agentkgv.data.errors import DataError, require
from agentkgv.data.jsonl import read_json, read_jsonl
from agentkgv.data.records import Fact, Passage, Triple

ROOT = Path("tekgen")
SENTENCE_SPLITS = ("train", "validation", "test")
FACT_SPLITS = ("train", "validation", "ground_truth")
_FILE = re.compile(r"(ont_\d+_[a-z]+)_(?:train|validation|test|ground_truth)")
# A UTF-8 lead byte followed by as many continuation bytes as it announces, each read as one Latin-1
# character. Correct text almost never pairs these (the second is a C1 control or a symbol such as
# `±` after an accented capital), and a pairing that is not valid UTF-8 is left as it is.
_MOJIBAKE = re.compile(
    "[\u00c2-\u00df][\u0080-\u00bf]|[\u00e0-\u00ef][\u0080-\u00bf]{2}|[\u00f0-\u00f4][\u0080-\u00bf]{3}"
)


def repair_mojibake(text: str) -> str:
    return _MOJIBAKE.sub(_redecode, text)


def _redecode(match: re.Match) -> str:
    try:
        return match.group().encode("latin-1").decode("utf-8")
    except UnicodeDecodeError:
        return match.group()


def iter_tekgen_sentences(data_dir: Path) -> Iterator[Passage]:
    """Every distinct sentence of every split, once (about 12K; a sentence stating several triples
    appears on several train lines)."""
    seen: set[str] = set()
    for path in _files(data_dir, SENTENCE_SPLITS):
        source = f"tekgen:{_ontology(path)}"
        for line, record in read_jsonl(path):
            text = repair_mojibake(str(require(record, "sent", path, line)))
            passage_id = Passage.make_id(source, text)
            if passage_id not in seen:
                seen.add(passage_id)
                yield Passage(id=passage_id, text=text, source=source)


def iter_tekgen_facts(data_dir: Path) -> Iterator[Fact]:
    """The labelled triples of train, validation and ground truth, each with its sentence as evidence."""
    predicate_ids = _ontology_predicate_ids(data_dir)
    for path in _files(data_dir, FACT_SPLITS):
        source = f"tekgen:{_ontology(path)}"
        for line, record in read_jsonl(path):
            sentence = repair_mojibake(str(require(record, "sent", path, line)))
            if "triples" in record:
                triples = _ground_truth_triples(record, predicate_ids, path, line)
            else:
                triples = [_train_triple(record, path, line)]
                predicate_ids.setdefault(triples[0].predicate, triples[0].predicate_id)
            for triple in triples:
                yield Fact(triple=triple, evidences=(sentence,), source=source)


def _train_triple(record: dict, path: Path, line: int) -> Triple:
    return Triple(
        subject=repair_mojibake(str(require(record, "sub_label", path, line))),
        predicate=str(require(record, "rel_label", path, line)),
        object=repair_mojibake(str(require(record, "obj_label", path, line))),
        predicate_id=record.get("rel"),
        subject_id=record.get("sub"),
        object_id=record.get("obj"),
    )


def _ground_truth_triples(
    record: dict, predicate_ids: dict[str, str | None], path: Path, line: int
) -> list[Triple]:
    items = record["triples"]
    if not isinstance(items, list):
        raise DataError(path, "expected a list", line, "triples")
    triples = []
    for index, item in enumerate(items):
        values = {}
        for key in ("sub", "rel", "obj"):
            value = item.get(key) if isinstance(item, dict) else None
            if not isinstance(value, str) or not value:
                raise DataError(path, "missing or empty", line, f"triples[{index}].{key}")
            values[key] = value
        triples.append(
            Triple(
                subject=repair_mojibake(values["sub"]),
                predicate=values["rel"],
                object=repair_mojibake(values["obj"]),
                predicate_id=predicate_ids.get(values["rel"]),
            )
        )
    return triples


def _ontology_predicate_ids(data_dir: Path) -> dict[str, str | None]:
    """Predicate label -> Wikidata id from the ontology files (labels are unique across all ten)."""
    ids: dict[str, str | None] = {}
    for path in sorted((data_dir / ROOT / "ontologies").glob("*_ontology.json")):
        ontology = read_json(path)
        relations = ontology.get("relations") if isinstance(ontology, dict) else None
        if not isinstance(relations, list):
            raise DataError(path, "expected a list", field="relations")
        for index, relation in enumerate(relations):
            if not isinstance(relation, dict) or not relation.get("label") or not relation.get("pid"):
                raise DataError(path, "needs a label and a pid", field=f"relations[{index}]")
            ids[relation["label"]] = relation["pid"]
    return ids


def _files(data_dir: Path, splits: tuple[str, ...]) -> list[Path]:
    base = data_dir / ROOT
    if not base.is_dir():
        raise DataError(base, "TekGen folder not found (is the data folder set right?)")
    return [path for split in splits for path in sorted((base / split).glob("*.jsonl"))]


def _ontology(path: Path) -> str:
    match = _FILE.match(path.stem)
    if not match:
        raise DataError(path, "file name should look like ont_<n>_<name>_<split>.jsonl")
    return match.group(1)
