"""Withhold retrieved passages that address the verifier instead of stating facts.

A corpus drawn from the open web can hold text written for the model that reads it: "ignore the previous
instructions", a fake system turn, a closing tag, a JSON object shaped like the agent's answer. Fencing
and neutralising (agent.prompts) stop such text from breaking out of its <passage> tags, but a small model
still reads the words inside and may obey them (BENCHMARKS.md, poisoned evidence). An encyclopedic sentence
never tells its reader how to answer, so a passage that does is not evidence of anything and is dropped
before any verifier, lexical or LLM, sees it.

Hand-written patterns, because no maintained library detects prompt injection without a model of its own;
they look for the reader being addressed, not for the wording of any one attack.
"""

from __future__ import annotations

import re

from agentkgv.retrieval.base import Hit, Retriever

_VERDICT = r"[\"'“‘]?(?:true|false)\b"
_PATTERNS = [
    # Talking about the reader's instructions.
    r"\b(?:ignore|disregard|forget|override)\b.{0,40}\b(?:instructions?|rules?|prompts?|guidelines?)\b",
    r"\b(?:system|operator|developer)\s+(?:instructions?|prompt|message)\b",
    # Telling the reader what to answer.
    rf"\b(?:answer|reply|respond|output)\s+(?:(?:with|that|as|is|it|the|verdict|only|:)\s*){{0,3}}{_VERDICT}",
    rf"\bverdicts?\b\W{{0,6}}(?:is|must be|should be|=|:)?\W{{0,4}}{_VERDICT}",
    r"\b(?:the|this|any|every)\s+(?:verifier|fact[- ]checker|assistant|language model|ai model|model|grader)\b"
    r".{0,30}\b(?:must|should|shall|has to|is required to)\b",
    r"\byou\s+(?:must|should|are required to|have to)\s+(?:answer|reply|respond|output)\b",
    # Chat-role and tag markup, and objects shaped like the agent's own actions.
    r"</?\s*(?:system|assistant|instructions?|passage)\s*>",
    r"<\|[a-z_]+\|>",
    r"\"(?:action|verdict|evidence|reasoning)\"\s*:",
]
_ADDRESSES_READER = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE | re.DOTALL)


def addresses_reader(text: str) -> bool:
    """Whether `text` gives its reader instructions or imitates the reader's own turns and actions."""
    return _ADDRESSES_READER.search(text) is not None


class GuardedRetriever:
    """A retriever whose hits never include passages that address the reader. It asks the inner retriever
    for `overfetch` times k hits, so a withheld passage's slot goes to the next one rather than staying empty."""

    def __init__(self, inner: Retriever, overfetch: int = 2):
        self.inner = inner
        self.name = inner.name
        self.overfetch = overfetch
        self.withheld = 0  # passages dropped so far: what a run reports about the attack it met

    def search(self, queries: list[str], k: int = 5) -> list[list[Hit]]:
        results = []
        for hits in self.inner.search(queries, k * self.overfetch):
            kept = [hit for hit in hits if not addresses_reader(f"{hit.passage.title} {hit.passage.text}")]
            self.withheld += len(hits) - len(kept)
            results.append([Hit(hit.passage, hit.score, rank) for rank, hit in enumerate(kept[:k], start=1)])
        return results
