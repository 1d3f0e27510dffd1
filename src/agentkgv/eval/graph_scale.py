"""The graph's word at scale: a profile and every triple's findings for a graph of a million triples, streamed
from an N-Triples file, timed, with the process's peak memory; and the SHACL engines side by side.

The graph is made from the project's Wikidata-based facts (LAMA T-REx's known triples, each entity with its
label): where they hold fewer triples than asked, further copies with renamed entities (`Q42-1`) are added,
which keeps each predicate's shape while the graph grows.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agentkgv.data.errors import DataError
from agentkgv.data.lama import iter_known_triples
from agentkgv.graph.evidence import GraphEvidence
from agentkgv.graph.profile import GraphProfile, build_profile, file_triples
from agentkgv.graph.shapes import profile_shapes
from agentkgv.memory import peak_memory_gib

WD, WDT, LABEL = "http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/", "http://www.w3.org/2000/01/rdf-schema#label"


def _literal(text: str) -> str:
    import pyoxigraph as ox

    return str(ox.Literal(text, language="en"))


def write_scale_graph(data_dir: Path, path: Path, size: int) -> int:
    """An N-Triples graph of `size` triples from the known triples (see the module's note); returns its size."""
    import pyoxigraph as ox

    facts = [fact for fact in iter_known_triples(data_dir) if fact[1] and fact[3]]
    if not facts:
        raise DataError(data_dir, "no known triples to build a graph from (is the data folder set right?)")
    written = 0
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        copy = 0
        while written < size:
            labelled: set[str] = set()
            for relation, subject, subject_label, obj, obj_label in facts:
                s = f"{subject}-{copy}" if copy else subject
                o = f"{obj}-{copy}" if copy else obj
                lines = [f"<{WD}{s}> <{WDT}{relation}> " + (f"<{WD}{o}>" if obj[:1] == "Q" else str(ox.Literal(obj))) + " ."]
                for entity, label in ((s, subject_label), (o, obj_label)):
                    if entity not in labelled and label and obj[:1] == "Q":
                        labelled.add(entity)
                        lines.append(f"<{WD}{entity}> <{LABEL}> {_literal(label)} .")
                for line in lines[: size - written]:
                    handle.write(line + "\n")
                written = min(size, written + len(lines))
                if written >= size:
                    break
            copy += 1
    tmp.replace(path)
    return written


@dataclass(frozen=True)
class ScaleRow:
    HEADERS = ("Triples", "Predicates", "Profile (s)", "Findings, every triple (s)", "Triples flagged",
               "Peak memory (GiB)")

    triples: int
    predicates: int
    profile_seconds: float
    evidence_seconds: float
    flagged: int
    peak_gib: float

    def cells(self) -> list[str]:
        return [f"{self.triples:,}", str(self.predicates), f"{self.profile_seconds:.1f}", f"{self.evidence_seconds:.1f}",
                f"{self.flagged:,}", f"{self.peak_gib:.2f}"]


def measure_scale(path: Path, progress: Callable[[int], None] = lambda done: None) -> tuple[ScaleRow, Counter, GraphProfile]:
    """Profile the file, then hold every triple against it, each streamed from the file."""
    stream = file_triples(path)
    started = time.perf_counter()
    profile = build_profile(stream, path.name, progress)
    profiled = time.perf_counter()
    evidence = GraphEvidence(profile, stream())
    rules: Counter[str] = Counter()
    flagged = 0
    for triple in stream():
        found = evidence.findings(triple)
        flagged += bool(found)
        rules.update(finding.rule for finding in found)
    done = time.perf_counter()
    return ScaleRow(profile.triples, len(profile.predicates), profiled - started, done - profiled, flagged,
                    peak_memory_gib()), rules, profile


@dataclass(frozen=True)
class ShaclRow:
    HEADERS = ("Engine", "Triples", "Shapes", "Violations", "Seconds")

    engine: str
    triples: int
    shapes: int
    violations: int
    seconds: float

    def cells(self) -> list[str]:
        return [self.engine, f"{self.triples:,}", str(self.shapes), str(self.violations), f"{self.seconds:.1f}"]


def sample_lines(path: Path, sample: int, total: int) -> Path:
    """Every n-th line of an N-Triples file, about `sample` of its `total`, as a file beside it."""
    stride = max(1, total // sample)
    head = path.with_name(path.stem + f".sample{sample}.nt")
    with path.open(encoding="utf-8") as source, head.open("w", encoding="utf-8") as target:
        for number, line in enumerate(source):
            if number % stride == 0:
                target.write(line)
    return head


def compare_shacl_engines(name: str, data_path: Path, profile: GraphProfile) -> list[ShaclRow]:
    """pySHACL (where installed) and pyshacl-turbo validating an N-Triples file against the shapes of a
    `profile` (graph/shapes.py): the same violations, and how long each takes."""
    from importlib import import_module

    from rdflib import RDF, Graph, URIRef

    validation_result, node_shape = (URIRef(f"http://www.w3.org/ns/shacl#{kind}") for kind in ("ValidationResult", "NodeShape"))
    data = Graph().parse(data_path, format="nt")
    shapes = Graph().parse(data=profile_shapes(profile), format="turtle")
    count = len(set(shapes.subjects(RDF.type, node_shape)))
    engines = [("pyshacl-turbo", "pyshacl_turbo")]
    try:  # pySHACL, the reference engine, comes with the dev extra
        import pyshacl  # noqa: F401
        engines.insert(0, ("pySHACL", "pyshacl"))
    except ImportError:
        pass
    rows = []
    for engine, module in engines:
        validate = import_module(module).validate
        started = time.perf_counter()
        _, report, _ = validate(data, shacl_graph=shapes, inference="none", allow_warnings=True)
        seconds = time.perf_counter() - started
        rows.append(ShaclRow(f"{engine} ({name})", len(data), count, len(set(report.subjects(RDF.type, validation_result))),
                             seconds))
    return rows


@dataclass(frozen=True)
class ReadRow:
    HEADERS = ("File", "Triples read", "Seconds")

    file: str
    triples: int
    seconds: float

    def cells(self) -> list[str]:
        return [self.file, f"{self.triples:,}", f"{self.seconds:.1f}"]


def measure_reading(paths: list[Path]) -> list[ReadRow]:
    """How long `verify` takes to read each graph file into the claims it checks (data/user_formats.py)."""
    from agentkgv.data.user_formats import read_triples

    rows = []
    for path in paths:
        started = time.perf_counter()
        count = sum(1 for _ in read_triples(path))
        rows.append(ReadRow(path.name, count, time.perf_counter() - started))
    return rows


def write_long_literal(path: Path, size: int = 5_000_000) -> Path:
    """One triple whose literal is `size` characters long."""
    path.write_text(f'<http://example.org/a> <http://example.org/note> "{"x" * size}" .\n', encoding="utf-8")
    return path
