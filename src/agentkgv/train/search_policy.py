"""Train the reading agent's search policy on a CPU, in the paper's two stages (section 3.3).

The policy decides, after each search, whether to search again or answer (reader_agent/stopping.py). Stage 1
clones the settled rule's decisions on its successful trajectories (the "teacher"); stage 2 is
trajectory-level GRPO from there, with the paper's reward (train/grpo_math.py: +1 for a correct verdict,
-alpha for each search after the first), group-centered advantages, the clipped objective and a KL penalty
to the stage-1 policy. Only the policy's own decisions carry gradient; the evidence a search returns is the
environment's, as retrieved tokens are in the LLM's GRPO.

Why this policy and not the 135M LLM: on 2 cores one GRPO step of SmolLM2 (8 rollouts of up to 3 turns)
takes minutes, so the 100+ steps that move a policy would take many hours; and the reading agent's only
search decision is when to stop, which a logistic policy over the same state (P(true), whether it settles
the triple, the evidence, the searches made) takes with the same objective. Its rollouts replay cached
evidence: every triple is read once to the full budget (the evidence after each search kept), and a rollout
that stops after search t gets the calibration's verdict on the evidence after t searches, exactly what the
agent would have said.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from pydantic import Field

from agentkgv.data.errors import DataError
from agentkgv.data.jsonl import read_jsonl, write_jsonl
from agentkgv.data.settings import Settings
from agentkgv.eval.metrics import score
from agentkgv.reader_agent.calibration import Calibration, Evidence, Outcome
from agentkgv.reader_agent.stopping import FEATURES, LearnedStop, SearchState, SettledRule
from agentkgv.train.grpo import plot_log
from agentkgv.train.grpo_math import group_advantages, grpo_loss, reward

if TYPE_CHECKING:  # torch is imported inside the functions that train, as elsewhere in the package
    import torch

CHECKPOINT = "checkpoint.pt"
POLICY_FILE = "stop_policy.json"
HELD_OUT_TRAINING = "held-out training triples"
RARE_RELATIONS = "TekGen triples of rare relations"


class SearchPolicySettings(Settings):
    # The search penalty. With advantages divided by the group's std (`scale_rewards`, as the paper) its size
    # hardly matters: a group of right verdicts that differ only in searches is as loud as one that differs
    # in the verdict, and the policy learns to stop after one search whatever alpha is. Centered only,
    # alpha prices a search against a verdict. With the group and batch below, at alpha 0.01 every seed learns
    # nearly the same policy: search again where no passage about the subject was read, then answer; at 0.035
    # (beta 0 or 0.005) it answers after one search and loses verdicts (held-out episodes; BENCHMARKS.md).
    alpha: float = Field(0.01, ge=0)
    scale_rewards: bool = False
    # A further search changes about three verdicts in a thousand, so with smaller batches the gradient is
    # mostly sampling noise and the seed decides the outcome. Every training triple, 64 rollouts each, a step
    # (drawn over precomputed states, so a step takes a fraction of a second) leaves it to alpha and beta.
    group_size: int = Field(64, ge=2)
    triples_per_step: int = Field(1600, ge=1)
    steps: int = Field(300, ge=1)
    learning_rate: float = Field(0.1, gt=0)
    epsilon: float = Field(0.2, gt=0)
    # The KL to the stage-1 policy, which reads to the budget wherever the rule does. What counts is beta
    # against alpha: at half of alpha the KL of leaving the clone outweighs the penalty of a third search that
    # settles nothing, and the policy reads to the budget once it searches again; at a tenth (Search-R1's
    # 0.001 here) the reward moves it, and the KL still holds it near the clone where the reward is flat (on
    # hand-made episodes, a twentieth left it searching where a second search never helps).
    beta: float = Field(0.001, ge=0)
    save_steps: int = Field(25, ge=1)
    # Optimizer steps on each batch of rollouts: after the first the policy has moved from the one that
    # sampled them, and the clip bounds how far (one step would leave the ratio at 1).
    inner_steps: int = Field(2, ge=1)
    # Held-out training triples read to the full budget for the episodes (a fixed balanced draw).
    triples: int = Field(2000, ge=10)
    # TekGen triples per relation, of the relations the reader learned fewer than `rare_below` facts of, read
    # through retrieval and added to the episodes (train/reader_corpora.rare_relation_pairs). For the reader
    # of rare relations: it judges such relations, not the well-learned ones of the held-out training triples.
    rare_relations_per_relation: int = Field(0, ge=0)
    seed: int = 13


@dataclass(frozen=True)
class Episode:
    """One triple read to the full budget: the evidence after each search, and the truth."""

    history: tuple[Evidence, ...]
    gold: bool
    budget: int  # the agent's max_searches (a triple may have fewer distinct queries than that)
    source: str = HELD_OUT_TRAINING  # which triples: HELD_OUT_TRAINING or RARE_RELATIONS


def write_episodes(path: Path, episodes: Sequence[Episode]) -> None:
    write_jsonl(path, ({"history": [asdict(h) for h in e.history], "gold": e.gold, "budget": e.budget,
                        "source": e.source} for e in episodes))


def read_episodes(path: Path) -> list[Episode]:
    """Episodes as `write_episodes` wrote them; one read before an evidence field existed is refused, since the
    policy would learn from a feature that is always off there."""
    names = {f.name for f in fields(Evidence)}
    episodes = []
    for line, record in read_jsonl(path):
        history = record.get("history") or [{}]
        stale = next((h for h in history if set(h) != names), None)
        if stale is not None:
            raise DataError(path, f"episode evidence has fields {', '.join(sorted(stale))}, not "
                                  f"{', '.join(sorted(names))}: delete the file and rerun `agentkgv train-search-policy`",
                            line, "history")
        episodes.append(Episode(tuple(Evidence(**h) for h in history), record["gold"], record["budget"], record["source"]))
    return episodes


def _verdict(calibration: Calibration, evidence: Evidence) -> bool:
    # "Not enough evidence" is scored as false, as in the tables.
    return calibration.outcome(calibration.probability(evidence)) is Outcome.TRUE


def search_state(calibration: Calibration, episode: Episode, searches: int) -> SearchState:
    """The state after `searches` searches of the episode, as the agent would see it."""
    return SearchState.of(calibration, episode.history[searches - 1], searches, episode.budget)


def clone_rule(episodes: Sequence[Episode], calibration: Calibration) -> np.ndarray:
    """Stage 1: the settled rule's stop/continue decisions on the trajectories where it was right, fitted by
    logistic regression: the policy GRPO starts from and is held near."""
    from sklearn.linear_model import LogisticRegression

    rule = SettledRule()
    states, stops = [], []
    for episode in episodes:
        for t in range(1, len(episode.history) + 1):
            if rule.stop(search_state(calibration, episode, t)) or t == len(episode.history):
                if _verdict(calibration, episode.history[t - 1]) == episode.gold:
                    for s in range(1, t + 1):  # the successful trajectory's decisions; the last search forces none
                        if s < len(episode.history):
                            states.append(search_state(calibration, episode, s).features())
                            stops.append(s == t)
                break
    if len(set(stops)) < 2:
        raise ValueError("the rule's successful trajectories hold only one kind of decision: nothing to clone")
    model = LogisticRegression(fit_intercept=False, C=10.0, max_iter=2000).fit(np.array(states), np.array(stops))
    return model.coef_[0].astype(np.float64)


@dataclass(frozen=True)
class EpisodeStates:
    """The episodes as arrays: the state after each search and whether the verdict then is right. Neither
    depends on the policy, so they are computed once and every rollout only draws its stop decisions."""

    features: np.ndarray  # (episodes, searches, features); past an episode's last search, its last state
    right: np.ndarray  # (episodes, searches)
    length: np.ndarray  # (episodes,): the searches each episode holds

    @staticmethod
    def of(episodes: Sequence[Episode], calibration: Calibration) -> EpisodeStates:
        width = max(len(e.history) for e in episodes)
        features = np.zeros((len(episodes), width, len(FEATURES)))
        right = np.zeros((len(episodes), width), dtype=bool)
        for i, episode in enumerate(episodes):
            for t in range(1, width + 1):
                made = min(t, len(episode.history))
                features[i, t - 1] = search_state(calibration, episode, made).features()
                right[i, t - 1] = _verdict(calibration, episode.history[made - 1]) == episode.gold
        return EpisodeStates(features, right, np.array([len(e.history) for e in episodes]))

    def take(self, index: np.ndarray) -> EpisodeStates:
        return EpisodeStates(self.features[index], self.right[index], self.length[index])


@dataclass
class Rollouts:
    features: torch.Tensor  # (rows, decisions, features)
    actions: torch.Tensor  # (rows, decisions): 1 = stop
    mask: torch.Tensor  # 1 on the policy's own decisions
    rewards: torch.Tensor  # (rows,)
    searches: list[int]
    correct: list[bool]


def rollout(weights: np.ndarray, states: EpisodeStates, group: int, alpha: float, rng: np.random.Generator) -> Rollouts:
    """`group` sampled trajectories of each episode, in episode order: after search t the policy stops with
    probability sigmoid(weights . state), and the last search an episode holds ends it."""
    import torch

    rows = np.repeat(np.arange(len(states.length)), group)
    length = states.length[rows]
    width = max(states.features.shape[1] - 1, 1)
    features = states.features[rows][:, :width]
    slot = np.arange(width)[None, :]
    decides = slot < (length - 1)[:, None]  # a decision follows search t only while a search is left
    stops = decides & (rng.random(decides.shape) < 1.0 / (1.0 + np.exp(-features @ weights)))
    searches = np.where(stops.any(axis=1), stops.argmax(axis=1) + 1, length)
    mask = slot < np.minimum(searches, length - 1)[:, None]
    correct = states.right[rows, searches - 1]
    # One reward per (right, searches) pair, from the paper's formula.
    table = np.array([[reward(right, True, made, alpha) for made in range(width + 2)] for right in (False, True)])
    return Rollouts(torch.tensor(features), torch.tensor((stops & mask).astype(np.float64)),
                    torch.tensor(mask.astype(np.float64)), torch.tensor(table[correct.astype(int), searches]),
                    searches.tolist(), correct.tolist())


def decision_logps(weights: "torch.Tensor", rollouts: Rollouts) -> "torch.Tensor":  # noqa: F821
    """log pi(action | state) of every decision slot (padding included; the mask drops it)."""
    import torch

    z = rollouts.features @ weights
    return torch.where(rollouts.actions > 0.5, torch.nn.functional.logsigmoid(z), torch.nn.functional.logsigmoid(-z))


def searches_made(policy, episode: Episode, calibration: Calibration) -> int:
    """The searches a deterministic policy makes on the episode: up to its first stop, or all it holds."""
    n = len(episode.history)
    return next((t for t in range(1, n) if policy.stop(search_state(calibration, episode, t))), n)


def evaluate(policy, episodes: Sequence[Episode], calibration: Calibration) -> dict:
    """Macro-F1 and searches per triple of a deterministic policy replayed on the episodes."""
    searches = [searches_made(policy, episode, calibration) for episode in episodes]
    verdicts = [_verdict(calibration, episode.history[t - 1]) for episode, t in zip(episodes, searches)]
    return {"macro_f1": round(score([e.gold for e in episodes], verdicts).macro_f1, 4),
            "searches": round(sum(searches) / len(searches), 3)}


def train_search_policy(episodes: list[Episode], calibration: Calibration, run_dir: Path,
                        settings: SearchPolicySettings, reader: str = "") -> dict:
    """Stage 1 then GRPO; checkpoints every `save_steps`, so a stopped run resumes from its last one (one
    made for other episodes, calibration or settings is set aside and the run starts again). `reader` is
    the fingerprint of the reader the episodes were read with, saved with the policy."""
    import torch

    if not episodes:
        raise ValueError("no episodes to train on")
    run_dir.mkdir(parents=True, exist_ok=True)
    order = list(episodes)
    random.Random(settings.seed).shuffle(order)
    # The last fifth is never trained on: the before/after figures are measured there.
    cut = len(order) * 4 // 5
    train, held_out = order[:cut], order[cut:]
    states = EpisodeStates.of(train, calibration)
    checkpoint = run_dir / CHECKPOINT
    pinned = {"episodes": len(episodes), "reader": reader, "calibration": calibration.model_dump(),
              "features": FEATURES, "settings": settings.model_dump(exclude={"steps", "save_steps"})}
    if checkpoint.exists() and torch.load(checkpoint, weights_only=False).get("pinned") != pinned:
        checkpoint.rename(run_dir / f"{CHECKPOINT}.stale")
    if checkpoint.exists():
        state = torch.load(checkpoint, weights_only=False)
        start, history = state["step"], state["history"]
        reference = torch.tensor(state["reference"], dtype=torch.float64)
        weights = torch.tensor(state["weights"], dtype=torch.float64, requires_grad=True)
    else:
        start, history = 0, []
        reference = torch.tensor(clone_rule(train, calibration), dtype=torch.float64)
        weights = reference.clone().requires_grad_(True)
    optimizer = torch.optim.Adam([weights], lr=settings.learning_rate)
    if checkpoint.exists():
        optimizer.load_state_dict(state["optimizer"])
    rng = np.random.default_rng(settings.seed + start)
    started = time.perf_counter()
    for step in range(start + 1, settings.steps + 1):
        batch = states.take(rng.choice(len(train), min(settings.triples_per_step, len(train)), replace=False))
        rolled = rollout(weights.detach().numpy(), batch, settings.group_size, settings.alpha, rng)
        advantages = group_advantages(rolled.rewards, settings.group_size, settings.scale_rewards)
        with torch.no_grad():
            old = decision_logps(weights, rolled)
            ref = decision_logps(reference, rolled)
        for _ in range(settings.inner_steps):
            terms = grpo_loss(decision_logps(weights, rolled), old, ref, advantages, rolled.mask, settings.epsilon,
                              settings.beta)
            optimizer.zero_grad()
            terms.loss.backward()
            optimizer.step()
        history.append({"step": step, "reward": float(rolled.rewards.mean()), "accuracy": float(np.mean(rolled.correct)),
                        "searches": float(np.mean(rolled.searches)), "kl": float(terms.kl),
                        "clip_fraction": float(terms.clip_fraction), "loss": float(terms.loss.detach())})
        if step % settings.save_steps == 0 or step == settings.steps:
            torch.save({"step": step, "weights": weights.detach().tolist(), "reference": reference.tolist(),
                        "optimizer": optimizer.state_dict(), "history": history, "pinned": pinned}, checkpoint)
    seconds = time.perf_counter() - started
    budget = max(e.budget for e in episodes)
    sft = LearnedStop(tuple(reference.tolist()), reader, budget)
    grpo = LearnedStop(tuple(weights.detach().tolist()), reader, budget)
    policies = {"settled rule": SettledRule(), "stage 1 (cloned rule)": sft, "stage 1 + GRPO": grpo}
    sources = sorted({e.source for e in held_out})
    record = {"episodes": len(episodes), "trained_on": len(train), "measured_on": len(held_out),
              "resumed_from": start or None, "steps": settings.steps, "seconds_this_run": round(seconds, 1),
              "settings": settings.model_dump(),
              "held_out": {name: evaluate(policy, held_out, calibration) for name, policy in policies.items()},
              "held_out_by_source": {source: {name: evaluate(policy, [e for e in held_out if e.source == source],
                                                             calibration) for name, policy in policies.items()}
                                     for source in sources}}
    grpo.save(run_dir / POLICY_FILE, record)
    sft.save(run_dir / "stop_policy_sft.json", record)
    (run_dir / "history.json").write_text(json.dumps(history) + "\n")
    plot_log(history, run_dir / "grpo_search.png")
    return record
