"""Stage 2: trajectory-level GRPO. The reward, advantage and loss arithmetic on hand-made tensors; the rows,
the frozen reference and the whole loop on a tiny random Llama with SmolLM2's tokenizer, real BM25."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch
from trl.trainer.utils import selective_log_softmax

from agentkgv.llm_agent.agent import AgentKGV
from agentkgv.llm_agent.config import AgentConfig
from agentkgv.llm_agent.summarizer import ExtractiveSummarizer
from agentkgv.data.records import LabeledTriple, Triple
from agentkgv.train.grpo_math import grpo_loss, group_advantages, reward
from scripted import ScriptedLLM, answer, search

CONFIGS = Path(__file__).parents[1] / "configs"
TRIPLE = Triple("Allan Peiper", "place of birth", "Alexandra", "P19")
NEGATIVE = Triple("Allan Peiper", "place of birth", "Melbourne", "P19")
PARAPHRASES = {"P19": ["birthplace", "was born in"]}
ITEMS = [LabeledTriple("train:P19:pos", TRIPLE, True), LabeledTriple("train:P19:neg", NEGATIVE, False)]
LOG_KEYS = {"step", "reward", "accuracy", "searches", "kl", "clip_fraction", "loss"}


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """The tiny model gains nothing from a second thread, and while another job holds the cores, OpenMP's
    barrier waits made each of its small matmuls ~200x slower (a 2-step run: 4 minutes against 25 s)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.mark.parametrize(("verdict", "gold", "searches", "expected"), [
    (True, True, 1, 1.0),      # correct after one search: nothing to pay
    (False, False, 0, 1.0),    # correct without searching
    (True, False, 1, 0.0),     # wrong
    (None, True, 1, -0.5),     # no parseable judgment
    (True, True, 3, 0.9),      # correct, two searches more than the free one
    (None, False, 3, -0.6),
])
def test_reward(verdict, gold, searches, expected):
    assert reward(verdict, gold, searches, alpha=0.05) == pytest.approx(expected)


def test_group_advantages_standardize_within_each_group():
    rewards = torch.tensor([1.0, 0.0, 1.0, 0.0, 0.5, 0.5, 0.5, 0.5, 0.9, -0.5, 0.0, 1.0])
    advantages = group_advantages(rewards, group_size=4)
    first = 0.5 / (math.sqrt(1 / 3) + 1e-4)  # sample std of (1, 0, 1, 0)
    assert advantages[:4].tolist() == pytest.approx([first, -first, first, -first])
    # A group whose trajectories all scored the same has nothing to prefer: zero, not NaN.
    assert advantages[4:8].tolist() == [0.0, 0.0, 0.0, 0.0]
    last = advantages[8:]
    assert last.mean().item() == pytest.approx(0.0, abs=1e-6) and last.std().item() == pytest.approx(1.0, abs=1e-3)
    assert last.argmax().item() == 3 and last.argmin().item() == 1


def test_unscaled_advantages_keep_the_search_penalty_at_its_size():
    """Right verdicts that differ only by one search: scaled, that gap is as loud as a right against a wrong
    verdict; centered only, it stays alpha-sized."""
    penalty_only = torch.tensor([1.0, 0.95, 1.0, 0.95])
    verdicts = torch.tensor([1.0, 0.0, 1.0, 0.0])
    assert group_advantages(penalty_only, 4).tolist() == pytest.approx(group_advantages(verdicts, 4).tolist(), rel=1e-2)
    assert group_advantages(penalty_only, 4, scale=False).tolist() == pytest.approx([0.025, -0.025, 0.025, -0.025], abs=1e-6)
    assert group_advantages(verdicts, 4, scale=False).tolist() == pytest.approx([0.5, -0.5, 0.5, -0.5])


def test_prompt_and_padding_tokens_get_no_gradient():
    torch.manual_seed(0)
    logits = torch.randn(2, 5, 11, requires_grad=True)
    ids = torch.randint(0, 11, (2, 5))
    mask = torch.tensor([[0, 0, 1, 1, 1], [0, 1, 1, 0, 0]])
    logps = selective_log_softmax(logits, ids)
    terms = grpo_loss(logps, logps.detach(), logps.detach() + 0.3, torch.tensor([1.0, -0.7]), mask, 0.2, 0.04)
    terms.loss.backward()
    per_position = logits.grad.abs().sum(dim=-1)
    assert torch.all(per_position[mask == 0] == 0)
    assert torch.all(per_position[mask == 1] > 0)


def test_clipping_follows_the_formula():
    old = torch.full((5, 1), math.log(0.4))
    ratios = torch.tensor([[1.5], [0.5], [1.5], [0.5], [1.0]])
    advantages = torch.tensor([1.0, -1.0, -1.0, 1.0, 1.0])
    logps = (old + ratios.log()).requires_grad_()
    terms = grpo_loss(logps, old, logps.detach(), advantages, torch.ones(5, 1), epsilon=0.2, beta=0.0)
    terms.loss.backward()
    # Pushed past the trust region in the advantage's direction: clipped, no gradient, counted.
    assert logps.grad[:2].tolist() == [[0.0], [0.0]]
    # Otherwise the unclipped term: d(-ratio * A / N) / dlogp = -ratio * A / N.
    assert logps.grad[2:].flatten().tolist() == pytest.approx([1.5 / 5, -0.5 / 5, -1.0 / 5])
    assert terms.clip_fraction.item() == pytest.approx(2 / 5)
    # min(1.2, 1.5) + min(-0.8, -0.5) + min(-1.5, -1.2) + min(0.5, 0.8) + 1.0 = 0.4, negated and averaged.
    assert terms.loss.item() == pytest.approx(-0.4 / 5)


def test_kl_is_the_k3_estimator():
    logps = torch.log(torch.tensor([[0.5, 0.25]])).requires_grad_()
    mask, no_advantage = torch.ones(1, 2), torch.zeros(1)
    same = grpo_loss(logps, logps.detach(), logps.detach(), no_advantage, mask, 0.2, beta=0.04)
    same.loss.backward()
    assert same.kl.item() == 0.0 and torch.all(logps.grad == 0)
    # ref/policy = 0.5 on the first token and 2 on the second: (0.5 + ln 2 - 1) and (2 - ln 2 - 1).
    ref = torch.log(torch.tensor([[0.25, 0.5]]))
    apart = grpo_loss(logps, logps.detach(), ref, no_advantage, mask, 0.2, beta=0.04)
    expected = ((0.5 + math.log(2) - 1) + (2 - math.log(2) - 1)) / 2
    assert apart.kl.item() == pytest.approx(expected) and apart.kl.item() > 0
    assert apart.loss.item() == pytest.approx(0.04 * expected)


def test_micro_batches_add_up_to_the_batch_token_mean():
    torch.manual_seed(1)
    logps = torch.randn(4, 3).requires_grad_()
    old, ref, advantages = torch.randn(4, 3) * 0.1 + logps.detach(), torch.randn(4, 3), torch.randn(4)
    mask = torch.tensor([[1, 1, 1], [1, 0, 0], [1, 1, 0], [1, 1, 1]])
    whole = grpo_loss(logps, old, ref, advantages, mask, 0.2, 0.04)
    parts = [grpo_loss(logps[rows], old[rows], ref[rows], advantages[rows], mask[rows], 0.2, 0.04, tokens=9)
             for rows in (slice(0, 1), slice(1, 4))]
    for field in ("loss", "kl", "clip_fraction"):
        assert sum(getattr(p, field).item() for p in parts) == pytest.approx(getattr(whole, field).item())


@pytest.fixture(scope="module")
def tiny_llm(tiny_model_dir):
    from agentkgv.llm.transformers_backend import TransformersLLM

    return TransformersLLM.load(str(tiny_model_dir), dtype="float32")


def test_rows_train_only_the_action_and_padding_keeps_each_rows_logps(small_bm25, tiny_llm):
    from agentkgv.train.grpo_data import completion_logps, micro_batches, trajectory_rows

    tokenizer = tiny_llm.tokenizer
    script = [search("Allan Peiper born"), answer("true")]
    agent = AgentKGV(ScriptedLLM(script, tokenizer), small_bm25, ExtractiveSummarizer(), PARAPHRASES, AgentConfig(rules=("ground_true", "settle_unfounded")))
    verdict = agent.verify(ITEMS[:1])[0]
    rows = trajectory_rows(verdict, 0.7, tiny_llm)
    assert len(rows) == 2 and {r.advantage for r in rows} == {0.7}
    for row, turn in zip(rows, verdict.turns):
        # The state is exactly what the backend feeds at inference; the action ends with its end-of-turn token.
        assert row.prompt_ids == tokenizer(tiny_llm.render(turn.messages), add_special_tokens=False).input_ids
        assert tokenizer.decode(row.completion_ids) == turn.action_text + "<|im_end|>"
        # The loss scores the ids that were generated, not the canonical split of their text.
        assert row.completion_ids == turn.action_ids
        assert row.completion_ids[:-1] != tokenizer(turn.action_text, add_special_tokens=False).input_ids
    # The retrieved passages of turn 1 are in turn 2's state, which no loss column covers.
    assert len(rows[1].prompt_ids) > len(rows[0].prompt_ids) + 20
    [batch] = micro_batches(rows, 2, tokenizer.pad_token_id, torch.device("cpu"))
    ordered = sorted(rows, key=lambda r: len(r.prompt_ids))  # micro batches group rows by state length
    assert batch.completion_mask.sum(dim=1).tolist() == [len(r.completion_ids) for r in ordered]
    with torch.no_grad():
        together = completion_logps(tiny_llm.model, batch, 0.8)
        for index, row in enumerate(ordered):
            [alone] = micro_batches([row], 1, tokenizer.pad_token_id, torch.device("cpu"))
            width = len(row.completion_ids)
            assert torch.allclose(completion_logps(tiny_llm.model, alone, 0.8)[0], together[index, :width], atol=1e-5)


def test_rows_refuse_a_trajectory_without_generated_ids(small_bm25, tiny_llm):
    from agentkgv.train.grpo_data import trajectory_rows

    agent = AgentKGV(ScriptedLLM([answer("true")]), small_bm25, ExtractiveSummarizer(), PARAPHRASES,
                     AgentConfig(rules=("ground_true", "settle_unfounded")))
    with pytest.raises(ValueError, match="turn 1 has no generated token ids"):
        trajectory_rows(agent.verify(ITEMS[:1])[0], 0.7, tiny_llm)


def random_adapter(model_dir: Path, folder: Path) -> Path:
    """A stand-in for the SFT adapter that, unlike a fresh LoRA, changes the model's outputs."""
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    torch.manual_seed(3)
    model = get_peft_model(AutoModelForCausalLM.from_pretrained(model_dir),
                           LoraConfig(r=4, target_modules="all-linear", init_lora_weights=False, task_type="CAUSAL_LM"))
    model.save_pretrained(str(folder))
    return folder


def test_sft_adapter_is_the_start_and_the_frozen_reference(tiny_model_dir, tiny_llm, tmp_path):
    from trl.trainer.utils import use_adapter

    from agentkgv.train.grpo import GRPOSettings, load_policy, update
    from agentkgv.train.grpo_data import Row, completion_logps, micro_batches

    settings = GRPOSettings.model_validate({
        "learning_rate": 1e-2, "updates_per_batch": 2,
        "run": {"llm": {"model": str(tiny_model_dir), "dtype": "float32",
                        "adapter": random_adapter(tiny_model_dir, tmp_path / "sft")}}})
    policy = load_policy(settings)
    trained = {id(p) for p in policy.trainable_parameters()}
    names = [n for n, p in policy.model.named_parameters() if id(p) in trained]
    assert names and all(".default." in n for n in names)
    assert len(names) == sum(".ref." in n for n, _ in policy.model.named_parameters())
    ids = tiny_llm.tokenizer(tiny_llm.render([{"role": "user", "content": "Is Allan Peiper born in Alexandra?"}]),
                             add_special_tokens=False).input_ids
    rows = [Row(ids, [1, 2, 3, 4], 1.0), Row(ids[:-3], [5, 6, 2], -1.0)]
    [batch] = micro_batches(rows, 2, tiny_llm.tokenizer.pad_token_id, torch.device("cpu"))

    def scores(adapter: str | None) -> torch.Tensor:
        with torch.no_grad(), use_adapter(policy.model, adapter):
            return completion_logps(policy.model, batch, 1.0)

    reference, base = scores("ref"), scores(None)
    assert torch.equal(scores("default"), reference) and not torch.allclose(reference, base)
    frozen = {n: p.clone() for n, p in policy.model.named_parameters() if ".default." not in n}
    terms = update(policy, torch.optim.AdamW(policy.trainable_parameters(), lr=settings.learning_rate), rows, settings)
    assert set(terms) == {"loss", "kl", "clip_fraction"}
    assert not torch.allclose(scores("default"), reference)
    assert torch.equal(scores("ref"), reference) and torch.equal(scores(None), base)
    assert all(torch.equal(p, frozen[n]) for n, p in policy.model.named_parameters() if n in frozen)
    assert not policy.model.training  # handed back in eval mode, ready to sample


def test_grpo_trains_logs_plots_saves_a_loadable_adapter_and_resumes(tiny_model_dir, small_bm25, tmp_path):
    from agentkgv.config import RunOptions
    from agentkgv.llm.transformers_backend import TransformersLLM
    from agentkgv.train.grpo import GRPOSettings, train_grpo

    settings = GRPOSettings.load(CONFIGS / "grpo_tiny.toml")
    settings = settings.model_copy(update={"run": RunOptions(model=str(tiny_model_dir)).apply(settings.run)})
    first = train_grpo(ITEMS, small_bm25, PARAPHRASES, tmp_path, settings)
    log = [json.loads(line) for line in (tmp_path / "grpo_log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in log] == [1, 2] and first["steps_this_session"] == 2
    for record in log:
        assert LOG_KEYS <= set(record)
        assert -0.5 - 0.05 * settings.run.agent.max_turns <= record["reward"] <= 1.0 and 0 <= record["accuracy"] <= 1
        assert record["rows"] >= settings.group_size * settings.triples_per_step
    assert (tmp_path / "grpo.png").stat().st_size > 0
    adapted = TransformersLLM.load(str(tiny_model_dir), adapter=tmp_path / "adapter", dtype="float32")
    assert "+adapter@" in adapted.name

    resumed = train_grpo(ITEMS, small_bm25, PARAPHRASES, tmp_path, settings.model_copy(update={"steps": 3}))
    log = [json.loads(line) for line in (tmp_path / "grpo_log.jsonl").read_text().splitlines()]
    assert resumed["steps_this_session"] == 1 and [r["step"] for r in log] == [1, 2, 3]
    assert sorted(p.name for p in tmp_path.glob("checkpoint-*")) == ["checkpoint-3"]


def test_rollouts_are_group_major_and_the_copies_of_a_triple_diverge(tiny_llm, small_bm25):
    from agentkgv.train.grpo import GRPOSettings
    from agentkgv.train.grpo_data import rollouts

    settings = GRPOSettings.model_validate({"group_size": 3, "triples_per_step": 2, "temperature": 1.0,
                                            "run": {"agent": {"max_turns": 2, "rules": ["ground_true", "settle_unfounded"]}}})
    verdicts = rollouts(tiny_llm, small_bm25, PARAPHRASES, ITEMS[:2], settings, step=1)
    assert [v.id for v in verdicts] == [i.id for i in ITEMS[:2] for _ in range(3)]
    assert [v.gold for v in verdicts] == [i.label for i in ITEMS[:2] for _ in range(3)]
    first_actions = [v.turns[0].action_text for v in verdicts[:3]]
    assert len(set(first_actions)) > 1


@pytest.mark.parametrize("name", ["grpo_tiny.toml", "grpo_cpu.toml", "grpo_gpu_7b.toml", "grpo_gpu_smollm2.toml"])
def test_configs_load(name):
    from agentkgv.train.grpo import GRPOSettings

    settings = GRPOSettings.load(CONFIGS / name)
    assert settings.triples_per_step % 2 == 0  # whole (positive, hard negative) pairs per step


def test_the_agent_is_set_in_the_run_table_and_a_top_level_model_is_refused(tmp_path):
    from agentkgv.data.errors import DataError
    from agentkgv.train.grpo import GRPOSettings

    new = tmp_path / "new.toml"
    new.write_text('steps = 7\n[run.llm]\nmodel = "smollm2"\ndtype = "float32"\nadapter = "a/adapter"\n'
                   '[run.agent]\nmax_turns = 4\ntop_k = 3\n')
    assert GRPOSettings.load(new).run.agent.max_turns == 4
    old = tmp_path / "old.toml"
    old.write_text('model = "smollm2"\nsteps = 7\n')
    with pytest.raises(DataError, match="model"):
        GRPOSettings.load(old)


def test_grpo_rollouts_run_the_agent_eval_builds_from_the_same_run_config(tiny_llm, small_passages, data, tmp_path):
    """The acceptance check of one run config: the agent GRPO samples from is the one `agentkgv eval`
    builds from the same RunConfig and workspace, differing only in how it samples."""
    from agentkgv.commands.build import paraphrases, retriever_for
    from agentkgv.config import resolve
    from agentkgv.paths import Workspace
    from agentkgv.registry import build_verifier
    from agentkgv.retrieval.bm25 import BM25Retriever
    from agentkgv.train.grpo import GRPOSettings
    from agentkgv.train.grpo_data import rollout_verifier

    ws = Workspace(data, tmp_path / "cache")
    BM25Retriever.build(small_passages, ws.indexes / "bm25")
    path = tmp_path / "grpo.toml"
    path.write_text('temperature = 0.9\nseed = 5\n[run]\nsummarizer = "extractive"\n'
                    '[run.agent]\nmax_turns = 3\ntop_k = 2\nmax_passage_words = 30\nrules = []\n')
    settings = GRPOSettings.load(path)
    evaluated = build_verifier(resolve(settings.run, ws), retriever_for(ws, settings.run.retriever), paraphrases(ws),
                               tiny_llm)
    # What commands.train.grpo hands train_grpo, and train_grpo's rollouts build at step 2.
    rolled = rollout_verifier(tiny_llm, retriever_for(ws, settings.run.retriever), paraphrases(ws),
                              settings, step=2)
    assert type(rolled) is type(evaluated) and type(rolled.summarizer) is type(evaluated.summarizer)
    assert rolled.paraphrases == evaluated.paraphrases and rolled.paraphrases
    assert rolled.retriever.name == evaluated.retriever.name == "bm25"
    assert rolled.policy.llm is evaluated.policy.llm is tiny_llm
    sampling = {"temperature", "seed"}
    assert rolled.config.model_dump(exclude=sampling) == evaluated.config.model_dump(exclude=sampling) \
        == settings.run.agent.model_dump(exclude=sampling)
    assert evaluated.config.max_turns == 3 and evaluated.config.rules == ()
    assert (rolled.config.temperature, rolled.config.seed) == (0.9, 7)
