"""A user's own documents: every format read into titled passages, incremental indexes, and the
fingerprint that keeps a resumed run on the index it started with."""

from __future__ import annotations

import json

import pytest

from agentkgv.data.documents import ChunkConfig, DocumentError, parse_document
from agentkgv.paths import Workspace
from agentkgv.retrieval.user_index import load_manifest, open_index, update_index
from tests.cli_cases import run_cli

SMALL = ChunkConfig(words_per_passage=12, overlap_words=3)


def parse(path, config=SMALL):
    return parse_document(path, path.read_bytes(), config)


def test_plain_text_takes_a_short_first_line_as_title_and_cuts_with_overlap(tmp_path):
    page = tmp_path / "peiper.txt"
    page.write_text("Allan Peiper\n" + " ".join(f"Word{i} born in Alexandra." for i in range(12)))
    passages = parse(page).passages
    assert len(passages) > 2
    assert all(p.title == "Allan Peiper" and p.source == f"doc:{page}" for p in passages)
    # Each passage after the first begins with the last 3 words of the one before.
    for before, after in zip(passages, passages[1:]):
        assert after.text.split()[:3] == before.text.split()[-3:]
    assert parse(page).passages == passages  # ids and cuts are stable


def test_markdown_sections_take_their_heading_as_title(tmp_path):
    doc = tmp_path / "notes.md"
    doc.write_text("# Cyclists\n\nAllan **Peiper** was born in Alexandra.\n\n## Later life\n\n"
                   "- He managed a team in Belgium.\n")
    passages = parse(doc, ChunkConfig()).passages
    assert [(p.title, p.text) for p in passages] == [
        ("Cyclists", "Allan Peiper was born in Alexandra."),
        ("Later life", "He managed a team in Belgium.")]


def test_html_keeps_visible_text_under_its_headings(tmp_path):
    page = tmp_path / "page.html"
    page.write_text("<html><head><title>Peiper</title><style>p {color: red}</style></head><body>"
                    "<p>Intro text about <a href='x'>Allan</a> Peiper.</p><script>var hidden = 1;</script>"
                    "<h2>Birth</h2><p>He was born in Alexandra, Victoria.</p></body></html>")
    passages = parse(page, ChunkConfig()).passages
    assert [(p.title, p.text) for p in passages] == [
        ("Peiper", "Intro text about Allan Peiper."),
        ("Birth", "He was born in Alexandra, Victoria.")]


def test_a_page_without_a_heading_has_no_title_and_its_file_only_in_the_source(tmp_path):
    # The readers read "title: text"; a file name there is a word no page writes.
    page = tmp_path / "ansel.txt"
    page.write_text("Ansel Brightwater painted harbours for most of his life, and taught at the Varnholm academy for "
                    "thirty years. Brightwater was born on 12 March 1931 in Lembrook, a fishing town on the coast.")
    passages = parse(page, ChunkConfig()).passages
    assert [(p.title, p.source) for p in passages] == [("", f"doc:{page}")]


def birthplaces_read(tmp_path, data, pages: dict[str, str], claims: list[tuple[str, str]]) -> dict[str, dict]:
    """The shipped reader agent over a user's index of `pages` (file name: text), as `index` and `verify --index`
    run it on an N-Triples file of (person, birthplace) claims: each verdict's record by its object."""
    docs, cache = tmp_path / "docs", tmp_path / "cache"
    docs.mkdir()
    for name, text in pages.items():
        (docs / name).write_text(text)
    assert run_cli("index", str(docs), "--name", "mine", cache=cache, data=data.resolve()).returncode == 0
    graph, out = tmp_path / "graph.nt", tmp_path / "verdicts.jsonl"
    graph.write_text("".join(f"<http://example.org/{who}> <http://dbpedia.org/ontology/birthPlace> "
                             f"<http://example.org/{town}> .\n" for who, town in claims))
    result = run_cli("verify", str(graph), "-o", str(out), "--index", "mine", "--no-graph", cache=cache,
                     data=data.resolve())
    assert result.returncode == 0, result.stderr
    return {r["triple"]["object"]: r for r in map(json.loads, out.read_text().splitlines())}


def test_a_value_stated_on_a_users_own_page_contradicts_the_triple(tmp_path, data):
    """One untitled page: the value reader finds the birthplace the page states, which a file name in the passage's
    title kept it from finding."""
    records = birthplaces_read(tmp_path, data, {"ansel.txt": (
        "Ansel Brightwater painted harbours and fishing boats for most of his life. He taught at the Varnholm academy "
        "for thirty years, and his students remember his patience. Critics in Varnholm praised his late seascapes. "
        "Brightwater was born on 12 March 1931 in Lembrook, a fishing town on the northern coast.\n")},
        [("Ansel_Brightwater", "Dunholt"), ("Ansel_Brightwater", "Lembrook")])
    assert (records["Dunholt"]["outcome"], records["Dunholt"]["stated_instead"]) == ("contradicted", "Lembrook")
    assert records["Lembrook"]["outcome"] == "supported"


def test_a_death_written_before_the_name_and_an_infobox_say_which_end_of_a_life_a_place_is(tmp_path, data):
    """A genealogy card that writes the death's place before the person's name supports no birth there, and a wiki
    infobox's `birth_place` contradicts another birthplace."""
    records = birthplaces_read(tmp_path, data, {
        "card.txt": ("Potter of the northern coast\nBorn on 2 May 1911 in Tessaby, Elderland\n"
                     "Died on 5 April 1990 in Kelvercombe, Elderland\nShe kept a workshop by the harbour for forty "
                     "years.\nThis card records the family tree of Orla Penhallow (1911)\n"),
        "box.txt": ("{{Infobox person | name = Edwin Marsh | image = Edwin Marsh 1950.jpg | birth_place = [[Dunholt]] "
                    "| death_place = Marrowick | occupation = weaver }}\n")},
        [("Orla_Penhallow", "Kelvercombe"), ("Edwin_Marsh", "Lembrook")])
    assert records["Kelvercombe"]["outcome"] != "supported"
    assert (records["Lembrook"]["outcome"], records["Lembrook"]["stated_instead"]) == ("contradicted", "Dunholt")


def write_pdf(path, title, pages):
    fpdf = pytest.importorskip("fpdf", reason="fpdf2 (the dev extra) writes the test PDF")
    pdf = fpdf.FPDF()
    pdf.set_title(title)
    for text in pages:
        pdf.add_page()
        pdf.set_font("Helvetica", size=12)
        pdf.cell(text=text)
    pdf.output(str(path))


def test_pdf_pages_become_sections_cited_by_page(tmp_path):
    path = tmp_path / "bio.pdf"
    write_pdf(path, "Allan Peiper", ["Allan Peiper was born in Alexandra.", "He later lived in Belgium."])
    passages = parse(path, ChunkConfig()).passages
    assert [(p.title, p.text, p.source) for p in passages] == [
        ("Allan Peiper", "Allan Peiper was born in Alexandra.", f"doc:{path}#page=1"),
        ("Allan Peiper", "He later lived in Belgium.", f"doc:{path}#page=2")]
    # A title field the document does not write is its maker's, not a heading.
    made = tmp_path / "made.pdf"
    write_pdf(made, "Microsoft Word - bio.docx", ["Allan Peiper was born in Alexandra."])
    assert [p.title for p in parse(made, ChunkConfig()).passages] == [""]
    # A PDF's pages are one file to the index: changed, its pages are replaced, and a mark on it covers them all.
    update_index(tmp_path / "idx", [path], distrust=[path])
    write_pdf(path, "Allan Peiper", ["Allan Peiper was born in Alexandra.", "He lived in Belgium.", "He retired."])
    report = update_index(tmp_path / "idx", [path])
    assert report.passages == 3
    assert all(distrusted_of(report).covers(f"doc:{path.resolve()}#page={n}") for n in (1, 2, 3))


def test_passage_tables_keep_given_ids_and_skip_bad_rows_by_line(tmp_path):
    table = tmp_path / "passages.jsonl"
    table.write_text('{"id": "p1", "text": "Allan Peiper was born in Alexandra.", "title": "Peiper"}\n'
                     "{broken\n"
                     '{"text": "No id here, one is made."}\n'
                     '{"id": "p3", "text": ""}\n')
    parsed = parse(table, ChunkConfig())
    assert [p.id for p in parsed.passages][0] == "p1" and len(parsed.passages) == 2
    assert any("passages.jsonl:2" in w for w in parsed.warnings)
    assert any("passages.jsonl:4" in w and "text" in w for w in parsed.warnings)
    csv_table = tmp_path / "passages.csv"
    csv_table.write_text("id,title,text\nq1,Peiper,Allan Peiper was born in Alexandra.\n")
    assert [(p.id, p.title) for p in parse(csv_table).passages] == [("q1", "Peiper")]


def test_unreadable_documents_are_skipped_with_a_reason(tmp_path):
    empty, binary, broken = tmp_path / "empty.txt", tmp_path / "blob.txt", tmp_path / "broken.pdf"
    empty.write_text("  \n")
    binary.write_bytes(b"\x00\x01\x02" * 50)
    broken.write_bytes(b"%PDF-1.4 this is not really a pdf")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "skip.txt").write_text("Never read.")
    (tmp_path / "notes.docx").write_bytes(b"PK not supported")
    for path in (empty, binary, broken, tmp_path / "notes.docx"):
        with pytest.raises(DocumentError, match=path.name):
            parse(path)
    good = tmp_path / "good.txt"
    good.write_text("Allan Peiper was born in Alexandra.")
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("Pel\u00e9 was born in Tr\u00eas Cora\u00e7\u00f5es.".encode("latin-1"))
    report = update_index(tmp_path / "index", [tmp_path])
    assert sorted(report.parsed) == sorted(str(p.resolve()) for p in (good, latin1))
    assert sorted(reason.split(":")[0] for reason in report.skipped) == sorted(
        str(p.resolve()) for p in (binary, broken, empty))  # the .docx is not a document type: left out of folders
    assert any("binary" in reason for reason in report.skipped) and any("empty" in r for r in report.skipped)
    assert any("latin1.txt:1" in w and "not UTF-8" in w for w in report.warnings)


def test_adding_files_reads_only_new_or_changed_ones(tmp_path, monkeypatch):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Allan Peiper was born in Alexandra.")
    (docs / "b.md").write_text("# Team\n\nPeiper rode for Panasonic.")
    folder = tmp_path / "idx"
    first = update_index(folder, [docs])
    assert len(first.parsed) == 2 and first.passages == 2

    import agentkgv.retrieval.user_index as user_index

    seen = []
    real = user_index.parse_document
    monkeypatch.setattr(user_index, "parse_document", lambda path, data, config: seen.append(path.name) or
                        real(path, data, config))
    (docs / "c.html").write_text("<p>Peiper later managed a team.</p>")
    second = update_index(folder, [docs])
    assert seen == ["c.html"] and second.passages == 3 and len(second.unchanged) == 2
    (docs / "a.txt").write_text("Allan Peiper was born in Alexandra, Victoria.")
    third = update_index(folder, [docs])
    assert seen == ["c.html", "a.txt"] and third.passages == 3
    assert len({first.manifest.fingerprint, second.manifest.fingerprint, third.manifest.fingerprint}) == 3
    builds = []
    monkeypatch.setattr(user_index, "build_retriever", lambda *args: builds.append(args))
    fourth = update_index(folder, [docs / "a.txt", docs / "b.md"])  # nothing new: nothing read or rebuilt
    assert seen == ["c.html", "a.txt"] and builds == [] and fourth.passages == 3
    hits = open_index(Workspace(cache=tmp_path / "cache"), str(folder)).retriever.search(["Peiper Victoria"], 1)
    assert "Victoria" in hits[0][0].passage.text


def test_resume_is_refused_after_the_index_changed(tmp_path, data):
    docs, cache = tmp_path / "docs", tmp_path / "cache"
    docs.mkdir()
    (docs / "peiper.txt").write_text("Allan Peiper was born in Alexandra, Victoria, Australia.")
    built = run_cli("index", str(docs), "--name", "mine", cache=cache, data=data.resolve())
    assert built.returncode == 0, built.stderr
    graph, out = tmp_path / "graph.csv", tmp_path / "verdicts.jsonl"
    graph.write_text("subject,predicate,object\nAllan Peiper,place of birth,Alexandra\n")
    first = run_cli("verify", str(graph), "-o", str(out), "--method", "lexical", "--index", "mine",
                    cache=cache, data=data.resolve())
    assert first.returncode == 0, first.stderr
    record = json.loads(out.read_text())
    assert record["verdict"] is True and "Peiper" in record["evidence"][0]["text"]
    pinned = json.loads((tmp_path / "verdicts.jsonl.settings.json").read_text())
    assert pinned["pins"]["index"]["name"] == "mine" and len(pinned["pins"]["index"]["fingerprint"]) == 16

    (docs / "more.txt").write_text("Peiper later managed a cycling team in Belgium.")
    assert run_cli("index", str(docs), "--name", "mine", cache=cache, data=data.resolve()).returncode == 0
    graph.write_text(graph.read_text() + "Allan Peiper,place of death,Belgium\n")
    again = run_cli("verify", str(graph), "-o", str(out), "--method", "lexical", "--index", "mine",
                    cache=cache, data=data.resolve())
    assert again.returncode == 2 and "pins.index.fingerprint" in again.stderr and "Traceback" not in again.stderr
    assert len(out.read_text().splitlines()) == 1  # nothing lost, nothing mixed in


def test_hybrid_index_over_documents_keeps_its_kind_when_added_to(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Allan Peiper was born in Alexandra, Victoria.")
    (docs / "b.txt").write_text("The Eiffel Tower stands in Paris.")
    folder = tmp_path / "idx"
    assert update_index(folder, [docs], kind="hybrid").manifest.kind == "hybrid"
    (docs / "c.txt").write_text("Peiper managed a cycling team in Belgium.")
    again = update_index(folder, [docs])  # no --retriever: the index keeps the kind it was built with
    assert again.manifest.kind == "hybrid" and again.passages == 3
    opened = open_index(Workspace(cache=tmp_path / "cache"), str(folder))
    assert opened.retriever.search(["where was Peiper born"], 1)[0][0].passage.text.startswith("Allan Peiper")


def test_a_distrusted_folder_alone_decides_nothing(tmp_path, data):
    """The shipped reader agent over an index whose only supporting passage sits in a distrusted folder:
    the triple goes to review instead of being accepted; trusted again, the same passage makes it true."""
    docs, cache = tmp_path / "docs", tmp_path / "cache"
    (docs / "blog").mkdir(parents=True)
    (docs / "blog" / "post.txt").write_text("Allan Peiper was born in Alexandra, Victoria, Australia.")
    (docs / "notes.txt").write_text("The Eiffel Tower stands in Paris.")
    assert run_cli("index", str(docs), "--name", "mine", cache=cache, data=data.resolve()).returncode == 0
    marked = run_cli("index", "--name", "mine", "--distrust", str(docs / "blog"), cache=cache, data=data.resolve())
    assert marked.returncode == 0, marked.stderr
    assert load_manifest(cache / "indexes" / "mine").distrusted == [str((docs / "blog").resolve())]
    graph = tmp_path / "graph.csv"
    graph.write_text("subject,predicate,object\nAllan Peiper,place of birth,Alexandra\n")
    for name, expected in (("doubted", None), ("trusted", True)):
        if name == "trusted":
            assert run_cli("index", "--name", "mine", "--trust", str(docs / "blog"), cache=cache,
                           data=data.resolve()).returncode == 0
        out = tmp_path / f"{name}.jsonl"
        result = run_cli("verify", str(graph), "-o", str(out), "--index", "mine", cache=cache, data=data.resolve())
        assert result.returncode == 0, result.stderr
        record = json.loads(out.read_text())
        assert record["verdict"] is expected and record["undecided"] is (expected is None)
        assert record["evidence"][0]["source"].endswith("blog/post.txt")


def distrusted_of(report) -> "DistrustedSource":
    from agentkgv.retrieval.guard import DistrustedSource

    return DistrustedSource(report.manifest.retriever_config().distrust)


def test_a_link_in_a_distrusted_folder_keeps_its_text_distrusted(tmp_path):
    docs, outside = tmp_path / "docs", tmp_path / "elsewhere"
    (docs / "blog").mkdir(parents=True)
    outside.mkdir()
    (outside / "claim.txt").write_text("Ilse Brandt was born in Madrid.")
    (docs / "blog" / "claim.txt").symlink_to(outside / "claim.txt")
    (docs / "notes.txt").write_text("The Eiffel Tower stands in Paris.")
    report = update_index(tmp_path / "idx", [docs], distrust=[docs / "blog"])
    guard = distrusted_of(report)
    assert guard.covers("doc:" + str((outside / "claim.txt").resolve()))
    assert not guard.covers("doc:" + str((docs / "notes.txt").resolve()))
    # Trusted again, the folder's link is trusted with it.
    assert not distrusted_of(update_index(tmp_path / "idx", trust=[docs / "blog"])).covers(
        "doc:" + str((outside / "claim.txt").resolve()))


def test_passages_that_share_an_id_are_all_kept(tmp_path):
    docs = tmp_path / "docs"
    (docs / "untrusted").mkdir(parents=True)
    (docs / "facts.csv").write_text("id,text\n1,Allan Peiper was born in Alexandra.\n")
    (docs / "untrusted" / "rumours.csv").write_text("id,text\n1,Allan Peiper was born in Paris.\n")
    report = update_index(tmp_path / "idx", [docs], distrust=[docs / "untrusted"])
    assert report.passages == 2 and any("shared an id" in warning for warning in report.warnings)
    index = open_index(Workspace(cache=tmp_path / "cache"), str(tmp_path / "idx"))
    texts = {hit.passage.text for hit in index.retriever.search(["Allan Peiper born"], 5)[0]}
    assert texts == {"Allan Peiper was born in Alexandra.", "Allan Peiper was born in Paris."}


def test_an_index_inside_the_documents_is_never_read_as_documents(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Allan Peiper was born in Alexandra.")
    ws = Workspace(cache=docs / "cache")
    folder = ws.indexes / "mine"
    first = update_index(folder, [docs])
    second = update_index(folder, [docs])  # the index now lies inside docs/
    assert first.passages == second.passages == 1
    assert all("cache" not in key for key in second.manifest.files)


def test_the_judges_read_a_user_documents_passage_with_its_file_name_and_the_value_reader_without():
    from agentkgv.data.records import Passage
    from agentkgv.reader_agent.reader import judged_title

    def passage(title, source):
        return Passage("p", "Ansel Brightwater was born in Lembrook.", title, source)

    assert judged_title(passage("Ansel Brightwater", "doc:/docs/ansel.txt")) == "Ansel Brightwater (ansel.txt)"
    assert judged_title(passage("", "doc:/docs/bio.pdf#page=2")) == "bio.pdf"
    assert judged_title(passage("Ansel Brightwater (ansel.txt)", "doc:/docs/ansel.txt")) == "Ansel Brightwater (ansel.txt)"
    assert judged_title(passage("Ansel Brightwater", "factbench:correct_birth_00001")) == "Ansel Brightwater"
