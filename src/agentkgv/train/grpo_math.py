"""The arithmetic of trajectory-level GRPO (paper section 3.3.2): reward, group advantages, and the clipped
per-token objective with its KL penalty. Pure functions of plain values and tensors, so each is checked by
hand in tests/test_grpo.py; the loop that feeds them real rollouts is agentkgv.train.grpo.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from trl.trainer.utils import nanstd

CORRECT_REWARD = 1.0
WRONG_REWARD = 0.0
# Below a wrong verdict: a trajectory that never produced a judgment is worse than one that guessed.
UNPARSABLE_REWARD = -0.5
# TRL's: the advantage of a group whose rewards differ only by float noise stays bounded.
STD_EPSILON = 1e-4


def reward(verdict: bool | None, gold: bool, searches: int, alpha: float) -> float:
    """R = R_correct + R_search, with R_search = -alpha * max(0, searches - 1).

    The first search is free: one look at the evidence is what the agent is for; each further search is
    what the penalty teaches it to skip once the evidence already settles the claim.
    """
    if verdict is None:
        correct = UNPARSABLE_REWARD
    else:
        correct = CORRECT_REWARD if verdict == gold else WRONG_REWARD
    return correct - alpha * max(0, searches - 1)


def group_advantages(rewards: torch.Tensor, group_size: int, scale: bool = True) -> torch.Tensor:
    """(R_i - mean) / std within each group of `group_size` consecutive rewards (one triple's trajectories);
    without `scale`, R_i - mean (TRL's `scale_rewards=False`, after Dr. GRPO).

    A group whose rewards are all equal teaches nothing about which trajectory was better: its advantages
    are 0 (the numerator is exactly 0), and a group of one, whose std is undefined, gets 0 too, not NaN.
    Dividing by the std makes a group whose trajectories differ only by the search penalty as loud as one
    where they differ in the verdict, whatever alpha is; without it the penalty weighs what alpha says.
    """
    grouped = rewards.view(-1, group_size)
    centered = grouped - grouped.mean(dim=1, keepdim=True)
    if not scale:
        return centered.view(-1)
    scaled = centered / (nanstd(grouped, dim=1, keepdim=True) + STD_EPSILON)
    return torch.nan_to_num(scaled, nan=0.0).view(-1)


@dataclass(frozen=True)
class LossTerms:
    """Sums over the masked tokens divided by the same token count, so the terms of micro batches add up
    to the batch's values. `kl` and `clip_fraction` are detached, for the log."""

    loss: torch.Tensor
    kl: torch.Tensor
    clip_fraction: torch.Tensor


def grpo_loss(logps: torch.Tensor, old_logps: torch.Tensor, ref_logps: torch.Tensor, advantages: torch.Tensor,
              mask: torch.Tensor, epsilon: float, beta: float, tokens: int | None = None) -> LossTerms:
    """The clipped GRPO objective plus beta * KL(policy || reference), per completion token.

    logps, old_logps, ref_logps and mask are (rows, completion length); advantages is (rows,), one value
    broadcast to every token of its row. mask is 1 on the model's own tokens and 0 on padding. The KL is
    the k3 estimator exp(ref - logp) - (ref - logp) - 1: unbiased, never negative, 0 where the two agree.

    The loss is a token-level mean over `tokens` completion tokens (default: this call's own count),
    DAPO-style: every generated token weighs the same, so a long trajectory of many turns is not averaged
    down to the weight of a one-turn answer. Passing the whole batch's count to each micro batch makes their
    summed gradients exactly the batch's token mean.
    """
    mask = mask.to(logps.dtype)
    count = mask.sum().clamp(min=1.0) if tokens is None else tokens
    advantages = advantages.to(logps.dtype).unsqueeze(1)
    ratio = torch.exp(logps - old_logps)
    clipped_ratio = torch.clamp(ratio, 1 - epsilon, 1 + epsilon)
    surrogate = torch.min(ratio * advantages, clipped_ratio * advantages)
    log_ref_ratio = ref_logps - logps
    kl = torch.exp(log_ref_ratio) - log_ref_ratio - 1
    per_token = -surrogate + beta * kl
    # The tokens whose gradient the clip removed: pushed past the trust region in the advantage's direction.
    clipped = ((ratio < 1 - epsilon) & (advantages < 0)) | ((ratio > 1 + epsilon) & (advantages > 0))
    return LossTerms(loss=(per_token * mask).sum() / count, kl=(kl * mask).sum().detach() / count,
                     clip_fraction=(clipped.to(mask.dtype) * mask).sum() / count)
