"""Write a large real graph for the streaming benchmark: T-REx's Wikidata rows as N-Triples.

Every fact of `lama_trex/TREx_all` and every row of `lama_trex/TREx_train_extra` becomes a claim
`wd:Q… wdt:P… wd:Q…` with an English `rdfs:label` for each entity and property (about 0.55 million
triples). `--copies N` writes the graph N times, copy k > 0 under `http://example.org/copy<k>/` IRIs, to reach
a million triples and more with real labels and a real graph shape.

    python experiments/wikidata_graph.py /tmp/wikidata.nt --copies 3
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

import pyoxigraph as ox

from agentkgv.data.predicates import load_predicates
from agentkgv.paths import data_dir

ENTITY, PROPERTY = "http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/"
LABEL = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label")


def facts(root: Path):
    """(subject Q, subject label, property P, object Q, object label) of every T-REx row, once each."""
    seen = set()
    for path in sorted((root / "lama_trex" / "TREx_all").glob("P*/*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            row = (r["sub_uri"], r["sub_label"], path.parent.name, r["obj_uri"], r["obj_label"])
            if row[::2] not in seen:
                seen.add(row[::2])
                yield row
    for path in sorted((root / "lama_trex" / "TREx_train_extra").glob("P*/*.tsv")):
        with path.open(encoding="utf-8", newline="") as handle:
            for r in csv.DictReader(handle, delimiter="\t"):
                row = (r["item"].rsplit("/", 1)[-1], r["itemLabel"], path.parent.name, r["value"].rsplit("/", 1)[-1],
                       r["valueLabel"])
                if row[::2] not in seen and row[0].startswith("Q") and row[3].startswith("Q"):
                    seen.add(row[::2])
                    yield row


def quads(rows: list[tuple], copy: int, properties: dict[str, str]):
    base = ENTITY if copy == 0 else f"http://example.org/copy{copy}/"
    labelled = set()
    for s, s_label, p, o, o_label in rows:
        subject, obj = ox.NamedNode(base + s), ox.NamedNode(base + o)
        yield ox.Quad(subject, ox.NamedNode(PROPERTY + p), obj)
        for node, label in ((subject, s_label), (obj, o_label), (ox.NamedNode(PROPERTY + p), properties.get(p))):
            if label and node.value not in labelled:
                labelled.add(node.value)
                yield ox.Quad(node, LABEL, ox.Literal(label, language="en"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path)
    parser.add_argument("--copies", type=int, default=3)
    args = parser.parse_args()
    root = data_dir()
    properties = {pid: info.label for pid, info in load_predicates(root).items()}
    rows = list(facts(root))
    count = 0
    with args.output.open("wb") as handle:
        for copy in range(args.copies):
            written = list(quads(rows, copy, properties))
            ox.serialize(written, handle, ox.RdfFormat.N_TRIPLES)
            count += len(written)
    print(f"{len(rows)} facts x {args.copies} copies: {count} triples -> {args.output}")


if __name__ == "__main__":
    main()
