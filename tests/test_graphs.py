"""Graphs where they live: triples read from a real SPARQL server (Oxigraph, on loopback) and from an
embedded store, verdicts written back as RDF and queried again; faults of the endpoint; injection."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pyoxigraph as ox
import pytest
import requests
from typer.testing import CliRunner

from agentkgv.commands.app import app
from agentkgv.data.sparql import GraphSelection, names_of, stream_triples
from agentkgv.data.sparql_clients import EmbeddedStore, HttpEndpoint, SparqlError

EX = "http://example.org/"
EVIL = 'Evil" } ; DROP ALL ; INSERT DATA { <http://x/> <http://x/> "pwned" } #'
GRAPH = f"""@prefix ex: <{EX}> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
ex:Allan_Peiper ex:placeOfBirth ex:Alexandra ; rdfs:label "Allan Peiper"@en , "Allan Peiper (cyclist)" ;
    skos:altLabel "A. Peiper"@en , "Allan Peiper"@de .
ex:Alexandra rdfs:label "Alexandra"@en , "Alexandra (Victoria)"@fr .
ex:Bob_Smith ex:placeOfBirth ex:Leeds ; ex:birthYear "1950" .
ex:Leeds rdfs:label "Leeds" .
ex:placeOfBirth rdfs:label "place of birth"@en .
<{EX}odd%3E%7D> ex:placeOfBirth ex:Leeds ; rdfs:label {json.dumps(EVIL)} .
"""
TRIPLES = 4  # the statements above that are not labels


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(tmp_path):
    """A real Oxigraph SPARQL server on loopback holding GRAPH; yields its query URL."""
    # Installed beside this interpreter (pip's scripts folder), which need not be on PATH.
    binary = shutil.which("oxigraph", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    if binary is None:
        pytest.fail("the oxigraph server is not installed (pip install -e .)")
    location, graph = tmp_path / "store", tmp_path / "graph.ttl"
    graph.write_text(GRAPH, encoding="utf-8")
    subprocess.run([binary, "load", "--location", str(location), "--file", str(graph)], check=True, capture_output=True)
    port = _free_port()
    process = subprocess.Popen([binary, "serve", "--location", str(location), "--bind", f"127.0.0.1:{port}"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/query"
    try:
        for _ in range(100):
            try:
                requests.post(url, data={"query": "ASK {}"}, timeout=1)
                break
            except requests.ConnectionError:
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(10)


def _count(url: str, query: str) -> int:
    rows = list(HttpEndpoint(url).select(query))
    return int(rows[0]["n"].value)


def test_triples_stream_from_an_endpoint_in_pages_with_their_names(server):
    pages = []
    triples = list(stream_triples(HttpEndpoint(server), GraphSelection(pattern="?s ?p ?o ."), page_size=2,
                                  on_page=pages.append))
    assert len(triples) == TRIPLES and pages == [2, 2]
    assert len({t.id for t in triples}) == TRIPLES
    allan = next(t.triple for t in triples if t.triple.subject == "Allan Peiper")
    assert allan.predicate == "place of birth" and allan.object == "Alexandra"
    # Other labels and skos:altLabels in English or untagged are aliases; the German and French are not.
    assert set(allan.subject_aliases) == {"Allan Peiper (cyclist)", "A. Peiper"}
    assert allan.object_aliases == ()
    assert allan.rdf.subject == f"<{EX}Allan_Peiper>"
    year = next(t.triple for t in triples if t.triple.object == "1950")
    assert year.predicate == "birth year" and year.object_id is None and year.rdf.object == '"1950"'
    # An entity without a label is named by its IRI's local name.
    assert {t.triple.subject for t in triples} >= {"Bob Smith"}


def test_a_pattern_or_a_query_selects_the_triples(server, tmp_path):
    endpoint = HttpEndpoint(server)
    born = list(stream_triples(endpoint, GraphSelection(pattern=f"VALUES ?p {{ <{EX}placeOfBirth> }} ?s ?p ?o .")))
    assert len(born) == 3 and {t.triple.predicate for t in born} == {"place of birth"}
    query = f"SELECT ?s ?p ?o WHERE {{ ?s ?p ?o . FILTER(?p = <{EX}birthYear>) }}"
    assert [t.triple.object for t in stream_triples(endpoint, GraphSelection(query=query))] == ["1950"]
    with pytest.raises(ValueError, match="LIMIT"):
        GraphSelection(query=query + " LIMIT 10")
    with pytest.raises(ValueError, match="not both"):
        GraphSelection(pattern="?s ?p ?o .", query=query)


def test_no_label_or_iri_can_change_a_query(server):
    """Values enter queries only as RDF terms serialized by pyoxigraph: a label written as SPARQL and an
    IRI with escaped brackets come back verbatim, and the store is untouched."""
    before = _count(server, "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
    triples = list(stream_triples(HttpEndpoint(server), GraphSelection(pattern="?s ?p ?o .")))
    odd = next(t.triple for t in triples if t.triple.rdf.subject == f"<{EX}odd%3E%7D>")
    assert odd.subject == EVIL
    assert _count(server, "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }") == before
    assert _count(server, 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p "pwned" }') == 0
    with pytest.raises(ValueError, match="language tag"):
        names_of(HttpEndpoint(server), [ox.NamedNode(EX + "Leeds")], 'en") } #')
    with pytest.raises(ValueError):
        ox.NamedNode(EX + "a> } DROP ALL #")


class _Flaky(BaseHTTPRequestHandler):
    """In front of the real server: the first `failures` requests get `status` (or no answer in time)."""

    target = ""
    failures = 0
    status = 503
    delay = 0.0
    seen = 0

    def do_POST(self):
        type(self).seen += 1
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if type(self).seen <= self.failures:
            if self.delay:
                # No answer in time, then none at all: the client has given up, and the server may be gone.
                time.sleep(self.delay)
                return
            self.send_response(self.status)
            self.end_headers()
            self.wfile.write(b"overloaded")
            return
        answer = requests.post(self.target, data=body, headers={"Content-Type": self.headers["Content-Type"],
                                                                "Accept": self.headers.get("Accept", "*/*")})
        self.send_response(answer.status_code)
        self.send_header("Content-Type", answer.headers.get("Content-Type", "text/plain"))
        self.end_headers()
        self.wfile.write(answer.content)

    def log_message(self, *args):
        pass


@pytest.fixture
def flaky(server):
    handler = type("Handler", (_Flaky,), {"target": server, "seen": 0})
    proxy = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    yield handler, f"http://127.0.0.1:{proxy.server_address[1]}/query"
    proxy.shutdown()


def test_an_endpoint_that_fails_is_retried_then_named_in_a_clear_error(flaky):
    handler, url = flaky
    handler.failures = 2
    triples = list(stream_triples(HttpEndpoint(url, backoff=0.01), GraphSelection(pattern="?s ?p ?o .")))
    assert len(triples) == TRIPLES  # two 503s, then every triple, none twice
    handler.seen, handler.failures = 0, 100
    with pytest.raises(SparqlError, match=r"127\.0\.0\.1.*no answer after 3 tries: HTTP 503"):
        list(stream_triples(HttpEndpoint(url, retries=2, backoff=0.01), GraphSelection(pattern="?s ?p ?o .")))
    handler.seen, handler.delay = 0, 1.0
    with pytest.raises(SparqlError, match="no answer within 0.2 s"):
        list(stream_triples(HttpEndpoint(url, retries=1, timeout=0.2, backoff=0.01), GraphSelection(pattern="?s ?p ?o .")))


def test_a_refused_query_is_not_retried(server):
    with pytest.raises(SparqlError, match="refused the request: HTTP 400"):
        list(HttpEndpoint(server).select("SELECT nonsense"))


def test_a_graph_file_streams_from_an_embedded_store(tmp_path):
    graph = tmp_path / "graph.ttl"
    graph.write_text(GRAPH, encoding="utf-8")
    store = EmbeddedStore(tmp_path / "store")
    assert store.load(graph) == len(list(ox.parse(path=str(graph), format=ox.RdfFormat.TURTLE)))
    triples = list(stream_triples(store, GraphSelection(pattern="?s ?p ?o ."), page_size=2))
    assert len(triples) == TRIPLES and {t.triple.subject for t in triples} >= {"Allan Peiper", "Bob Smith"}


def test_round_trip_sparql_in_verdicts_rdf_out_and_queried_back(server, lexical_cache, tmp_path):
    """verify --sparql, export --endpoint, then SPARQL over the named graphs: every triple comes back once,
    as a verdict and in exactly one of the cleaned and flagged graphs."""
    runner = CliRunner()
    out = tmp_path / "verdicts.jsonl"
    result = runner.invoke(app, ["verify", "--sparql", server, "--method", "lexical", "--page-size", "2",
                                 "-o", str(out), "--cache-dir", str(lexical_cache)])
    assert result.exit_code == 0, result.output
    assert len(out.read_text().splitlines()) == TRIPLES
    result = runner.invoke(app, ["export", str(out), "--endpoint", server, "--base", "urn:test:"])
    assert result.exit_code == 0, result.output
    endpoint = HttpEndpoint(server)
    judged = list(endpoint.select("PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> SELECT ?s ?p ?o ?outcome "
                                  "WHERE { GRAPH <urn:test:verdicts> { ?v rdf:subject ?s ; rdf:predicate ?p ; "
                                  "rdf:object ?o ; <https://w3id.org/agentkgv/ns#outcome> ?outcome } }"))
    claims = {(str(r["s"]), str(r["p"]), str(r["o"])) for r in
              endpoint.select("SELECT ?s ?p ?o WHERE { ?s ?p ?o FILTER(?p != <http://www.w3.org/2000/01/rdf-schema#label> "
                              "&& ?p != <http://www.w3.org/2004/02/skos/core#altLabel>) }")}
    assert len(claims) == TRIPLES
    assert sorted((str(r["s"]), str(r["p"]), str(r["o"])) for r in judged) == sorted(claims)
    split = {name: {(str(r["s"]), str(r["p"]), str(r["o"])) for r in
                    endpoint.select(f"SELECT ?s ?p ?o WHERE {{ GRAPH <urn:test:{name}> {{ ?s ?p ?o }} }}")}
             for name in ("cleaned", "flagged")}
    assert split["cleaned"] | split["flagged"] == claims and not split["cleaned"] & split["flagged"]
    # The file export holds the same statements.
    trig = tmp_path / "verdicts.trig"
    assert runner.invoke(app, ["export", str(out), "-o", str(trig)]).exit_code == 0
    quads = list(ox.parse(path=str(trig), format=ox.RdfFormat.TRIG))
    assert sum(q.predicate.value.endswith("#outcome") for q in quads) == TRIPLES
    # With RDF 1.2 triple terms, a store that reads them finds each verdict by its triple too.
    assert runner.invoke(app, ["export", str(out), "-o", str(trig), "--rdf12", "--base", "urn:test:"]).exit_code == 0
    store = ox.Store()
    store.load(path=str(trig), format=ox.RdfFormat.TRIG)
    reified = [(str(r["s"]), str(r["p"]), str(r["o"])) for r in store.query(
        "SELECT ?s ?p ?o WHERE { GRAPH <urn:test:verdicts> { ?v <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> "
        "<<( ?s ?p ?o )>> ; <https://w3id.org/agentkgv/ns#outcome> ?outcome } }")]
    assert sorted(reified) == sorted(claims)
    # A second verify run resumes: nothing is verified twice.
    assert runner.invoke(app, ["verify", "--sparql", server, "--method", "lexical", "-o", str(out),
                               "--cache-dir", str(lexical_cache)]).exit_code == 0
    assert len(out.read_text().splitlines()) == TRIPLES


def test_a_graph_files_own_terms_go_back_as_n_triples(tmp_path):
    """A Turtle literal over two lines, a typed and a tagged one: each triple keeps its terms in N-Triples
    syntax, which the export parses back to the same statement."""
    from agentkgv.data.user_formats import read_triples
    from agentkgv.eval.verdict_rdf import statement

    graph = tmp_path / "g.ttl"
    graph.write_text(f'''@prefix ex: <{EX}> .
ex:a ex:motto """line one
line two""" ; ex:born "1950"^^<http://www.w3.org/2001/XMLSchema#gYear> ; ex:name "Ada"@en .
''', encoding="utf-8")
    triples = list(read_triples(graph))
    parsed = list(ox.parse(path=str(graph), format=ox.RdfFormat.TURTLE))
    assert {statement(t.triple) for t in triples} == {(q.subject, q.predicate, q.object) for q in parsed}
    with pytest.raises(ValueError, match="at least one triple"):
        list(stream_triples(EmbeddedStore(tmp_path / "s"), GraphSelection(pattern="?s ?p ?o ."), page_size=0))
