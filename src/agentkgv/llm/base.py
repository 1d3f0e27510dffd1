"""What every language-model backend shares: the decoding settings, the completion record and the protocol.

A prompt is a chat: a list of {"role": "system" | "user" | "assistant", "content": str} messages, and
backends apply the model's own chat template. Prompts are generated in batches, because the agent
advances many claims one step at a time and a local model is several times faster per token batched.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

Message = dict[str, str]
Prompt = list[Message]
JsonSchema = dict[str, Any]
# One schema for every prompt of a batch, or a list with one per prompt (None: unconstrained).
Schemas = JsonSchema | list[JsonSchema | None] | None
FinishReason = Literal["stop", "length"]


class LLMError(RuntimeError):
    """A request that still failed after the backend's retries (a server down, overloaded or answering
    garbage). Runs record the triple as failed and go on; a resume retries it."""


@dataclass(frozen=True, slots=True)
class GenerationConfig:
    """temperature 0 means greedy decoding; otherwise sampling, reproducible when a seed is given."""

    max_new_tokens: int = 128
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be at least 1, got {self.max_new_tokens}")
        if self.temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {self.temperature}")
        if not 0 < self.top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p}")

    @property
    def greedy(self) -> bool:
        return self.temperature == 0

    @property
    def deterministic(self) -> bool:
        """Whether the same prompt always gets the same text, which is what makes a result cacheable."""
        return self.greedy or self.seed is not None


@dataclass(frozen=True, slots=True)
class Completion:
    """One generated answer. finish_reason is "length" when max_new_tokens cut it short (so constrained
    JSON may be incomplete). latency_s is the wall time of the call that produced it: for a batch
    generated together, every completion of the batch reports the batch's time."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    finish_reason: FinishReason
    # Per generated token: where it starts in `text`, and the most likely alternatives at that step as
    # (token text, log-probability) under the distribution it was drawn from, i.e. after the schema mask
    # (the shape of OpenAI's `top_logprobs`). None when the backend does not report them.
    token_offsets: tuple[int, ...] | None = None
    top_alternatives: tuple[tuple[tuple[str, float], ...], ...] | None = None
    # The token ids exactly as generated, through the stop token when the model stopped on its own: what
    # a policy-gradient loss must score, since re-tokenizing `text` can give another split of the same
    # string. None when the backend does not report them (HTTP servers, cache hits).
    token_ids: tuple[int, ...] | None = None

    def alternatives_at(self, char_index: int) -> tuple[tuple[str, float], ...] | None:
        """The alternatives of the step whose token produced the character at `char_index`."""
        if self.token_offsets is None or self.top_alternatives is None:
            return None
        for i, start in enumerate(self.token_offsets):
            end = self.token_offsets[i + 1] if i + 1 < len(self.token_offsets) else len(self.text)
            if start <= char_index < end:
                return self.top_alternatives[i]
        return None


class LLM(Protocol):
    name: str
    """Identifies the engine and the weights (backend, model, adapter): the cache keys on it, and two
    engines decode the same weights into different text."""

    def generate(self, prompts: list[Prompt], config: GenerationConfig,
                 json_schema: Schemas = None) -> list[Completion]:
        """One completion per prompt, in order. With a schema, decoding is constrained so the text is JSON
        valid against it unless finish_reason is "length"."""
        ...


def per_prompt(json_schema: Schemas, count: int) -> list[JsonSchema | None]:
    """The schema of each of `count` prompts: a list is taken as given, a single schema applies to all."""
    if isinstance(json_schema, list):
        if len(json_schema) != count:
            raise ValueError(f"{len(json_schema)} schemas for {count} prompts")
        return list(json_schema)
    return [json_schema] * count
