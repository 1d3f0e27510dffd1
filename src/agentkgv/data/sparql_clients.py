"""Where a graph lives: a SPARQL 1.1 endpoint over HTTP, or an embedded Oxigraph store, behind one
`SparqlClient` that runs a SELECT and yields its solutions as RDF terms.

The SPARQL 1.1 protocol is one HTTP POST with a form field; `requests` sends it, and the retry loop is ours
because what to retry (timeouts, 5xx, 429) and what to report (the URL and the page) is specific.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import pyoxigraph as ox

from agentkgv.data.errors import DataError

Term = ox.NamedNode | ox.Literal | ox.BlankNode


class SparqlError(DataError):
    """An endpoint that refused a query or gave no answer: names the endpoint and what was asked."""


class SparqlClient(Protocol):
    """Runs SPARQL against a graph: a remote endpoint or an embedded store."""

    name: str
    # Whether one query's results stream (an embedded store): then the triples are read in one query, not
    # cut into LIMIT/OFFSET pages, each of which an endpoint must sort again.
    streams: bool

    def select(self, query: str) -> Iterator[dict[str, Term]]: ...

    def update(self, update: str) -> None: ...


@dataclass
class HttpEndpoint:
    """A SPARQL 1.1 endpoint over HTTP. A timeout, a 5xx or a 429 is retried `retries` times with a growing
    pause; then, or on any other refusal, SparqlError says what the server answered."""

    url: str
    update_url: str | None = None  # default: the query URL with `/query` -> `/update`, else the query URL
    timeout: float = 60.0
    retries: int = 3
    backoff: float = 0.5
    session: object = field(default=None, repr=False)
    streams = False

    @property
    def name(self) -> str:
        return self.url

    def select(self, query: str) -> Iterator[dict[str, Term]]:
        answer = self._post(self.url, {"query": query}, {"Accept": "application/sparql-results+json"})
        try:
            bindings = answer.json()["results"]["bindings"]
        except (ValueError, KeyError, TypeError):
            raise SparqlError(self.url, f"not a SPARQL JSON result: {answer.text[:200]!r}") from None
        for row in bindings:
            yield {name: _json_term(value, self.url) for name, value in row.items()}

    def update(self, update: str) -> None:
        target = self.update_url or (self.url[: -len("/query")] + "/update" if self.url.endswith("/query") else self.url)
        self._post(target, {"update": update}, {})

    def _post(self, url: str, form: dict, headers: dict):
        import requests

        if self.session is None:
            self.session = requests.Session()
        last = ""
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            try:
                answer = self.session.post(url, data=form, headers=headers, timeout=self.timeout)
            except requests.Timeout:
                last = f"no answer within {self.timeout:g} s"
                continue
            except requests.ConnectionError as error:
                last = f"cannot connect ({type(error).__name__})"
                continue
            except requests.RequestException as error:  # a malformed URL, a bad scheme: retrying cannot help
                raise SparqlError(url, f"cannot send the request: {error}") from None
            if answer.status_code < 300:
                return answer
            last = f"HTTP {answer.status_code}: {answer.text.strip()[:300]}"
            if answer.status_code < 500 and answer.status_code != 429:
                raise SparqlError(url, f"the endpoint refused the request: {last}")
        raise SparqlError(url, f"no answer after {self.retries + 1} tries: {last}")


class EmbeddedStore:
    """An Oxigraph store on disk: a graph file too large for memory is loaded once, then queried like an
    endpoint (query results stream from disk)."""

    streams = True

    def __init__(self, location: Path):
        self.location = Path(location)
        try:
            self.store = ox.Store(str(self.location))
        except OSError as error:  # held by another process
            raise SparqlError(self.location, f"cannot open the store: {error}") from None

    @property
    def name(self) -> str:
        return f"store:{self.location}"

    def load(self, path: Path, progress: Callable[[int], None] = lambda done: None) -> int:
        """Bulk-load an N-Triples or Turtle file; returns the triples in the store."""
        # Triple formats only: quads would land in named graphs, which the default-graph queries do not read.
        formats = {".nt": ox.RdfFormat.N_TRIPLES, ".ttl": ox.RdfFormat.TURTLE}
        if path.suffix.lower() not in formats:
            raise DataError(path, f"a store loads {', '.join(formats)} files, not {path.suffix!r}")
        try:
            self.store.bulk_load(path=str(path), format=formats[path.suffix.lower()])
        except SyntaxError as error:
            raise DataError(path, f"not valid RDF: {error}") from None
        self.store.optimize()
        count = len(self.store)
        progress(count)
        return count

    def select(self, query: str) -> Iterator[dict[str, Term]]:
        try:
            solutions = self.store.query(query)
        except (SyntaxError, OSError) as error:
            raise SparqlError(self.name, f"the query failed: {error}") from None
        if not isinstance(solutions, ox.QuerySolutions):
            raise SparqlError(self.name, "expected a SELECT query")
        names = [v.value for v in solutions.variables]
        for solution in solutions:
            yield {name: solution[name] for name in names if solution[name] is not None}

    def update(self, update: str) -> None:
        try:
            self.store.update(update)
        except (SyntaxError, OSError) as error:
            raise SparqlError(self.name, f"the update failed: {error}") from None


def _json_term(value: object, url: str) -> Term:
    """A term of the SPARQL 1.1 JSON results format."""
    if not isinstance(value, dict) or "type" not in value or "value" not in value:
        raise SparqlError(url, f"not a SPARQL JSON term: {value!r:.200}")
    kind, text = value["type"], value["value"]
    try:
        if kind == "uri":
            return ox.NamedNode(text)
        if kind == "bnode":
            return ox.BlankNode(text)
        if "xml:lang" in value:
            return ox.Literal(text, language=value["xml:lang"])
        if "datatype" in value:
            return ox.Literal(text, datatype=ox.NamedNode(value["datatype"]))
        return ox.Literal(text)
    except ValueError as error:
        raise SparqlError(url, f"bad term {value!r:.200}: {error}") from None
