"""Stage-1 data without an LLM: the privileged teacher and the co-mention negatives it learns from.

The teacher runs inside the real agent loop (real BM25 over real T-REx sentences); its trajectories are
checked against what a deployed agent builds when it takes the same actions, and its action text against
the grammar the model is decoded under.
"""

from __future__ import annotations

import json

import pytest

from agentkgv.llm_agent.agent import AgentKGV
from agentkgv.llm_agent.config import AgentConfig
from agentkgv.llm_agent.prompts import action_schema
from agentkgv.llm_agent.summarizer import ExtractiveSummarizer
from agentkgv.data.co_mention import ObjectNames, find_co_mentions
from agentkgv.data.records import Example, Fact, Triple
from agentkgv.train.privileged import PrivilegedTeacher, privileges
from agentkgv.train.sft_data import sft_pairs
from scripted import ScriptedLLM

PARAPHRASES = {"P19": ["birthplace", "was born in"]}
POSITIVE = Example("train:P19:pos", Triple("Allan Peiper", "place of birth", "Alexandra", "P19"), True, "train",
                   "head")
NEGATIVE = Example("train:P19:neg", Triple("Allan Peiper", "place of birth", "Zanzibar", "P19"), False, "train",
                   "head", negative_of=POSITIVE.id)


# The teacher writes every turn, the first and the unfounded judgments too (every_turn_taught), so its
# student replays with the rules that take those turns off.
STUDENT = AgentConfig(rules=("ground_true",))


def teacher_agent(retriever, examples: list[Example]) -> AgentKGV:
    config = STUDENT
    teacher = PrivilegedTeacher(privileges(examples), max_searches=3, reasoning_chars=config.reasoning_chars,
                                max_cited=config.max_cited, passage_words=config.max_passage_words)
    return AgentKGV(None, retriever, ExtractiveSummarizer(), PARAPHRASES, config, teacher)


def test_the_privileged_teacher_never_reads_a_test_split():
    test_example = Example("test_long_tail:P19:x", POSITIVE.triple, True, "test_long_tail", "long_tail")
    with pytest.raises(ValueError, match="only the train split"):
        privileges([POSITIVE, test_example])


def test_teacher_verdicts_follow_what_the_student_can_read(small_bm25):
    positive, negative = teacher_agent(small_bm25, [POSITIVE, NEGATIVE]).verify(
        [POSITIVE.as_labeled(), NEGATIVE.as_labeled()])
    assert positive.verdict is True and negative.verdict is False
    assert positive.turns[0].action.query == "Allan Peiper place of birth Alexandra"  # s,p,o first
    # A true verdict cites a shown passage that names both; the hard negative's, one with the true object.
    assert positive.evidence and all("Peiper" in e.text and "Alexandra" in e.text for e in positive.evidence)
    assert all("Alexandra" in e.text for e in negative.evidence)
    for verdict in (positive, negative):
        shown = verdict.turns[-2].retrieved
        assert {e.id for e in verdict.evidence} <= set(shown)


def test_sft_states_equal_what_the_agent_builds_at_inference(small_bm25):
    """Every pair's state is the context a deployed agent builds when it takes the teacher's actions."""
    for taught in teacher_agent(small_bm25, [POSITIVE, NEGATIVE]).verify(
            [POSITIVE.as_labeled(), NEGATIVE.as_labeled()]):
        actions = [json.loads(turn.action_text) for turn in taught.turns]
        student = AgentKGV(ScriptedLLM(actions), small_bm25, ExtractiveSummarizer(), PARAPHRASES,
                           STUDENT).verify([POSITIVE.as_labeled() if taught.gold else NEGATIVE.as_labeled()])[0]
        pairs = sft_pairs(taught, "all")
        assert len(pairs) == len(student.turns) == len(taught.turns)
        assert [p.prompt for p in pairs] == [turn.messages for turn in student.turns]
        assert [p.completion for p in pairs] == [turn.action_text for turn in taught.turns]
        assert student.verdict == taught.verdict


def test_the_teacher_command_plays_every_turn_under_the_default_run_config(small_bm25, tmp_path):
    """A deployed agent's rules open the search and settle "false" without a model; in a teacher run they would
    take the teacher's turns, and its data would lose the routing pairs and the rewrites before a "false"."""
    from agentkgv.core.trace import RULE
    from agentkgv.config import RunConfig
    from agentkgv.core.runner import load_run
    from agentkgv.train.teacher import TeacherConfig, run_teacher, teacher_logs

    assert RunConfig().agent.rules == ("open_with_triple", "ground_true", "settle_unfounded")  # the defaults this guards
    run_teacher(RunConfig(), TeacherConfig(triples=2), "privileged", [POSITIVE, NEGATIVE], small_bm25, PARAPHRASES,
                None, tmp_path)
    verdicts = [v for _, log in teacher_logs(tmp_path) for v in load_run(log).values()]
    assert len(verdicts) == 2
    for verdict in verdicts:
        assert all(turn.finish_reason != RULE for turn in verdict.turns)
        assert sft_pairs(verdict, "all")[0].kind == "routing"


def test_teacher_actions_are_text_the_model_is_decoded_to(small_bm25):
    """The teacher writes actions without a model; they must be strings the action grammar accepts, in the
    exact spelling constrained decoding produces (key order, separators), or SFT would teach another format."""
    import xgrammar
    from transformers import AutoTokenizer

    from agentkgv.llm import gguf_path

    gguf = gguf_path()
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    compiler = xgrammar.GrammarCompiler(xgrammar.TokenizerInfo.from_huggingface(tokenizer))
    agent = teacher_agent(small_bm25, [POSITIVE, NEGATIVE])
    trajectories = agent.run([agent.start(POSITIVE.as_labeled()), agent.start(NEGATIVE.as_labeled())])
    for trajectory in trajectories:
        for number, turn in enumerate(trajectory.turns):
            passages = len(trajectory.turns[number - 1].retrieved) if number else 0
            schema = action_schema(agent.config.reasoning_chars, agent.config.query_chars, passages=passages,
                                   max_cited=agent.config.max_cited)
            matcher = xgrammar.GrammarMatcher(compiler.compile_json_schema(schema, any_whitespace=False))
            assert matcher.accept_string(turn.action_text), turn.action_text
            assert matcher.is_completed(), turn.action_text


def _fact(subject: str, obj: str, *sentences: str) -> Fact:
    return Fact(Triple(subject, "place of birth", obj, "P19"), tuple(sentences), "lama_trex:P19")


def test_co_mention_candidates_exclude_known_objects_containers_and_common_words():
    names = ObjectNames([("Q1", "Paris"), ("Q2", "Lyon"), ("Q3", "France"), ("Q4", "Most"), ("Q5", "Nice")])
    fact = _fact("Jean Dupont", "Lyon", "Jean Dupont was born in Lyon, France.")
    sentences = [("p1", "Jean Dupont was born in Lyon, France."),
                 ("p2", "Jean Dupont died in Paris, where most of his work was shown."),
                 ("p3", "Jean Dupont retired to Nice."),
                 ("p4", "Someone else was born in Paris.")]
    found = find_co_mentions(fact, sentences, names, excluded={"nice"}, stated={"paris": "place of death"},
                             is_variant=lambda a, b: a.lower() == b.lower())
    # Lyon is the true object, France contains it, Nice is a known object of (s, p), "most" is a common
    # word, and p4 does not name the subject: only Paris, under the relation the facts files state.
    assert [(c.object_label, c.passage_ids, c.stated_relation) for c in found] == [("Paris", ("p2",), "place of death")]


def test_co_mention_negatives_are_in_the_train_split_and_never_known_facts(small_benchmark, data):
    from agentkgv.data.benchmark import load_split
    from agentkgv.data.hard_negatives import KnownPositives
    from agentkgv.data.lama import iter_known_triples

    out, _ = small_benchmark
    known = KnownPositives(iter_known_triples(data))
    co_mentions = [e for split in ("train", "test_long_tail", "test_unseen") for e in load_split(out, split)
                   if e.extra.get("negative") == "co_mention"]
    assert co_mentions, "the small benchmark should hold co-mention negatives"
    for example in co_mentions:
        assert example.split == "train" and not example.label
        objects = known.objects_of(example.triple.predicate_id, example.triple)
        assert example.triple.object_id not in objects
        assert " ".join(example.triple.object.lower().split()) not in objects
        assert example.gold_passage_ids  # the sentences where subject and object stand together
