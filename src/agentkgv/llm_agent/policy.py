"""Who chooses the agent's actions: one interface, so a model and a rule-based teacher drive the same loop.

The agent builds every state and schema itself and hands a policy the whole turn's batch. The usual policy
is a language model (`LLMPolicy`). A privileged teacher that writes training trajectories without a model
(agentkgv.train.privileged) is another: since it acts inside the same loop, the states its training pairs
are made of are exactly the ones the agent builds at inference.
"""

from __future__ import annotations

from typing import Protocol

from agentkgv.llm.base import LLM, Completion, GenerationConfig, Prompt
from agentkgv.llm_agent.trajectory import Trajectory


class Policy(Protocol):
    def act(self, trajectories: list[Trajectory], states: list[Prompt], schemas: list[dict]) -> list[Completion]:
        """One action per trajectory, as the text a model would have written under its schema."""
        ...


class LLMPolicy:
    def __init__(self, llm: LLM, config: GenerationConfig):
        self.llm, self.config = llm, config

    def act(self, trajectories: list[Trajectory], states: list[Prompt], schemas: list[dict]) -> list[Completion]:
        return self.llm.generate(states, self.config, schemas)
