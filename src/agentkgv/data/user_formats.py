"""The formats users keep their own graphs in: JSON Lines, CSV/TSV with a header, N-Triples and Turtle.

Tabular rows name their columns `subject`/`predicate`/`object` (or `s`/`p`/`o`), with optional `id`,
`label` (true/false/1/0), `predicate_id`, `subject_id`, `object_id`, and `subject_aliases` /
`object_aliases` (a JSON list, or names joined by `|` in a table cell). A JSON line may instead nest those
fields under `triple`, as the benchmark's splits and `verify`'s own output do (whose `gold` is then the
label), so either file can be verified again. RDF terms are read as the verifier
reads text: a predicate IRI becomes words (`dbo:birthPlace` -> `birth place`), an entity its `rdfs:label`
if the graph has one, else its IRI's local name (`Beverly_Hills` -> `Beverly Hills`), and its
`skos:altLabel`s are its aliases. The formats share the record checks and error reporting (file and
line), so they stay in one module of about 300 lines.
"""

from __future__ import annotations

import csv
import itertools
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import unquote

from rdflib import RDFS, SKOS, BNode, Graph, Literal, URIRef
from rdflib.plugins.parsers.notation3 import BadSyntax

from agentkgv.data.errors import DataError
from agentkgv.data.jsonl import decoded_lines, read_jsonl, write_jsonl
from agentkgv.data.records import LabeledTriple, RdfTerms, Triple

SUPPORTED_FORMATS = ("jsonl", "csv", "tsv", "nt", "ttl")
_SUFFIXES = {".jsonl": "jsonl", ".csv": "csv", ".tsv": "tsv", ".nt": "nt", ".ttl": "ttl"}
_RDFLIB_FORMATS = {"nt": "nt", "ttl": "turtle"}
_COLUMNS = {"subject": ("subject", "s"), "predicate": ("predicate", "p"), "object": ("object", "o")}
_OPTIONAL = ("predicate_id", "subject_id", "object_id")
_ALIASES = ("subject_aliases", "object_aliases")
_TRUE, _FALSE = frozenset({"true", "1"}), frozenset({"false", "0"})
# Naming and documentation triples describe the graph's terms; they are not claims to verify.
_ANNOTATIONS = frozenset({RDFS.label, RDFS.comment, SKOS.prefLabel, SKOS.altLabel})
_WORD_BREAK = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|[_\-\s]+")
_WIKIDATA = re.compile(r"https?://www\.wikidata\.org/(?:entity|prop/direct|prop)/([QP][0-9]+)")


def read_triples(path: Path, fmt: str | None = None,
                 rejected: list[DataError] | None = None) -> Iterator[LabeledTriple]:
    """Triples of a user's file; `fmt` (one of SUPPORTED_FORMATS) defaults to what the suffix says.

    A bad row (broken JSON, not UTF-8, a missing field, a repeated id) raises DataError naming file:line,
    or, when a `rejected` list is given, is appended there and skipped so every good row is still read."""
    path = Path(path)
    fmt = fmt or _SUFFIXES.get(path.suffix.lower())
    if fmt not in SUPPORTED_FORMATS:
        supported = ", ".join(SUPPORTED_FORMATS)
        raise DataError(path, f"unknown format {fmt or path.suffix!r}; supported: {supported}")
    if not path.exists():
        raise DataError(path, "file not found")
    if path.is_dir():
        raise DataError(path, "a folder, not a file of triples: give the file inside it")
    on_error = None if rejected is None else rejected.append
    if fmt == "jsonl":
        rows = _read_jsonl(path, on_error)
    elif fmt in ("csv", "tsv"):
        rows = _read_table(path, on_error)
    else:
        return _read_rdf(path, _RDFLIB_FORMATS[fmt], on_error)
    return _unique(_rows_to_triples(rows, path, on_error), path, on_error)


def _rows_to_triples(rows: Iterator[tuple[int, dict]], path: Path,
                     on_error: Callable[[DataError], None] | None) -> Iterator[tuple[int, LabeledTriple]]:
    for line, row in rows:
        try:
            yield line, _from_row(row, path, line)
        except DataError as error:
            if on_error is None:
                raise
            on_error(error)


def _unique(rows: Iterator[tuple[int, LabeledTriple]], path: Path,
            on_error: Callable[[DataError], None] | None) -> Iterator[LabeledTriple]:
    """A run log keys verdicts by id, so a repeated id would silently give two triples one verdict."""
    first_line: dict[str, int] = {}
    for line, item in rows:
        if item.id in first_line:
            error = DataError(path, f"duplicate id {item.id!r} (first at line {first_line[item.id]})", line, "id")
            if on_error is None:
                raise error
            on_error(error)
            continue
        first_line[item.id] = line
        yield item


def write_rejected(output: Path, rejected: list[DataError]) -> Path:
    """The rows a skip-mode run left out, with why, beside its output: `<output>.rejected.jsonl`."""
    path = Path(output).with_name(Path(output).name + ".rejected.jsonl")
    write_jsonl(path, ({"file": error.path, "line": error.line, "field": error.field, "error": str(error)}
                       for error in rejected))
    return path


def predicate_words(name: str) -> str:
    """`birthPlace` -> `birth place`, `date_of_birth` -> `date of birth`; acronyms and ids keep their case."""
    words = [word for word in _WORD_BREAK.split(name) if word]
    return " ".join(word if word.isupper() or not word.isalpha() else word.lower() for word in words)


def local_name(iri: str) -> str:
    """The last segment of an IRI, percent-decoded: `http://dbpedia.org/resource/Pel%C3%A9` -> `Pelé`."""
    iri = iri.rstrip("/#")
    separator = "#" if "#" in iri else "/" if "/" in iri else ":"  # DBpedia names may hold a ':'
    return unquote(iri.rsplit(separator, 1)[-1])


def _read_jsonl(path: Path, on_error: Callable[[DataError], None] | None) -> Iterator[tuple[int, dict]]:
    for line, record in read_jsonl(path, on_error):
        if isinstance(record, dict) and isinstance(record.get("triple"), dict):
            yield line, {**record["triple"], "id": record.get("id"), "label": record.get("label", record.get("gold"))}
            continue
        if isinstance(record, dict):
            yield line, record
            continue
        error = DataError(path, f"expected a JSON object, got {type(record).__name__}", line)
        if on_error is None:
            raise error
        on_error(error)


def _read_table(path: Path, on_error: Callable[[DataError], None] | None) -> Iterator[tuple[int, dict]]:
    lines = iter(decoded_lines(path, on_error))
    header = next(lines, "")
    reader = csv.DictReader(itertools.chain([header], lines), delimiter="\t" if "\t" in header else ",")
    columns = {name.strip() for name in reader.fieldnames or []}
    for field, names in _COLUMNS.items():
        if not columns & set(names):
            raise DataError(path, f"header has no {' or '.join(map(repr, names))} column", 1, field)
    for row in reader:
        if None in row:
            error = DataError(path, "more cells than header columns", reader.line_num)
            if on_error is None:
                raise error
            on_error(error)
            continue
        yield reader.line_num, {key.strip(): value for key, value in row.items()}


def _from_row(row: dict, path: Path, line: int) -> LabeledTriple:
    values = {}
    for field, names in _COLUMNS.items():
        value = next((row[name] for name in names if row.get(name) not in (None, "")), None)
        if value is None or not str(value).strip():
            raise DataError(path, "missing or empty", line, field)
        values[field] = str(value).strip()
    optional = {key: str(row[key]).strip() for key in _OPTIONAL if row.get(key) not in (None, "")}
    for key in _ALIASES:
        if row.get(key) not in (None, ""):
            optional[key] = _aliases(row[key], path, line, key)
    return LabeledTriple(
        id=str(row.get("id") or f"{path.stem}:{line}"),
        triple=Triple(**values, **optional),
        label=_label(row.get("label"), path, line),
        source=f"user:{path.name}",
    )


def _aliases(value: object, path: Path, line: int, field: str) -> tuple[str, ...]:
    """A JSON list of names, or in a table cell names joined by `|`."""
    names = value.split("|") if isinstance(value, str) else value
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise DataError(path, f"expected a list of names or a '|'-joined string, got {json.dumps(value)}", line, field)
    return tuple(name.strip() for name in names if name.strip())


def _label(value: object, path: Path, line: int) -> bool | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise DataError(path, f"expected true/false/1/0, got {json.dumps(value)}", line, "label")


def _read_rdf(path: Path, rdflib_format: str,
              on_error: Callable[[DataError], None] | None) -> Iterator[LabeledTriple]:
    try:
        graph = _parse(path, rdflib_format)
    except DataError:
        # Turtle statements span lines, so a broken one cannot be cut out; an N-Triples line can.
        if on_error is None or rdflib_format != "nt":
            raise
        graph = _parse_lines(path, on_error)
    names, aliases = _names(graph), _alt_labels(graph)
    claims = sorted(triple for triple in graph if triple[1] not in _ANNOTATIONS)
    for index, (subject, predicate, obj) in enumerate(claims, start=1):
        yield LabeledTriple(
            id=f"{path.stem}:{index}",
            triple=Triple(
                subject=_term_label(subject, names),
                predicate=predicate_words(local_name(str(predicate))),
                object=_term_label(obj, names),
                predicate_id=_term_id(predicate),
                subject_id=_term_id(subject),
                object_id=_term_id(obj),
                subject_aliases=aliases.get(subject, ()),
                object_aliases=aliases.get(obj, ()),
                rdf=RdfTerms(*(n_triples(term, path) for term in (subject, predicate, obj))),
            ),
            source=f"user:{path.name}",
        )


def _parse(path: Path, rdflib_format: str) -> Graph:
    for _ in decoded_lines(path):  # rdflib's own decoding error names no line
        pass
    graph = Graph()
    try:
        graph.parse(path, format=rdflib_format)
    except BadSyntax as error:
        raise DataError(path, f"bad {rdflib_format} syntax: {error.args[-1]}", error.lines + 1) from None
    except Exception as error:  # rdflib raises several unrelated types; all mean the file cannot be read
        line = _first_bad_line(path, rdflib_format)
        raise DataError(path, f"not valid {rdflib_format}: {error}", line) from None
    return graph


def _parse_lines(path: Path, on_error: Callable[[DataError], None]) -> Graph:
    """The good lines of an N-Triples file, each bad one reported with its number."""
    graph = Graph()
    for number, line in enumerate(decoded_lines(path, on_error), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            graph.parse(data=line, format="nt")
        except Exception as error:  # as in _parse: rdflib's error types vary
            on_error(DataError(path, f"not valid nt: {error}", number))
    return graph


def _first_bad_line(path: Path, rdflib_format: str) -> int | None:
    """N-Triples errors carry no line number; each line is a statement, so parse them one by one."""
    if rdflib_format != "nt":
        return None
    for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
        try:
            Graph().parse(data=line, format="nt")
        except Exception:
            return number
    return None


def _names(graph: Graph) -> dict:
    """Term -> label, from rdfs:label (else skos:prefLabel), English or untagged labels preferred."""
    names: dict = {}
    for predicate in (SKOS.prefLabel, RDFS.label):  # rdfs:label last, so it wins
        for subject, label in graph.subject_objects(predicate):
            if isinstance(label, Literal) and (label.language in (None, "en") or subject not in names):
                names[subject] = str(label)
    return names


def _alt_labels(graph: Graph) -> dict:
    """Term -> its skos:altLabel names, the aliases a passage may name it by."""
    aliases: dict = {}
    for subject, label in sorted(graph.subject_objects(SKOS.altLabel)):
        if isinstance(label, Literal):
            aliases[subject] = (*aliases.get(subject, ()), str(label))
    return aliases


def _term_label(term: object, names: dict) -> str:
    if term in names:
        return names[term]
    if isinstance(term, Literal):
        return str(term)
    if isinstance(term, BNode):
        return f"_:{term}"
    return local_name(str(term)).replace("_", " ")


def n_triples(term: object, path: Path) -> str:
    """An rdflib term in N-Triples syntax, as pyoxigraph writes it (rdflib's own n3() is Turtle: long
    strings in triple quotes)."""
    import pyoxigraph as ox

    try:
        if isinstance(term, URIRef):
            return str(ox.NamedNode(str(term)))
        if isinstance(term, BNode):
            return str(ox.BlankNode(str(term)))
        if isinstance(term, Literal):
            if term.language:
                return str(ox.Literal(str(term), language=term.language))
            if term.datatype:
                return str(ox.Literal(str(term), datatype=ox.NamedNode(str(term.datatype))))
            return str(ox.Literal(str(term)))
    except ValueError as error:
        raise DataError(path, f"not an RDF term pyoxigraph accepts: {term!r} ({error})") from None
    raise DataError(path, f"not an RDF term: {term!r}")


def _term_id(term: object) -> str | None:
    return term_id(str(term)) if isinstance(term, URIRef) else None


def term_id(iri: str) -> str:
    """The id a triple keeps for an IRI: a Wikidata entity or property as its Q/P id, else the IRI."""
    match = _WIKIDATA.fullmatch(iri)
    return match.group(1) if match else iri
