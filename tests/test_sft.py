"""Stage 1: teacher trajectories -> the paper's last-turn state-action pairs -> LoRA SFT with TRL.

Trajectories come from the real agent loop (scripted model, real BM25); training runs TRL's SFTTrainer
on a tiny random Llama with SmolLM2's tokenizer and chat template.
"""

from __future__ import annotations

import json

import pytest

from agentkgv.llm_agent.agent import AgentKGV
from agentkgv.llm_agent.config import AgentConfig
from agentkgv.core.verdict import Verdict
from agentkgv.llm_agent.prompts import AGENT_SYSTEM, TEACHER_SYSTEM
from agentkgv.llm_agent.summarizer import ExtractiveSummarizer
from agentkgv.data.benchmark import load_split
from agentkgv.data.records import LabeledTriple, Triple
from agentkgv.train.sft_data import (SFTDataStats, build_examples, check_train_only, forbidden_keys, sft_pairs,
                                     write_dataset)
from agentkgv.train.teacher import TeacherConfig, teacher_agent_config, training_draw
from scripted import ScriptedLLM, answer, search

TRIPLE = Triple("Allan Peiper", "place of birth", "Alexandra", "P19")
PARAPHRASES = {"P19": ["birthplace", "was born in"]}


def run(script: list[dict], retriever, label: bool = True, **config) -> Verdict:
    # The scripted model plays the first turn too, as a teacher does (teacher_agent_config).
    agent = AgentKGV(ScriptedLLM(script), retriever, ExtractiveSummarizer(), PARAPHRASES,
                     AgentConfig(**{"rules": ("ground_true", "settle_unfounded"), **config}))
    return agent.verify([LabeledTriple("train:P19:abc", TRIPLE, label)])[0]


def teacher_run(script: list[dict], retriever, label: bool = True) -> Verdict:
    config = teacher_agent_config(AgentConfig(), TeacherConfig(), sample=0).model_dump()
    return run(script, retriever, label, **config)


def test_pairs_are_the_students_states_at_the_last_turn(small_bm25):
    script = [search("Allan Peiper born"), search("Allan Peiper birthplace Alexandra"), answer("true")]
    taught = teacher_run(script, small_bm25)
    # A deployed agent taking the teacher's actions: the states it builds are what the pairs must hold.
    student = run([json.loads(t.action_text) for t in taught.turns], small_bm25)
    pairs = sft_pairs(taught, sample=4)
    assert [p.kind for p in pairs] == ["search", "judgment"]
    assert [(p.triple_id, p.sample, p.turn) for p in pairs] == [("train:P19:abc", 4, 2), ("train:P19:abc", 4, 3)]
    assert pairs[0].prompt == student.turns[1].messages
    assert pairs[1].prompt == student.turns[2].messages
    assert [p.completion for p in pairs] == [t.action_text for t in taught.turns[1:]]
    # The teacher saw its instruction and the gold hint; the pairs carry neither.
    assert taught.turns[2].messages[0]["content"] == TEACHER_SYSTEM
    assert "the correct verdict is true" in taught.turns[2].messages[1]["content"]
    assert "correct verdict" not in taught.turns[0].messages[1]["content"]  # no hint while it may only search
    for pair in pairs:
        assert pair.prompt[0]["content"] == AGENT_SYSTEM and "correct verdict" not in pair.prompt[1]["content"]
    # The search pair's query is the one whose results the judgment read.
    assert json.loads(pairs[0].completion)["query"] in pairs[1].prompt[1]["content"]


def test_teacher_aids_hold_the_verdict_to_the_label_and_queries_to_the_table(small_bm25):
    taught = teacher_run([search("anything at all"), answer("true")], small_bm25, label=False)
    first, last = (json.loads(t.action_text) for t in taught.turns)
    assert first["query"] == "Allan Peiper"  # the table's first example query (s)
    assert last["verdict"] == "false" and taught.verdict is False


def test_teacher_searches_at_least_once_and_at_most_max_searches(small_bm25):
    taught = teacher_run([answer("true"), answer("true")], small_bm25)
    assert taught.turns[0].action.kind == "search" and taught.search_calls == 1
    assert taught.verdict is True
    searching = teacher_run([search("Allan Peiper")] * 8, small_bm25)
    assert searching.search_calls == 3 and len(searching.turns) == 4 and searching.verdict is True


def test_direct_answer_gives_the_routing_pair(small_bm25):
    verdict = run([answer("true")], small_bm25)
    pairs = sft_pairs(verdict)
    assert [p.kind for p in pairs] == ["routing"] and pairs[0].prompt == verdict.turns[0].messages


def test_filter_keeps_only_correct_trajectories(small_bm25):
    right = run([search("Allan Peiper"), answer("true")], small_bm25, label=True)
    wrong = run([search("Allan Peiper"), answer("true")], small_bm25, label=False)
    cut_off = run([search("Allan Peiper")], small_bm25, label=False, max_turns=2, force_answer_on_last_turn=False)
    assert cut_off.verdict is None
    stats = SFTDataStats()
    examples = build_examples([(0, right), (0, wrong), (0, cut_off)], stats)
    assert {e.triple_id for e in examples} == {right.id}
    assert (stats.trajectories, stats.correct, stats.examples["judgment"]) == (3, 1, 1)


def test_a_completion_that_mentions_the_hint_or_guesses_before_searching_is_dropped(small_bm25):
    leaky = run([search("Allan Peiper"), {**answer("true"), "reasoning": "The hint says true."}], small_bm25)
    guessed = run([{**search("Allan Peiper"), "reasoning": "The triple is true."}, answer("true")], small_bm25)
    grounded = run([search("Allan Peiper"), {**answer("true"), "reasoning": "The passage says so: true."}],
                   small_bm25)
    stats = SFTDataStats()
    assert [e.kind for e in build_examples([(0, leaky), (0, guessed), (0, grounded)], stats)] == ["search", "judgment"]
    assert stats.leaked == 2


def test_no_test_triple_or_unseen_predicate_reaches_training(small_benchmark):
    folder, _ = small_benchmark
    train = load_split(folder, "train")
    tests = [e for split in ("test_long_tail", "test_unseen") for e in load_split(folder, split)]
    drawn = training_draw(train, 40, seed=1)
    assert len(drawn) == 40 and sum(e.label for e in drawn) == 20
    assert {e.triple.predicate_id for e in drawn} <= {"P140", "P1412", "P364", "P413"}
    with pytest.raises(ValueError, match="train split"):
        training_draw(train + tests[:2], 10, seed=1)

    def as_verdict(example):
        return Verdict(example.id, example.triple, example.label, "agentkgv", gold=example.label)

    unseen = {"P407", "P495"}
    check_train_only([as_verdict(e) for e in drawn], forbidden_keys(tests), unseen)
    leaked_test = tests[0]
    disguised = Verdict("train:x", leaked_test.triple, True, "agentkgv", gold=True)
    with pytest.raises(ValueError, match="test triple"):
        check_train_only([disguised], forbidden_keys(tests), set())
    with pytest.raises(ValueError, match="unseen predicate P407"):
        check_train_only([Verdict("train:y", Triple("a", "language of work", "b", "P407"), True, "agentkgv")],
                         set(), unseen)


@pytest.fixture(scope="module")
def sft_dataset(small_bm25, tmp_path_factory):
    verdicts = [run([search(f"Allan Peiper {word}"), answer("true")], small_bm25) for word in ("born", "birthplace")]
    verdicts += [run([answer("false")], small_bm25, label=False)]
    examples = build_examples([(0, v) for v in verdicts])
    path = tmp_path_factory.mktemp("sft") / "sft.jsonl"
    write_dataset(examples, path)
    return path, examples


def test_label_masks_exclude_every_state_token(tiny_model_dir, sft_dataset, tmp_path):
    from agentkgv.llm.transformers_backend import TransformersLLM
    from agentkgv.train.sft import SFTSettings, build_trainer

    path, examples = sft_dataset
    trainer = build_trainer(path, tmp_path, SFTSettings(model=str(tiny_model_dir), dtype="float32"))
    tokenizer = trainer.processing_class
    inference = TransformersLLM.load(str(tiny_model_dir), dtype="float32")
    rows = trainer.train_dataset
    assert len(rows) == len(examples) == 5
    for row, example in zip(rows, examples):
        state_ids = tokenizer(inference.render(example.prompt), add_special_tokens=False).input_ids
        n = len(state_ids)
        # The training sequence starts with exactly the tokens the agent's backend feeds at inference ...
        assert row["input_ids"][:n] == state_ids
        # ... every one of which is masked, and the loss covers the action and its end-of-turn token only.
        assert all(label == -100 for label in row["labels"][:n])
        learned = [t for t in row["labels"][n:] if t != -100]
        assert tokenizer.decode(learned).strip() == example.completion + "<|im_end|>"


def test_lora_sft_trains_saves_a_loadable_adapter_and_resumes(tiny_model_dir, sft_dataset, tmp_path):
    from agentkgv.llm.transformers_backend import TransformersLLM
    from agentkgv.train.sft import SFTSettings, last_checkpoint, train_sft

    path, _ = sft_dataset
    settings = SFTSettings(model=str(tiny_model_dir), dtype="float32", epochs=1, batch_size=2,
                           gradient_accumulation_steps=1, save_steps=1, logging_steps=1, learning_rate=1e-2)
    first = train_sft(path, tmp_path, settings)
    assert first["steps"] == 3 and last_checkpoint(tmp_path).endswith("checkpoint-3")
    assert (tmp_path / "loss.png").stat().st_size > 0
    resumed = train_sft(path, tmp_path, settings.model_copy(update={"epochs": 2}))
    assert resumed["steps"] == 6
    # The resumed run did only the second epoch's steps: the first epoch's losses came from the checkpoint.
    assert [r["step"] for r in resumed["losses"]] == [1, 2, 3, 4, 5, 6]
    adapted = TransformersLLM.load(str(tiny_model_dir), adapter=tmp_path / "adapter", dtype="float32")
    assert "+adapter@" in adapted.name


def test_continued_sft_trains_only_the_chosen_layers_of_the_given_adapter_on_the_chosen_pairs(
        tiny_model_dir, sft_dataset, tmp_path):
    """The CPU recipe: an adapter continued on judgment pairs only, a draw of them, its lower layer frozen."""
    import torch
    from safetensors.torch import load_file

    from agentkgv.train.sft import SFTSettings, build_trainer, train_sft

    path, examples = sft_dataset
    base = SFTSettings(model=str(tiny_model_dir), dtype="float32", epochs=1, batch_size=2, lora_dropout=0.0,
                       gradient_accumulation_steps=1,
                       save_steps=100, logging_steps=1, learning_rate=1e-2)
    first = train_sft(path, tmp_path / "first", base)
    settings = base.model_copy(update={"init_adapter": first["adapter"], "layers_to_transform": [1],
                                       "kinds": ["judgment"], "max_pairs": 2, "batch_size": 1})
    assert sum(e.kind == "judgment" for e in examples) == 2 < len(examples)
    assert len(build_trainer(path, tmp_path / "built", settings).train_dataset) == 2
    assert len(build_trainer(path, tmp_path / "drawn", settings.model_copy(update={"max_pairs": 1})).train_dataset) == 1
    continued = train_sft(path, tmp_path / "continued", settings)
    before, after = (load_file(f"{folder}/adapter_model.safetensors") for folder in (first["adapter"], continued["adapter"]))
    assert before.keys() == after.keys()
    moved = {name for name in before if not torch.equal(before[name], after[name])}
    # Layer 1's LoRA moves (the first step is warm-up at rate 0, the second is not); layer 0's stays as it was.
    assert moved and all(".layers.1." in name for name in moved)
    assert any(".layers.0." in name for name in before)


@pytest.mark.parametrize("name", ["sft_cpu.toml", "sft_cpu_long.toml", "sft_cpu_smollm2.toml", "sft_gpu_7b.toml",
                                  "sft_gpu_smollm2.toml"])
def test_shipped_sft_configs_load(name):
    from pathlib import Path

    from agentkgv.train.sft import SFTSettings

    settings = SFTSettings.load(Path(__file__).parent.parent / "configs" / name)
    # Room for a state (p95 under 512 tokens with the compact agent state) plus its action.
    assert settings.epochs > 0 and settings.max_length >= 640


def test_a_mistyped_sft_setting_names_the_file(tmp_path):
    from agentkgv.data.errors import DataError
    from agentkgv.train.sft import SFTSettings

    bad = tmp_path / "sft.toml"
    bad.write_text("epochz = 3\n")
    with pytest.raises(DataError, match=r"(?s)sft\.toml.*epochz"):
        SFTSettings.load(bad)


def test_held_out_pairs_are_whole_triples():
    from agentkgv.train.sft import held_out_triples

    ids = [f"train:P19:{n}" for n in range(40) for turn in (1, 2, 3)]  # a pair's triple_id, three turns each
    held = held_out_triples(ids, 0.1, seed=13)
    assert len(held) == 4 and held == held_out_triples(ids, 0.1, seed=13) and held <= set(ids)


def test_the_leak_filter_applies_only_to_a_hinted_teacher(small_bm25):
    """The privileged teacher never sees a hint, and its reasoning names the predicate: "record label"
    must not cost a trajectory."""
    labelled = Triple("Gerry Rafferty", "record label", "United Artists", "P264")
    script = [search("Gerry Rafferty record label"), {**answer("true"), "reasoning": "It names its record label."}]
    agent = AgentKGV(ScriptedLLM(script), small_bm25, ExtractiveSummarizer(), PARAPHRASES,
                     AgentConfig(rules=()))
    verdict = agent.verify([LabeledTriple("train:P264:x", labelled, True)])[0]
    assert build_examples([(0, verdict)]) == []
    assert [p.kind for p in build_examples([(0, verdict)], turns_taken="all", hinted=False)] == ["routing", "judgment"]
    with pytest.raises(ValueError, match="turns_taken"):
        build_examples([(0, verdict)], turns_taken="every")


def test_decision_tokens_are_the_verdict_and_the_word_that_decides_it(tiny_model_dir):
    from transformers import AutoTokenizer

    from agentkgv.llm_agent.prompts import action_text
    from agentkgv.train.sft_loss import decision_token_ids

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    ids = decision_token_ids(tokenizer)
    true = action_text({"reasoning": "Passage 2 states Allan Peiper place of birth Alexandra.", "action": "answer",
                        "evidence": [2], "verdict": "true"})
    false = action_text({"reasoning": "Passage 2 names Alexandra but not as Allan Peiper's place of birth.",
                         "action": "answer", "evidence": [2], "verdict": "false"})
    unsettled = action_text({"reasoning": "No shown passage settles it; try s,p'.", "action": "search",
                             "combination": "s,p'", "query": "Allan Peiper birthplace"})
    # Both sides of each choice are weighted: citing a passage or not, then what it says or what to do.
    for text, words in ((true, ["Pass", " states", "true"]), (false, ["Pass", " names", "false"]),
                        (unsettled, ["No", " settles"])):
        tokens = tokenizer.encode(text, add_special_tokens=False)
        assert [tokenizer.decode([t]) for t in tokens if t in ids] == words


def test_weighted_loss_is_the_plain_mean_at_weight_one_and_counts_decisions_more_above_it():
    import torch
    import torch.nn.functional as F

    from agentkgv.train.sft_loss import IGNORED, weighted_token_loss

    torch.manual_seed(0)
    logits = torch.randn(2, 6, 11)
    labels = torch.tensor([[IGNORED, IGNORED, 3, 7, 5, 2], [IGNORED, 4, 7, 1, IGNORED, IGNORED]])
    plain = F.cross_entropy(logits[:, :-1].reshape(-1, 11), labels[:, 1:].reshape(-1), ignore_index=IGNORED)
    assert torch.allclose(weighted_token_loss(logits, labels, [7], 1.0), plain)
    # Token 7 stands at two kept positions of seven: weight 4 counts each of them four times.
    per_token = F.cross_entropy(logits[:, :-1].reshape(-1, 11), labels[:, 1:].clamp(min=0).reshape(-1),
                                reduction="none")
    kept = (labels[:, 1:] != IGNORED).reshape(-1)
    weights = torch.where(labels[:, 1:].reshape(-1) == 7, 4.0, 1.0) * kept
    assert torch.allclose(weighted_token_loss(logits, labels, [7], 4.0), (per_token * weights).sum() / 13)
    assert weights.sum() == 13


def test_decision_weighted_sft_uses_the_weighted_loss_and_trains(tiny_model_dir, sft_dataset, tmp_path):
    import torch

    from agentkgv.train.sft import SFTSettings, build_trainer, train_sft
    from agentkgv.train.sft_loss import weighted_token_loss

    path, _ = sft_dataset
    settings = SFTSettings(model=str(tiny_model_dir), dtype="float32", epochs=1, batch_size=5, lora_dropout=0.0,
                           gradient_accumulation_steps=1, logging_steps=1, learning_rate=1e-2, decision_weight=8)
    trainer = build_trainer(path, tmp_path / "built", settings)
    batch = trainer._prepare_inputs(next(iter(trainer.get_train_dataloader())))
    trainer.model.eval()
    with torch.no_grad():
        logits = trainer.model(**{k: v for k, v in batch.items() if k != "labels"}).logits
        expected = weighted_token_loss(logits, batch["labels"], trainer.decision_ids, 8)
        plain = weighted_token_loss(logits, batch["labels"], trainer.decision_ids, 1)
        assert torch.allclose(trainer.compute_loss(trainer.model, dict(batch)), expected)
    assert not torch.allclose(expected, plain)  # the batch holds decision tokens, so the weight shows
    summary = train_sft(path, tmp_path / "trained", settings)
    assert summary["steps"] == 1 and summary["losses"][0]["loss"] > 0
