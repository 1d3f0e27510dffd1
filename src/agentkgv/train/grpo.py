"""Stage-2 training (paper section 3.3.2): trajectory-level GRPO that teaches the agent when to stop searching.

Each step samples G full trajectories per training triple through the real agent loop, built from the
settings' run config exactly as `agentkgv eval` builds it (`rollout_config`, `build_verifier`), with only
the sampling changed: `temperature`, one seed per step, and no LLM cache, since the policy changes every
step. Each trajectory is scored with
R = R_correct + R_search, rewards are standardized within the triple's group, and every turn of a
trajectory carries its advantage as its own (state, action) row. The loss covers the model's action
tokens only, never the state text with its retrieved passages and summaries.

One module of about 400 lines, read top to bottom like nanoGPT's loop: rollouts, their rows, the loss and
the checkpointed step share one data model.

Why not TRL's GRPOTrainer: with `rollout_func` it needs exactly one (prompt, completion) row per sampled
prompt, each with its own advantage. A trajectory here is several turns whose prompts the environment
rebuilds (new search results, a new summary), all sharing one advantage, which its data model cannot hold.
So this is a small loop on TRL's pieces: `selective_log_softmax` for per-token log-probs, `nanstd` for the
group standardization, `use_adapter` for the reference pass, `pad` for batching, and the clipped objective
and k3 KL of GRPOTrainer's loss (agentkgv.train.grpo_math). Like TRL with a pretrained PEFT adapter, the
reference is a frozen copy of it named "ref" (here the SFT adapter), or adapters-disabled for a fresh LoRA.

Where it goes beyond or differs from TRL:
- The prompt is re-tokenized from the chat template the backend rendered (the environment's text, so any
  split of it is the model's input at the next turn too); the completion is the token ids the sampler
  actually drew, recorded with each turn, through the end-of-turn token when the model stopped on its own
  (a turn cut off at max_new_tokens has none). Re-tokenizing the action text instead would score the
  canonical split of the string, which need not be the sequence that was sampled.
- The sampler drew from the JSON-schema-masked distribution (xgrammar); the loss scores the full vocabulary,
  temperature-scaled as in sampling (TRL's convention), so ratios and KL are of the unconstrained policy.
- The loss is DAPO's token-level mean over the whole batch (see grpo_loss), not TRL's default per-row mean.
- LoRA dropout is 0, so a row scores the same in the update as when its old log-probs were taken.

The math (rewards, advantages, the loss) is in `grpo_math`; what stays here, about 400 lines, is one
training loop read top to bottom (rollouts, rows, log-probs, update, checkpoint), as nanoGPT keeps its own.
"""

from __future__ import annotations

import json
import shutil
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field, field_validator, model_validator

from agentkgv.config import RunConfig
from agentkgv.core.verdict import Verdict
from agentkgv.data.errors import DataError
from agentkgv.data.jsonl import read_jsonl, write_jsonl
from agentkgv.data.records import LabeledTriple
from agentkgv.memory import peak_memory_gib
from agentkgv.retrieval.base import Retriever
from agentkgv.train.grpo_data import Row, completion_logps, micro_batches, rollouts, step_items, trajectory_rows
from agentkgv.train.grpo_math import grpo_loss, group_advantages, reward
from agentkgv.train.sft import ADAPTER_DIR, LoRASettings, last_checkpoint

if TYPE_CHECKING:  # torch, peft and transformers load in seconds: only when training starts
    import torch
    from peft import PeftModel
    from transformers import PreTrainedTokenizerBase


TRAINED = "default"
REFERENCE = "ref"
LOG_FILE = "grpo_log.jsonl"
PLOT_FILE = "grpo.png"
OPTIMIZER_FILE = "optimizer.pt"


class GRPOSettings(LoRASettings):
    # The agent the rollouts run, as `agentkgv eval --config` reads it: the backbone (`llm.model`,
    # `llm.dtype`), the stage-1 adapter (`llm.adapter`: the starting policy and the KL reference; none
    # trains a fresh LoRA against the base model), the agent's settings and the summarizer.
    run: RunConfig = Field(default_factory=lambda: RunConfig(judge="llm"))
    # The LoRA settings (LoRASettings) make a fresh adapter when the run has none; the reference is then
    # the base model.
    group_size: int = Field(4, ge=2, description="trajectories per triple (G)")
    triples_per_step: int = Field(4, ge=1)
    steps: int = Field(20, ge=1)
    alpha: float = Field(0.05, ge=0, description="reward cost of each search after the first")
    epsilon: float = Field(0.2, gt=0, description="ratio clipping")
    beta: float = Field(0.04, ge=0, description="KL penalty against the reference")
    learning_rate: float = 2e-5
    max_grad_norm: float = 1.0
    temperature: float = Field(0.8, gt=0, description="rollout sampling temperature (eval decodes greedily)")
    seed: int = 13
    updates_per_batch: int = Field(1, ge=1, description="optimizer steps per batch of rollouts (mu)")
    micro_batch: int = Field(4, ge=1, description="rows per forward/backward pass")
    gradient_checkpointing: bool = False
    save_steps: int = Field(5, ge=1)

    @field_validator("run", mode="before")
    @classmethod
    def _llm_judges(cls, run: Any) -> Any:
        """GRPO trains the LLM's decisions, so its rollouts run the LLM agent unless told otherwise."""
        return {"judge": "llm", **run} if isinstance(run, dict) else run

    @model_validator(mode="after")
    def _trainable_run(self) -> GRPOSettings:
        if not self.run.uses_llm_agent or self.run.llm.backend != "transformers":
            raise ValueError("GRPO trains the LLM agent on the transformers backend (run.method agentkgv, "
                             "run.judge llm, run.llm.backend transformers)")
        return self


@dataclass
class TrainedPolicy:
    """The trained LoRA ("default") on the base model, and how to score the reference: the frozen "ref"
    adapter, or None for adapters disabled."""

    model: PeftModel
    tokenizer: PreTrainedTokenizerBase
    reference: str | None

    def trainable_parameters(self) -> list[torch.nn.Parameter]:
        # By name, not requires_grad: PEFT's set_adapter, which use_adapter calls, flips requires_grad of
        # whichever adapter it activates, so the frozen reference can look trainable for a moment.
        return [p for name, p in self.model.named_parameters() if "lora_" in name and f".{TRAINED}." in name]


def load_policy(settings: GRPOSettings, start: Path | None = None) -> TrainedPolicy:
    """The base model with the trained adapter from `start` (a checkpoint), else the SFT adapter, else a
    fresh LoRA; the SFT adapter is also loaded, frozen, as the reference."""
    import torch
    from peft import LoraConfig, PeftConfig, PeftModel, get_peft_model

    from agentkgv.llm.embedded import resolve_adapter
    from agentkgv.llm.transformers_backend import load_base_model

    llm = settings.run.llm
    sft_adapter = resolve_adapter(Path(llm.adapter)) if llm.adapter is not None else None
    if sft_adapter is not None and not sft_adapter.is_dir():
        raise DataError(sft_adapter, "SFT adapter not found; run `agentkgv sft` first")
    base, tokenizer = load_base_model(llm.model, llm.dtype, llm.models_dir)
    if settings.gradient_checkpointing:
        base.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    start = start or sft_adapter
    if start is None:
        torch.manual_seed(settings.seed)
        config = LoraConfig(r=settings.lora_r, lora_alpha=settings.lora_alpha, lora_dropout=0.0,
                            target_modules=settings.target_modules, task_type="CAUSAL_LM")
        model = get_peft_model(base, config)
    else:
        config = PeftConfig.from_pretrained(str(start))
        config.lora_dropout = 0.0  # stage 1 trained with dropout; here it would make the ratio noise
        model = PeftModel.from_pretrained(base, str(start), is_trainable=True, config=config)
    reference = None
    if sft_adapter is not None:
        model.load_adapter(str(sft_adapter), adapter_name=REFERENCE, is_trainable=False)
        reference = REFERENCE
    return TrainedPolicy(model, tokenizer, reference)


def update(policy: TrainedPolicy, optimizer: torch.optim.Optimizer, rows: list[Row],
           settings: GRPOSettings) -> dict[str, float]:
    """`updates_per_batch` optimizer steps on one batch of rows; returns loss, KL and clip fraction, each
    averaged over those steps."""
    import torch
    from trl.trainer.utils import use_adapter

    model = policy.model
    batches = micro_batches(rows, settings.micro_batch, policy.tokenizer.pad_token_id, model.device)
    tokens = sum(len(r.completion_ids) for r in rows)
    with torch.no_grad():
        with use_adapter(model, policy.reference):
            reference = [completion_logps(model, b, settings.temperature) for b in batches]
        # With one update, the policy before it is the one being differentiated: its detached log-probs are
        # the old ones (TRL's shortcut), which saves a forward pass per row; the ratio is then exactly 1.
        old = ([completion_logps(model, b, settings.temperature) for b in batches]
               if settings.updates_per_batch > 1 else [None] * len(batches))
    totals: Counter[str] = Counter()
    model.train()
    for _ in range(settings.updates_per_batch):
        optimizer.zero_grad()
        for batch, ref_logps, old_logps in zip(batches, reference, old, strict=True):
            logps = completion_logps(model, batch, settings.temperature)
            terms = grpo_loss(logps, logps.detach() if old_logps is None else old_logps, ref_logps, batch.advantages,
                              batch.completion_mask, settings.epsilon, settings.beta, tokens)
            terms.loss.backward()
            totals.update(loss=terms.loss.item(), kl=terms.kl.item(), clip_fraction=terms.clip_fraction.item())
        torch.nn.utils.clip_grad_norm_(policy.trainable_parameters(), settings.max_grad_norm)
        optimizer.step()
    model.eval()  # back to sampling
    return {key: value / settings.updates_per_batch for key, value in totals.items()}


def save_checkpoint(policy: TrainedPolicy, optimizer: torch.optim.Optimizer, run_dir: Path, step: int) -> None:
    """adapter + optimizer state, the step in the folder name; written aside and renamed, so a crash while
    saving never leaves a broken last checkpoint. Only the newest is kept."""
    import torch

    final = run_dir / f"checkpoint-{step}"
    partial = run_dir / f"partial-{final.name}"
    shutil.rmtree(partial, ignore_errors=True)
    policy.model.save_pretrained(str(partial / ADAPTER_DIR), selected_adapters=[TRAINED])
    torch.save(optimizer.state_dict(), partial / OPTIMIZER_FILE)
    partial.rename(final)
    for older in run_dir.glob("checkpoint-*"):
        if older != final:
            shutil.rmtree(older)


def step_record(step: int, verdicts: list[Verdict], rewards: list[float], terms: dict[str, float], rows: list[Row],
                rollout_s: float, update_s: float) -> dict:
    count = len(verdicts)
    return {"step": step, "reward": sum(rewards) / count,
            "accuracy": sum(v.correct for v in verdicts) / count,
            "searches": sum(v.search_calls for v in verdicts) / count,
            "unparsable": sum(v.verdict is None for v in verdicts) / count,
            "turns": sum(len(v.turns) for v in verdicts) / count, **terms,
            "rows": len(rows), "action_tokens": sum(len(r.completion_ids) for r in rows),
            "rollout_s": round(rollout_s, 2), "update_s": round(update_s, 2)}


def train_grpo(items: list[LabeledTriple], retriever: Retriever, paraphrases: dict[str, list[str]], run_dir: Path,
               settings: GRPOSettings, threads: int | None = None) -> dict:
    """Train from the last checkpoint under run_dir (if any) to `settings.steps`; save the adapter under
    run_dir/adapter, the per-step log and its plot; return the run's summary."""
    import torch
    from tqdm import tqdm

    from agentkgv.llm.transformers_backend import TransformersLLM

    if not items:
        raise ValueError("GRPO needs at least one training triple")
    if threads:
        torch.set_num_threads(threads)
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "settings.json").write_text(settings.model_dump_json(indent=2))
    resume = last_checkpoint(run_dir)
    done = int(Path(resume).name.split("-")[1]) if resume else 0
    policy = load_policy(settings, Path(resume) / ADAPTER_DIR if resume else None)
    optimizer = torch.optim.AdamW(policy.trainable_parameters(), lr=settings.learning_rate, weight_decay=0.0)
    if resume:
        optimizer.load_state_dict(torch.load(Path(resume) / OPTIMIZER_FILE))
    # Steps logged after the checkpoint were lost with the crash that ended that run; they are redone.
    log_path = run_dir / LOG_FILE
    history = [r for _, r in read_jsonl(log_path) if r["step"] <= done] if resume and log_path.exists() else []
    llm = TransformersLLM(policy.model, policy.tokenizer, f"grpo-policy:{settings.run.llm.model}")
    started = time.perf_counter()
    progress = tqdm(range(done + 1, settings.steps + 1), desc="GRPO", initial=done, total=settings.steps)
    for step in progress:
        clock = time.perf_counter()
        verdicts = rollouts(llm, retriever, paraphrases, step_items(items, step - 1, settings.triples_per_step),
                            settings, step)
        rewards = [reward(v.verdict, v.gold, v.search_calls, settings.alpha) for v in verdicts]
        advantages = group_advantages(torch.tensor(rewards), settings.group_size).tolist()
        rows = [row for v, a in zip(verdicts, advantages, strict=True) for row in trajectory_rows(v, a, llm)]
        rollout_s, clock = time.perf_counter() - clock, time.perf_counter()
        terms = update(policy, optimizer, rows, settings)
        history.append(step_record(step, verdicts, rewards, terms, rows, rollout_s, time.perf_counter() - clock))
        write_jsonl(log_path, history)
        if step % settings.save_steps == 0 or step == settings.steps:
            save_checkpoint(policy, optimizer, run_dir, step)
        progress.set_postfix(reward=f"{history[-1]['reward']:.3f}", acc=f"{history[-1]['accuracy']:.2f}",
                             searches=f"{history[-1]['searches']:.2f}", kl=f"{history[-1]['kl']:.4f}")
    adapter = run_dir / ADAPTER_DIR
    policy.model.save_pretrained(str(adapter), selected_adapters=[TRAINED])
    plot_log(history, run_dir / PLOT_FILE)
    summary = {"steps": settings.steps, "steps_this_session": settings.steps - done,
               "minutes_this_run": round((time.perf_counter() - started) / 60, 2),
               "peak_memory_gib": peak_memory_gib(),
               "adapter": str(adapter), "last": history[-1] if history else None}
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary


PANELS = (("reward", "mean reward"), ("accuracy", "accuracy"), ("searches", "searches / trajectory"),
          ("kl", "KL to reference"), ("clip_fraction", "clip fraction"), ("loss", "loss"))


def plot_log(history: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(2, 3, figsize=(11, 5.5), sharex=True)
    steps = [r["step"] for r in history]
    for axis, (key, label) in zip(axes.flat, PANELS, strict=True):
        axis.plot(steps, [r[key] for r in history], marker=".")
        axis.set_title(label)
        axis.grid(alpha=0.3)
    for axis in axes[-1]:
        axis.set_xlabel("GRPO step")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
