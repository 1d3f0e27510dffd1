"""Loaders read the real data into sensible records, and bad input fails with file, line and field."""

from __future__ import annotations

import json
from itertools import islice
from pathlib import Path

import pytest

from agentkgv.data.errors import DataError
from agentkgv.data.factbench import chunk_text, iter_factbench, iter_factbench_passages
from agentkgv.data.fewrel import detokenize, iter_fewrel
from agentkgv.data.lama import MASK, iter_evidence_facts, relations_with_evidence, restore_sentence
from agentkgv.data.predicates import load_predicates, shippable, shipped_predicates, template_phrase
from agentkgv.data.redocred import iter_redocred_documents
from agentkgv.data.tekgen import iter_tekgen_facts, iter_tekgen_sentences, repair_mojibake
from agentkgv.data.trex_json import iter_trex_documents, split_sentences
from agentkgv.data.rdf_graphs import predicate_words
from agentkgv.data.user_formats import SUPPORTED_FORMATS, read_triples
from agentkgv.paths import data_dir

DATA = data_dir()


@pytest.fixture(scope="module")
def predicates(data):
    return load_predicates(data)


# --- predicates and LAMA (existing loaders) ---------------------------------------------------------


def test_predicate_p19_has_label_aliases_and_paraphrases(predicates):
    p19 = predicates["P19"]
    assert p19.label == "place of birth"
    assert "birthplace" in p19.aliases
    assert "was born in" in p19.paraphrases()
    assert p19.label not in p19.paraphrases()


def test_a_predicate_named_in_words_or_by_an_id_of_its_own_finds_its_paraphrase(predicates):
    from agentkgv.core.combinations import compose_query, paraphrases_of
    from agentkgv.data.predicates import paraphrase_table
    from agentkgv.data.records import Triple

    table = paraphrase_table(predicates)
    # The words a passage states the relation with come first: a search for "X birthplace" finds few statements.
    assert paraphrases_of(table, Triple("Ada Vell", "place of birth", "Lembrook", predicate_id="P19"))[0] == "was born in"
    # FactBench's and DBpedia's names: an id of their own, and the predicate in words, an alias of P19's.
    dbpedia = Triple("Ada Vell", "birth place", "Lembrook", predicate_id="birthPlace")
    assert paraphrases_of(table, dbpedia) == paraphrases_of(table, Triple("Ada Vell", "place of birth", "Lembrook"))
    assert compose_query(dbpedia, "s,p'", paraphrases_of(table, dbpedia)[0]) == "Ada Vell was born in"
    assert paraphrases_of(table, Triple("Ada Vell", "favourite colour", "green", predicate_id="favColour")) == []


def test_a_predicate_written_as_a_compound_noun_finds_the_relation_named_n_of_m(predicates):
    from agentkgv.data.predicates import by_predicate, paraphrase_table
    from agentkgv.data.records import Triple

    # DBpedia's `foundationPlace` is Wikidata's "place of foundation" (an alias of P740, "location of formation").
    founded = Triple("Osterlund Holdings", "foundation place", "Rotterdam", predicate_id="foundationPlace")
    assert founded.predicate_keys == ("foundationPlace", "foundation place", "place of foundation")
    assert by_predicate(paraphrase_table(predicates), founded, []) == by_predicate(
        paraphrase_table(predicates), Triple("Osterlund Holdings", "location of formation", "Rotterdam"), None)
    # The words as written come first, and a compound of "member" or of one word is read as written only.
    assert Triple("a", "birth place", "b").predicate_keys == ("birth place", "place of birth")
    assert Triple("a", "team member", "b").predicate_keys == ("team member",)
    assert Triple("a", "spouse", "b").predicate_keys == ("spouse",)


def test_a_statement_that_leads_with_the_object_gives_words_from_the_subjects_end_or_none():
    from agentkgv.data.predicates import PredicateInfo, subject_phrase

    assert subject_phrase("[X] was born in [Y] .") == "was born in"
    assert subject_phrase("[Y] is [X]'s native language.") == "native language"
    assert subject_phrase("[X]'s capital is [Y].") == "capital is"
    assert subject_phrase("[Y] is [X]’s mother tongue.") == "mother tongue"
    # Read from the object's end: the capital's country, the owner, the twin town.
    assert subject_phrase("[Y] is the capital of [X].") is None
    assert subject_phrase("[Y] owns [X] .") is None
    assert subject_phrase("[Y] and [X] are twin cities.") is None
    tongue = PredicateInfo("P103", "native language", aliases=("first language",),
                           templates=("The native language of [X] is [Y] .", "[Y] is [X]'s mother tongue.",
                                      "[Y] is [X]'s native language."))
    # No slots' words run together ("is 's mother tongue"), and the label is no paraphrase of itself.
    assert tongue.paraphrases(statements_first=True) == ["mother tongue", "first language"]
    capital = PredicateInfo("P36", "capital", templates=("The capital of [X] is [Y] .", "[Y] is the capital of [X]."))
    assert capital.paraphrases(statements_first=True) == []


def test_the_shipped_predicate_table_is_the_data_folders_without_x_factr(data, tmp_path):
    shipped = shipped_predicates()
    assert shipped == shippable(data)  # `agentkgv build-predicates` rewrites it
    assert "was born in" in shipped["P19"].paraphrases() and shipped["P19"].cardinality == ""
    # Without a data folder, a run of a user's graph reads the shipped table; a benchmark or training run refuses.
    assert load_predicates(tmp_path / "no-data", shipped_if_missing=True) == shipped
    with pytest.raises(DataError, match="no predicate metadata"):
        load_predicates(tmp_path / "no-data")


def test_template_phrase():
    assert template_phrase("[X] was born in [Y] .") == "was born in"
    assert template_phrase("[Y] is the birthplace of [X].") == "is the birthplace of"


def test_restore_sentence():
    assert restore_sentence(f"Peiper (born 1960 in {MASK}, Australia)", "Alexandra, Victoria") == (
        "Peiper (born 1960 in Alexandra, Victoria, Australia)"
    )


def test_lama_evidence_facts_are_restored(predicates):
    assert len(relations_with_evidence(DATA)) == 24
    facts = list(iter_evidence_facts(DATA, "P19", predicates["P19"].label))
    assert len(facts) > 900
    assert all(fact.evidences for fact in facts)
    assert not any(MASK in sentence for fact in facts for sentence in fact.evidences)
    first = facts[0]
    assert first.triple.predicate == "place of birth" and first.triple.predicate_id == "P19"
    assert first.triple.subject == "Allan Peiper" and first.triple.object_id.startswith("Q")
    assert "Alexandra, Victoria" in first.evidences[0]


# --- T-REx JSON (REBEL sample and the T-REx format sample) ------------------------------------------


def test_rebel_documents():
    documents = list(iter_trex_documents(DATA / "rebel" / "sample.jsonl", "rebel"))
    facts = [fact for document in documents for fact in document.facts]
    assert len(documents) == 1000 and len(facts) == 2868
    assert len({fact.triple.predicate_id for fact in facts}) == 186
    # Every evidence sentence is one of the document's sentences and states the object.
    for document in documents:
        for fact in document.facts:
            assert fact.evidences[0] in document.sentences
            assert fact.triple.object in fact.evidences[0]
    journal = documents[0]
    assert journal.title == "Transportation Journal" and journal.source == "rebel"
    fact = journal.facts[0]
    assert (fact.triple.subject, fact.triple.predicate, fact.triple.object) == (
        "Transportation Journal",
        "publisher",
        "Penn State University Press",
    )
    assert fact.triple.predicate_id == "P123" and fact.triple.subject_id == "Q7835172"
    assert fact.evidences == (journal.sentences[1],)


def test_trex_format_sample_uses_sentence_boundaries_and_label_fallback():
    labels = {"P37": "official language"}
    documents = list(iter_trex_documents(DATA / "trex_format" / "sample-output.json", "trex", labels))
    assert [len(document.facts) for document in documents] == [89, 23]
    andorra = documents[0]
    assert andorra.title == "Andorra" and len(andorra.sentences) == 13
    first = andorra.facts[0].triple
    assert (first.subject, first.predicate, first.object) == ("Andorra", "official language", "Catalan")
    assert (first.predicate_id, first.subject_id, first.object_id) == ("P37", "Q228", "Q7026")
    assert andorra.facts[0].evidences == (andorra.sentences[0],)


def test_split_sentences_keeps_abbreviations_and_initials():
    text = 'David M. Louie was born in St. Louis. He moved in 1990.\n\n"Next" paragraph.'
    assert split_sentences(text) == [
        "David M. Louie was born in St. Louis.",
        "He moved in 1990.",
        '"Next" paragraph.',
    ]


# --- TekGen ------------------------------------------------------------------------------------------

_TEKGEN_ONTOLOGIES = "movie music sport book military computer space politics nature culture".split()


def test_tekgen_sentences_and_facts():
    passages = list(iter_tekgen_sentences(DATA))
    assert len(passages) == len({p.id for p in passages}) == 12134
    ontologies = {f"tekgen:ont_{n}_{name}" for n, name in enumerate(_TEKGEN_ONTOLOGIES, 1)}
    assert {p.source for p in passages} == ontologies
    facts = list(iter_tekgen_facts(DATA))
    assert len(facts) == 5335 + 3993 + 7232
    assert all(fact.triple.predicate_id and fact.evidences for fact in facts)
    first = facts[0]
    assert first.triple.predicate == "ethnic group" and first.triple.predicate_id == "P172"
    texts = {p.text for p in passages}
    assert any("Byūtifuru Dorīmā" in text for text in texts)  # mojibake repaired
    assert all(fact.evidences[0] in texts for fact in facts)


def test_repair_mojibake_leaves_good_text_alone():
    assert repair_mojibake("ByÅ«tifuru MadrileÃ±a â\x80\x9cquoted") == "Byūtifuru Madrileña “quoted"
    assert repair_mojibake("café Ñandú ±5 µm Mediaș") == "café Ñandú ±5 µm Mediaș"


# --- FewRel ------------------------------------------------------------------------------------------


def test_fewrel(predicates):
    labels = {pid: info.label for pid, info in predicates.items()}
    facts = list(iter_fewrel(DATA, labels))
    assert len(facts) == 16 * 700
    first = facts[0]
    assert first.triple.predicate_id == "P177" and first.triple.predicate == predicates["P177"].label
    assert (first.triple.subject, first.triple.subject_id) == ("Cape Girardeau Bridge", "Q5034838")
    assert (first.triple.object, first.triple.object_id) == ("Mississippi River", "Q1497")
    assert first.evidences[0].startswith("In June 1987, the Missouri Highway")
    assert "new four-lane Mississippi River bridge" in first.evidences[0]
    assert first.evidences[0].endswith("Cape Girardeau Bridge.")


def test_detokenize():
    tokens = 'Smith ( born 1950 ) , " Epistles " , the players \' union \'s'.split()
    assert detokenize(tokens) == 'Smith (born 1950), "Epistles", the players\' union\'s'
    assert detokenize(["four", "-", "lane", "\xa0", "1987", "–", "1990", "."]) == "four-lane 1987–1990."


# --- Re-DocRED ---------------------------------------------------------------------------------------


def test_redocred(predicates):
    labels = {pid: info.label for pid, info in predicates.items()}
    documents = list(iter_redocred_documents(DATA, labels))
    assert len(documents) == 1000
    assert sum(len(document.facts) for document in documents) == 17284 + 17448
    first = documents[0]
    assert first.id == "dev:0" and first.title == "Willi Schneider (skeleton racer)"
    assert first.sentences[0].startswith('Wilfried "Willi" Schneider (born 13 March 1963 in Mediaș,')
    assert first.text.startswith(first.sentences[0])
    located = next(f for f in first.facts if f.triple.predicate_id == "P276")
    assert (located.triple.subject, located.triple.predicate, located.triple.object) == (
        "2002 Winter Olympics",
        "location",
        "Salt Lake City",
    )
    assert located.evidences and "Salt Lake City" in located.evidences[0]
    assert all(e in d.sentences for d in documents for f in d.facts for e in f.evidences)


# --- FactBench ---------------------------------------------------------------------------------------


def test_factbench_facts():
    facts = {fact.id: fact for fact in iter_factbench(DATA)}
    assert len(facts) == 12060
    assert sum(fact.label for fact in facts.values()) == 1500
    wilder = facts["correct_death_00144"]
    assert wilder.label is True and wilder.source == "factbench"
    assert (wilder.triple.subject, wilder.triple.predicate, wilder.triple.object) == (
        "Billy Wilder",
        "death place",
        "Beverly Hills, California",
    )
    assert wilder.triple.predicate_id == "deathPlace"
    assert facts["wrong_range_death_00000"].label is False


def test_factbench_passages():
    passages = list(islice(iter_factbench_passages(DATA, words_per_passage=120), 400))
    assert len(passages) == 400
    assert passages[0].source == "factbench:correct_award_00000"
    # A page's short first line is its title; a long one is a paragraph, and the page is titled by its file name.
    assert all(p.text.strip() and p.title for p in passages)
    assert any(p.title.endswith(".txt") for p in passages) and not all(p.title.endswith(".txt") for p in passages)
    assert all(len(p.text.split()) <= 150 for p in passages)  # a small last chunk may join the one before
    assert len({(p.source, p.id) for p in passages}) == len(passages)


def test_chunk_text_respects_sentences_and_paragraphs():
    text = "Title\n\nOne two three. Four five six seven. Eight nine.\nTen eleven twelve thirteen fourteen.\nx"
    assert chunk_text(text, 6) == [
        "Title\nOne two three.",
        "Four five six seven. Eight nine.",
        "Ten eleven twelve thirteen fourteen.\nx",
    ]
    assert chunk_text("a " * 25, 10) == ["a " * 9 + "a", "a " * 9 + "a", "a a a a a"]


# --- user formats ------------------------------------------------------------------------------------


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_read_jsonl_triples(tmp_path):
    path = _write(
        tmp_path,
        "mine.jsonl",
        '{"s": "Billy Wilder", "p": "death place", "o": "Beverly Hills", "label": "true"}\n'
        "\n"
        '{"id": "x", "subject": "A", "predicate": "b", "object": "C", "label": 0, "predicate_id": "P20"}\n'
        '{"subject": "A", "predicate": "b", "object": "C"}\n',
    )
    triples = list(read_triples(path))
    assert [t.id for t in triples] == ["mine:1", "x", "mine:4"]
    assert [t.label for t in triples] == [True, False, None]
    assert triples[0].triple.object == "Beverly Hills" and triples[1].triple.predicate_id == "P20"


def test_benchmark_and_verdict_records_are_triples_files_too(tmp_path):
    """A benchmark split's record and a verdict line nest the triple; the verdict's gold is the label."""
    triple = {"subject": "Billy Wilder", "predicate": "place of death", "object": "Beverly Hills",
              "predicate_id": "P20", "object_aliases": ["Beverly Hills, California"], "rdf": None}
    path = _write(tmp_path, "mixed.jsonl", json.dumps({"id": "b1", "triple": triple, "label": False, "split": "test"})
                  + "\n" + json.dumps({"id": "v1", "triple": triple, "verdict": True, "gold": True}) + "\n")
    first, second = read_triples(path)
    assert (first.id, first.label, second.id, second.label) == ("b1", False, "v1", True)
    assert first.triple.predicate_id == "P20" and first.triple.object_aliases == ("Beverly Hills, California",)


@pytest.mark.parametrize(
    "name, text", [("g.csv", "subject,predicate,object,label\n"), ("g.tsv", "s\tp\to\tlabel\n")]
)
def test_read_table_triples(tmp_path, name, text):
    separator = "," if name.endswith("csv") else "\t"
    rows = [["Paris", "capital of", "France", "1"], ["Lyon", "capital of", "France", "false"]]
    if separator == ",":
        rows[0][0] = '"Paris, Texas"'
    path = _write(tmp_path, name, text + "".join(separator.join(row) + "\n" for row in rows))
    triples = list(read_triples(path))
    assert [t.id for t in triples] == ["g:2", "g:3"]
    assert [t.label for t in triples] == [True, False]
    assert triples[0].triple.subject in ("Paris", "Paris, Texas")


def test_read_turtle_uses_labels_and_local_names(tmp_path):
    path = _write(
        tmp_path,
        "kg.ttl",
        "@prefix dbr: <http://dbpedia.org/resource/> .\n"
        "@prefix dbo: <http://dbpedia.org/ontology/> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        "dbr:Billy_Wilder dbo:deathPlace <http://dbpedia.org/resource/Beverly_Hills,_California> ;\n"
        '    dbo:birthDate "1906-06-22" .\n'
        'dbr:Billy_Wilder rdfs:label "Billy Wilder (de)"@de, "Mr. Wilder"@en .\n',
    )
    read = list(read_triples(path))
    triples = {t.triple.predicate: t for t in read if t.triple.predicate != "label"}
    assert set(triples) == {"death place", "birth date"}
    death = triples["death place"].triple
    assert (death.subject, death.object) == ("Mr. Wilder", "Beverly Hills, California")
    assert death.predicate_id == "http://dbpedia.org/ontology/deathPlace"
    birth = triples["birth date"].triple
    assert birth.object == "1906-06-22" and birth.object_id is None
    assert all(t.id.startswith("kg:") and t.label is None for t in triples.values())
    # The labels in English or untagged come last, each its own claim, its subject named by the IRI and the labels
    # it does not give; a label in another language is no claim.
    labels = [t.triple for t in read[2:]]
    assert [(t.subject, t.object, t.subject_aliases) for t in labels] == [("Billy Wilder", "Mr. Wilder", ())]
    assert [t.id for t in read] == [f"kg:{n}" for n in range(1, 4)]


def test_a_label_is_checked_by_the_names_it_does_not_give(tmp_path):
    from agentkgv.reader_agent.claims import Claim, Kind

    path = _write(tmp_path, "ids.ttl", "@prefix wd: <http://www.wikidata.org/entity/> .\n"
                                       "@prefix ex: <http://example.org/> .\n"
                                       "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
                                       'wd:Q42 rdfs:label "Douglas Adams"@en .\n'
                                       'ex:Unit_454 rdfs:label "60px" .\n'
                                       'ex:Ada_Lovelace rdfs:label "Ada Lovelace" .\n'
                                       'ex:Ada_Lovelace rdfs:comment "A mathematician." .\n')
    claims = {t.triple.object: Claim.of(t.triple) for t in read_triples(path)}
    assert "A mathematician." not in claims  # a comment documents the graph; it is no claim
    assert claims["Douglas Adams"].kind is Kind.NOT_CHECKABLE  # an id names nothing a label could be held against
    assert claims["60px"].kind is Kind.LABEL and not claims["60px"].named_by_subject()
    assert claims["Ada Lovelace"].kind is Kind.LABEL and claims["Ada Lovelace"].named_by_subject()


def test_a_term_with_several_labels_is_named_by_one_on_every_read_and_known_by_the_rest(tmp_path):
    path = _write(tmp_path, "ada.ttl", "@prefix ex: <http://example.org/> .\n"
                                       "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
                                       'ex:Ada rdfs:label "Countess of Lovelace"@en, "Ada Lovelace"@en, "Ada"@it .\n'
                                       "ex:Ada ex:birthPlace ex:London .\n")
    for _ in range(3):  # a set's order could differ between reads; the name may not
        claim = next(t.triple for t in read_triples(path))  # the claims lead, the labels follow
        assert claim.subject == "Ada Lovelace" and claim.subject_aliases == ("Countess of Lovelace",)


def test_read_ntriples_with_wikidata_ids(tmp_path):
    path = _write(
        tmp_path,
        "wd.nt",
        "<http://www.wikidata.org/entity/Q1> <http://www.wikidata.org/prop/direct/P19> "
        "<http://www.wikidata.org/entity/Q2> .\n",
    )
    triple = next(read_triples(path)).triple
    assert (triple.predicate_id, triple.subject_id, triple.object_id) == ("P19", "Q1", "Q2")


def test_user_aliases_from_jsonl_csv_and_skos_alt_labels(tmp_path):
    jsonl = _write(tmp_path, "a.jsonl", '{"s": "Paul Fischer", "p": "citizenship", "o": "Denmark", '
                                        '"object_aliases": ["Danish", " "], "subject_aliases": "P. G. Fischer"}\n')
    triple = next(read_triples(jsonl)).triple
    assert triple.object_aliases == ("Danish",) and triple.subject_aliases == ("P. G. Fischer",)
    assert triple.object_names == ("Denmark", "Danish")
    table = _write(tmp_path, "a.csv", "s,p,o,object_aliases\nKim Sun-a,occupation,actor,actress|film actress\n")
    assert next(read_triples(table)).triple.object_aliases == ("actress", "film actress")
    ttl = _write(tmp_path, "a.ttl",
                 "@prefix ex: <http://ex.org/> .\n@prefix skos: <http://www.w3.org/2004/02/skos/core#> .\n"
                 'ex:Fischer ex:citizenship ex:Denmark .\nex:Denmark skos:altLabel "Danish", "DK" .\n')
    claim, *alt_labels = list(read_triples(ttl))
    assert claim.triple.object == "Denmark" and set(claim.triple.object_aliases) == {"Danish", "DK"}
    assert [(t.triple.subject, t.triple.predicate, t.triple.object) for t in alt_labels] == [
        ("Denmark", "alt label", "DK"), ("Denmark", "alt label", "Danish")]
    bad = _write(tmp_path, "bad.jsonl", '{"s": "a", "p": "b", "o": "c", "object_aliases": [1]}\n')
    with pytest.raises(DataError, match=r"bad\.jsonl:1: field 'object_aliases'"):
        list(read_triples(bad))


def test_predicate_words():
    assert predicate_words("birthPlace") == "birth place"
    assert predicate_words("date_of_birth") == "date of birth"
    assert predicate_words("hasURL") == "has URL"
    assert predicate_words("P19") == "P19"
    assert set(SUPPORTED_FORMATS) == {"jsonl", "csv", "tsv", "nt", "ttl", "nq", "trig"}


# --- bad input ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name,content,message", [
    ("broken.jsonl", '{"s": "a", "p": "b", "o": "c"}\n{"s": "a", "p": \n', r"broken\.jsonl:2: not valid JSON"),
    ("short.jsonl", '{"s": "a", "p": "b", "o": "c"}\n{"s": "a", "p": "b"}\n',
     r"short\.jsonl:2: field 'object': missing or empty"),
    ("labels.jsonl", '{"s": "a", "p": "b", "o": "c", "label": "maybe"}\n', r"labels\.jsonl:1: field 'label'"),
    ("cols.csv", "subject,predicate\nA,b\n", r"cols\.csv:1: field 'object': header has no 'object' or 'o' column"),
    ("cells.csv", "s,p,o\nA,b,C\nA,,C\n", r"cells\.csv:3: field 'predicate'"),
])
def test_bad_user_file_names_file_line_and_field(tmp_path, name, content, message):
    with pytest.raises(DataError, match=message):
        list(read_triples(_write(tmp_path, name, content)))


def test_malformed_ntriples_names_line(tmp_path):
    path = _write(
        tmp_path,
        "bad.nt",
        "<http://ex.org/a> <http://ex.org/p> <http://ex.org/b> .\n"
        "<http://ex.org/a> <http://ex.org/p> <http://ex.org/c .\n",
    )
    with pytest.raises(DataError, match=r"bad\.nt:2: not valid nt"):
        list(read_triples(path))


def test_malformed_turtle_names_line(tmp_path):
    path = _write(tmp_path, "bad.ttl", "@prefix ex: <http://ex.org/> .\nex:a ex:p ex:b .\nex:a ex:p\n")
    with pytest.raises(DataError, match=r"bad\.ttl:\d+: not valid turtle"):
        list(read_triples(path))


def test_unknown_format(tmp_path):
    with pytest.raises(DataError, match="supported: jsonl, csv, tsv, nt, ttl, nq, trig"):
        read_triples(_write(tmp_path, "g.xml", "<x/>"))


def test_trex_bad_inputs_name_line_and_field(tmp_path):
    doc = {"docid": "1", "title": "T", "text": "A is in B.", "triples": []}
    path = _write(tmp_path, "docs.jsonl", json.dumps(doc) + "\n{broken\n")
    with pytest.raises(DataError, match=r"docs\.jsonl:2: not valid JSON"):
        list(iter_trex_documents(path, "test"))
    doc["triples"] = [{"subject": {"surfaceform": "A"}, "predicate": {"uri": "P1"}, "object": {"uri": "Q2"}}]
    path = _write(tmp_path, "docs.json", json.dumps([doc]))
    with pytest.raises(DataError, match=r"docs\.json: field '\[0\]\.triples\[0\]\.object\.surfaceform'"):
        list(iter_trex_documents(path, "test"))


def test_dataset_loaders_name_file_and_field(tmp_path):
    (tmp_path / "fewrel").mkdir()
    record = {"tokens": ["a"], "h": ["a", "Q1", [[0]]]}
    _write(tmp_path / "fewrel", "val_wiki.json", json.dumps({"P1": [record]}))
    with pytest.raises(DataError, match=r"val_wiki\.json: field 'P1\[0\]\.t'"):
        list(iter_fewrel(tmp_path))

    (tmp_path / "redocred").mkdir()
    labels = [{"r": "P1", "h": 0, "t": 3}]
    document = {"title": "t", "sents": [["A", "."]], "vertexSet": [[{"name": "A"}]], "labels": labels}
    _write(tmp_path / "redocred", "dev_revised.json", json.dumps([document]))
    with pytest.raises(DataError, match=r"dev_revised\.json: field '\[0\]\.labels\[0\]\.t'"):
        list(iter_redocred_documents(tmp_path))

    (tmp_path / "factbench").mkdir()
    _write(tmp_path / "factbench", "kg.json", json.dumps({"f1": [["A", "p", "B"], []]}))
    _write(tmp_path / "factbench", "gt.json", json.dumps({}))
    with pytest.raises(DataError, match=r"gt\.json: field 'f1': expected 1 or 0"):
        list(iter_factbench(tmp_path))

    for split in ("train", "ground_truth"):
        (tmp_path / "tekgen" / split).mkdir(parents=True)
    ground_truth = tmp_path / "tekgen" / "ground_truth"
    _write(ground_truth, "ont_1_movie_ground_truth.jsonl", '{"sent": "s", "triples": [{"sub": "a"}]}\n')
    with pytest.raises(DataError, match=r"ont_1_movie_ground_truth\.jsonl:1: field 'triples\[0\]\.rel'"):
        list(iter_tekgen_facts(tmp_path))


def test_blank_nodes_get_the_same_names_on_every_parse(tmp_path):
    path = _write(tmp_path, "b.ttl", "@prefix ex: <http://ex.org/> .\n"
                                     "ex:a ex:address [ ex:city ex:Lyon ; ex:street \"Rue 1\" ] .\n"
                                     "ex:b ex:address [ ex:city ex:Nice ] .\n")
    first, second = (sorted((t.id, t.triple.rdf) for t in read_triples(path)) for _ in range(2))
    assert first == second and any("_:b" in str(rdf) for _, rdf in first)


def test_a_long_literal_is_read_whole(tmp_path):
    text = "x" * 2_000_000
    path = _write(tmp_path, "long.nt", f'<http://ex.org/a> <http://ex.org/note> "{text}" .\n')
    [item] = list(read_triples(path))
    assert item.triple.object == text


def test_quad_files_are_read_as_one_graph(tmp_path):
    quads = _write(tmp_path, "g.nq", '<http://ex.org/a> <http://ex.org/p> "x" <http://ex.org/g1> .\n'
                                     '<http://ex.org/a> <http://ex.org/q> "y" .\n')
    trig = _write(tmp_path, "g.trig", '<http://ex.org/g1> { <http://ex.org/a> <http://ex.org/p> "x" . }\n')
    assert sorted(t.triple.object for t in read_triples(quads)) == ["x", "y"]
    assert [t.triple.object for t in read_triples(trig)] == ["x"]
