"""The review loop: the reviewed queue read back, the calibration learned from it, and its k-fold measure."""

from __future__ import annotations

import csv
import json
import random
from dataclasses import replace

import pytest
from typer.testing import CliRunner

from agentkgv.core.verdict import Verdict
from agentkgv.reader_agent.calibration import Calibration, Evidence
from agentkgv.reader_agent.reader_folder import ReaderFolder, shipped_reader_dir
from agentkgv.reader_agent.trace import ReadingTrace, by_rare_reader
from agentkgv.commands.app import app
from agentkgv.data.errors import DataError
from agentkgv.data.records import Triple
from agentkgv.eval.html_report import REVIEW_COLUMNS
from agentkgv.eval.review import read_reviews
from agentkgv.train.learn import learn_calibration, review_loop
from tests.cli_cases import run_cli

# The logged verdicts' calibration: true from support 0 up. The "user's domain" below is true only from
# support 2 up, so a calibration learned from reviews there should move its threshold.
LOGGED = Calibration(weights=(1.0, 0.0, 0.0), intercept=0.0, true_at=0.5, false_at=0.2)


def _verdicts(count: int, seed: int = 0) -> list[Verdict]:
    rng = random.Random(seed)
    out = []
    for i in range(count):
        support = rng.uniform(-4, 6)
        gold = support + rng.gauss(0, 0.5) > 2.0
        p = LOGGED.probability(Evidence(support, True, support))
        out.append(Verdict(id=f"t{i}", triple=Triple(f"s{i}", "p", f"o{i}"), verdict=p >= LOGGED.true_at,
                           method="agentkgv", gold=gold, confidence=p, p_true=p,
                           trace=ReadingTrace(Evidence(support, True, support))))
    return out


def _review_csv(path, verdicts, labels):
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, REVIEW_COLUMNS, restval="")
        writer.writeheader()
        for v, label in zip(verdicts, labels):
            writer.writerow({"id": v.id, "subject": v.triple.subject, "predicate": v.triple.predicate,
                             "object": v.triple.object, "reviewer_verdict": label})


def test_the_reviewed_rows_are_read_back_and_a_bad_one_is_named_by_line(tmp_path):
    verdicts = _verdicts(4)
    path = tmp_path / "review.csv"
    _review_csv(path, verdicts, ["true", "", "No", "1"])
    reviews = read_reviews(path)
    assert [(r.id, r.label, r.line) for r in reviews] == [("t0", True, 2), ("t2", False, 4), ("t3", True, 5)]
    _review_csv(path, verdicts, ["true", "maybe", "", ""])
    with pytest.raises(DataError, match=r"review\.csv:3: field 'reviewer_verdict': expected true or false"):
        read_reviews(path)
    _review_csv(path, [verdicts[0], verdicts[0]], ["true", "false"])
    with pytest.raises(DataError, match=r"review\.csv:3: .*reviewed twice"):
        read_reviews(path)


def test_learning_moves_the_calibration_to_the_reviewed_domain(tmp_path):
    verdicts = _verdicts(200)
    path = tmp_path / "review.csv"
    _review_csv(path, verdicts[:100], [str(v.gold).lower() for v in verdicts[:100]])
    fitted, learned = learn_calibration({v.id: v for v in verdicts}, read_reviews(path), path, LOGGED)
    assert learned.reviews == 100 and learned.changed > 0
    assert learned.macro_f1_after > learned.macro_f1_before
    # The new threshold sits near support 2, where the domain turns true.
    assert fitted.probability(Evidence(1.0, True, 1.0)) < fitted.true_at <= fitted.probability(Evidence(3.0, True, 3.0))
    # A review of a triple the verdicts do not hold, or one the reader did not judge, is an error at its line.
    with pytest.raises(DataError, match=r"review\.csv:2: .*not in the verdicts file"):
        learn_calibration({}, read_reviews(path), path, LOGGED)
    lexical = {v.id: Verdict(v.id, v.triple, v.verdict, "lexical", v.gold) for v in verdicts}
    with pytest.raises(DataError, match="not judged by the reader"):
        learn_calibration(lexical, read_reviews(path), path, LOGGED)


def test_the_review_loop_scores_only_unreviewed_folds_and_learning_helps_a_shifted_domain():
    rows = review_loop(_verdicts(400), sizes=[50, 100], folds=4)
    assert [r.reviewed for r in rows] == [50, 100] and all(r.scored == 100 for r in rows)
    assert all(r.macro_f1_after > r.macro_f1_before for r in rows)


def test_learn_writes_a_named_reader_that_a_run_pins_by_content(tmp_path):
    verdicts = _verdicts(60)
    log = tmp_path / "verdicts.jsonl"
    log.write_text("".join(json.dumps(v.to_json()) + "\n" for v in verdicts))
    review = tmp_path / "review.csv"
    _review_csv(review, verdicts[:40], [str(v.gold).lower() for v in verdicts[:40]])
    result = CliRunner().invoke(app, ["learn", str(review), "--verdicts", str(log), "--name", "mine",
                                      "--cache-dir", str(tmp_path / "cache")])
    assert result.exit_code == 0, result.output
    folder = tmp_path / "cache" / "readers" / "mine"
    assert json.loads((folder / "learned.json").read_text())["reviews"] == 40
    assert ReaderFolder.open(folder).fingerprint != ReaderFolder.shipped().fingerprint
    assert Calibration.read(folder) != Calibration.read(shipped_reader_dir())


def test_review_pairs_take_every_passage_cited_for_a_false_triple_and_the_best_for_a_true_one():
    from agentkgv.core.verdict import EvidenceRef
    from agentkgv.train.learn import review_pairs

    cited = [EvidenceRef("p1", "Ada was born in Leeds."), EvidenceRef("p2", "Ada lived in York.")]
    true, false = (Verdict(i, Triple("Ada", "place of birth", o), True, "agentkgv", evidence=cited) for i, o in
                   (("a", "Leeds"), ("b", "York")))
    pairs = review_pairs([true, false], [True, False])
    assert [(p.triple.object, p.text, p.label) for p in pairs] == [
        ("Leeds", "Ada was born in Leeds.", 1.0), ("York", "Ada was born in Leeds.", 0.0), ("York", "Ada lived in York.", 0.0)]


def test_with_enough_reviews_learn_tunes_the_reader_and_reads_the_reviewed_triples_again(tmp_path, data):
    """From TUNE_AT reviews on, `learn` continues the reader on the reviewed passages, reads the reviewed
    triples again through the index the verify run used, and fits the calibration on what it finds."""
    from agentkgv.train.learn import TUNE_AT

    docs, cache = tmp_path / "docs", tmp_path / "cache"
    docs.mkdir()
    towns = ["Leeds", "York", "Hull", "Bath", "Derby", "Ripon", "Wells", "Truro"]
    triples, labels = [], []
    for i in range(TUNE_AT + 6):
        person, town, other = f"Ada{i} Quill", towns[i % 8], towns[(i + 3) % 8]
        (docs / f"{i}.txt").write_text(f"{person} was born in {town} in 1900. {person} later visited {other}.")
        obj = town if i % 2 == 0 else other  # every other triple names the town visited, not the birthplace
        triples.append({"id": f"t{i}", "subject": person, "predicate": "place of birth", "object": obj})
        labels.append(i % 2 == 0)
    graph = tmp_path / "graph.jsonl"
    graph.write_text("".join(json.dumps(t) + "\n" for t in triples))
    assert run_cli("index", str(docs), "--name", "mine", cache=cache, data=data.resolve()).returncode == 0
    out = tmp_path / "verdicts.jsonl"
    verified = run_cli("verify", str(graph), "-o", str(out), "--index", "mine", cache=cache, data=data.resolve())
    assert verified.returncode == 0, verified.stderr
    verdicts = [Verdict.from_json(json.loads(line)) for line in out.read_text().splitlines()]
    review = tmp_path / "review.csv"
    _review_csv(review, verdicts, [str(labels[int(v.id[1:])]).lower() for v in verdicts])
    learned = run_cli("learn", str(review), "--verdicts", str(out), "--name", "tuned", cache=cache, data=data.resolve())
    assert learned.returncode == 0, learned.stderr
    folder = cache / "readers" / "tuned"
    record = json.loads((folder / "learned.json").read_text())
    assert record["reviews"] == TUNE_AT + 6 and record["tuned_pairs"] >= TUNE_AT + 6
    # New weights, the shipped reader's glosses kept beside them, and a run pins the adapted reader.
    assert (folder / "reader.safetensors").read_bytes() != (shipped_reader_dir() / "reader.safetensors").read_bytes()
    assert ((folder / "glosses.json").exists() == (shipped_reader_dir() / "glosses.json").exists())
    assert ReaderFolder.open(folder).fingerprint != ReaderFolder.shipped().fingerprint
    # It learned the reviewed relation from the reviewed true facts too, under its id and every name of it.
    learned_counts, shipped_counts = (json.loads((f / "relations.json").read_text()) for f in (folder, shipped_reader_dir()))
    assert all(learned_counts[k] == shipped_counts[k] + sum(labels) for k in ("P19", "place of birth", "birth place"))


def test_each_reader_learns_from_the_reviewed_triples_it_judged(tmp_path):
    """Verdicts the rare-relation reader judged carry that reader's scores: they refit its calibration
    (`learn --rare`), not the main reader's, and a review of none of a reader's triples is refused by name."""
    from agentkgv.commands.review import learn_from_review
    from agentkgv.paths import Workspace

    verdicts = [replace(v, trace=replace(v.trace, rare_relation=i % 2 == 0)) for i, v in enumerate(_verdicts(60))]
    assert [by_rare_reader(v) for v in verdicts[:4]] == [True, False, True, False]
    log = tmp_path / "verdicts.jsonl"
    log.write_text("".join(json.dumps(v.to_json()) + "\n" for v in verdicts))
    ws = Workspace(cache=tmp_path / "cache")
    review = tmp_path / "review.csv"
    _review_csv(review, verdicts[0:40:2], [str(v.gold).lower() for v in verdicts[0:40:2]])
    with pytest.raises(DataError, match="judged by the main reader: `learn --rare`"):
        learn_from_review(ws, review, log, "mine")
    folder, learned = learn_from_review(ws, review, log, "rare", rare=True)
    assert learned.reviews == 20 and (folder / "glosses.json").exists()  # the gloss reader, adapted
    _review_csv(review, verdicts[:40], [str(v.gold).lower() for v in verdicts[:40]])
    folder, learned = learn_from_review(ws, review, log, "mine")
    assert learned.reviews == 20 and (folder / "relations.json").exists() and not (folder / "glosses.json").exists()
    # A log written before the flag existed reads as the main reader's.
    old = verdicts[0].to_json()
    assert old["trace"].pop("rare_relation") is True
    assert by_rare_reader(Verdict.from_json(old)) is False


def test_reviews_of_triples_the_graph_decided_teach_the_graph_prior_where_the_reader_learns_nothing(tmp_path):
    """A reviewer who checked only what the graph decided (names given as links to other pages, which no passage
    was read for): the reader is left as it was, and the graph prior learns from them that such names are wrong."""
    from agentkgv.commands.review import learn
    from agentkgv.core.graph_checked import compose
    from agentkgv.core.verdict import Finding
    from agentkgv.data.records import RdfTerms
    from agentkgv.graph.checker import GraphSettings, open_graph
    from agentkgv.graph.prior import GraphPrior, prior_digest
    from agentkgv.graph.profile import claim_triple
    from agentkgv.paths import Workspace

    ex = "http://example.org/"
    claims = [Triple(f"Band {n}", "name", f"Season {n}" if n % 2 else f"Band {n}",
                     rdf=RdfTerms(f"<{ex}Band_{n}>", f"<{ex}name>", f"<{ex}Season_{n}>" if n % 2 else f'"Band {n}"'))
              for n in range(60)]  # as many as make `learn` tune the reader where it can
    checker = open_graph(GraphSettings(), [claim_triple(t) for t in claims], "bands").checker
    verdicts = [compose(Verdict(f"t{n}", t, None, "agentkgv", gold=n % 2 == 0, undecided=True,
                                outcome=Finding.NOT_ENOUGH_EVIDENCE.value, p_true=0.5), checker)
                for n, t in enumerate(claims)]
    assert {v.value_family for v in verdicts} == {"a name", "an IRI of the graph"}
    log = tmp_path / "verdicts.jsonl"
    log.write_text("".join(json.dumps(v.to_json()) + "\n" for v in verdicts))
    (tmp_path / "verdicts.jsonl.settings.json").write_text(json.dumps({"pins": {"graph": {"prior": prior_digest(
        GraphPrior.load())}}}))
    review = tmp_path / "review.csv"
    _review_csv(review, verdicts, [str(v.gold).lower() for v in verdicts])
    lesson = learn(Workspace(cache=tmp_path / "cache"), review, log, "mine")
    assert lesson.reader is None and lesson.learned is None and "nothing to refit it on" in lesson.reader_unchanged
    prior = GraphPrior.load(lesson.graph_prior)
    link, name = (next(checker.row(claim_triple(v.triple), None) for v in verdicts if v.value_family == family)
                  for family in ("an IRI of the graph", "a name"))
    assert prior.p_true(link, f"{ex}name") < 0.5 < prior.p_true(name, f"{ex}name")
    assert prior.families[f"{ex}name"]["an IRI of the graph"] < 0 < prior.families[f"{ex}name"]["a name"]
