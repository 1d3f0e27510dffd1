"""What GRPO learns from: each step's training triples and their rollouts (the agent `agentkgv eval` builds from
the same run config, sampling), and each trajectory's turns as token rows, batched, with their log-probabilities.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agentkgv.config import ResolvedRun, RunConfig
from agentkgv.core.verdict import Verdict, Verifier
from agentkgv.data.records import LabeledTriple
from agentkgv.registry import build_verifier
from agentkgv.retrieval.base import Retriever

if TYPE_CHECKING:  # torch, peft and transformers load in seconds: only when training starts
    import torch
    from peft import PeftModel

    from agentkgv.llm.transformers_backend import TransformersLLM
    from agentkgv.train.grpo import GRPOSettings  # whose module imports this one


def step_items(items: list[LabeledTriple], step: int, size: int) -> list[LabeledTriple]:
    """The triples of 0-based step `step`: consecutive slices of the draw, wrapping around. A pure function
    of the step, so a resumed run trains on the batches it would have; `training_draw` lists each positive
    next to its hard negative, so an even slice is label-balanced."""
    return [items[(step * size + offset) % len(items)] for offset in range(size)]


def rollout_config(settings: GRPOSettings, step: int) -> RunConfig:
    """The run config of step `step`'s rollouts: the settings' run with only the sampling changed."""
    run = settings.run
    return run.model_copy(update={
        "agent": run.agent.model_copy(update={"temperature": settings.temperature, "seed": settings.seed + step}),
        "llm": run.llm.model_copy(update={"cache": False})})


def rollouts(llm: TransformersLLM, retriever: Retriever, paraphrases: dict[str, list[str]], items: list[LabeledTriple],
             settings: GRPOSettings, step: int) -> list[Verdict]:
    """G trajectories per triple, group-major (triple 0's samples, then triple 1's, ...). The whole group
    runs as one batch under the step's seed: each row draws its own tokens, so copies of a triple diverge,
    and one batch of G x n rows keeps the CPU busier than G batches of n (`bench-throughput`: 0.81 triples/s
    at batch 16, 0.71 at 8, 0.25 at 1)."""
    copies = [item for item in items for _ in range(settings.group_size)]
    return rollout_verifier(llm, retriever, paraphrases, settings, step).verify(copies)


def rollout_verifier(llm: TransformersLLM, retriever: Retriever, paraphrases: dict[str, list[str]],
                     settings: GRPOSettings, step: int) -> Verifier:
    return build_verifier(ResolvedRun(rollout_config(settings, step)), retriever, paraphrases, llm)


@dataclass(frozen=True)
class Row:
    """One turn of one trajectory: the state's token ids, the action's, and the trajectory's advantage."""

    prompt_ids: list[int]
    completion_ids: list[int]
    advantage: float


def trajectory_rows(verdict: Verdict, advantage: float, llm: TransformersLLM) -> list[Row]:
    tokenizer = llm.tokenizer
    rows = []
    for turn in verdict.turns:
        if not turn.by_model:  # one of the agent's rules took it: no tokens to score
            continue
        if turn.action_ids is None:
            raise ValueError(f"trajectory {verdict.id} turn {turn.turn} has no generated token ids: "
                             "GRPO rollouts need a backend that reports them (transformers) and no LLM cache")
        prompt = tokenizer(llm.render(turn.messages), add_special_tokens=False).input_ids
        if turn.action_ids:
            rows.append(Row(prompt, turn.action_ids, advantage))
    return rows


@dataclass
class Batch:
    """Rows side by side: prompts left-padded and completions right-padded, so every row's completion
    starts at the same column and one `logits_to_keep` slice covers them all."""

    input_ids: torch.Tensor
    attention_mask: torch.Tensor
    position_ids: torch.Tensor
    completion_ids: torch.Tensor
    completion_mask: torch.Tensor
    advantages: torch.Tensor


def collate(rows: list[Row], pad_id: int, device: torch.device) -> Batch:
    import torch
    from trl.trainer.utils import pad

    prompts = [torch.tensor(r.prompt_ids) for r in rows]
    completions = [torch.tensor(r.completion_ids) for r in rows]
    prompt_mask = pad([torch.ones_like(p) for p in prompts], 0, "left")
    completion_mask = pad([torch.ones_like(c) for c in completions], 0, "right")
    completion_ids = pad(completions, pad_id, "right")
    attention_mask = torch.cat([prompt_mask, completion_mask], dim=1)
    # Positions count real tokens only, as generate() numbers a left-padded prompt; without them the
    # padding would shift every position and the scored distribution would not be the sampled one.
    position_ids = (attention_mask.cumsum(dim=1) - 1).clamp(min=0)
    return Batch(input_ids=torch.cat([pad(prompts, pad_id, "left"), completion_ids], dim=1).to(device),
                 attention_mask=attention_mask.to(device), position_ids=position_ids.to(device),
                 completion_ids=completion_ids.to(device), completion_mask=completion_mask.to(device),
                 advantages=torch.tensor([r.advantage for r in rows]).to(device))


def micro_batches(rows: list[Row], size: int, pad_id: int, device: torch.device) -> list[Batch]:
    # Rows of similar state length together: padding is pure waste, most of all on a CPU.
    ordered = sorted(rows, key=lambda r: len(r.prompt_ids))
    return [collate(ordered[i:i + size], pad_id, device) for i in range(0, len(ordered), size)]


def completion_logps(model: PeftModel, batch: Batch, temperature: float) -> torch.Tensor:
    """log pi(token | state, earlier action tokens) for every completion column of the batch."""
    from trl.trainer.utils import selective_log_softmax

    width = batch.completion_ids.shape[1]
    logits = model(input_ids=batch.input_ids, attention_mask=batch.attention_mask, position_ids=batch.position_ids,
                   logits_to_keep=width + 1, use_cache=False).logits
    # The logits at a position predict the next token: the last prompt column predicts the first action token.
    return selective_log_softmax(logits[:, :-1], batch.completion_ids, temperature)
