"""Withhold retrieved passages before a verifier reads them: those that address the verifier instead of
stating facts (the evidence guard), and those of a source the user distrusts.

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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from agentkgv.data.documents import document_path
from agentkgv.data.records import Passage
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


@dataclass(frozen=True, slots=True)
class Withheld:
    """A retrieved passage a rule kept from deciding a verdict, and why: what a verdict records of it."""

    id: str
    source: str
    why: str


class WithholdRule(Protocol):
    why: str

    def withholds(self, passage: Passage) -> bool: ...


class AddressesReader:
    """The evidence guard: a passage that gives its reader instructions is not evidence of anything."""

    why = "addresses the reader"

    def withholds(self, passage: Passage) -> bool:
        return addresses_reader(f"{passage.title} {passage.text}")


@dataclass(frozen=True)
class DistrustedSource:
    """The sources a user distrusts (`index --distrust`): files and folders of a document index by path, a
    corpus by the prefix of its passages' source (`poison:`)."""

    marks: tuple[str, ...]
    why = "distrusted source"

    def withholds(self, passage: Passage) -> bool:
        return self.covers(passage.source)

    def covers(self, source: str) -> bool:
        """A prefix ending in ':' matches by prefix; a path matches itself and what lies below it."""
        path = document_path(source)
        return any(source.startswith(p) if p.endswith(":") else path == p or path.startswith(p.rstrip("/") + "/")
                   for p in self.marks)


class WithholdingRetriever:
    """A retriever whose hits never include passages a rule withholds. It asks the inner retriever for
    `overfetch` times k hits, and for twice as many again while fewer than k are left and more exist, so a
    withheld passage's slot goes to the next one rather than staying empty."""

    def __init__(self, inner: Retriever, rules: Sequence[WithholdRule], overfetch: int = 2, max_overfetch: int = 32):
        self.inner = inner
        self.name = inner.name
        self.rules = tuple(rules)
        self.overfetch, self.max_overfetch = overfetch, max_overfetch

    def search(self, queries: list[str], k: int = 5) -> list[list[Hit]]:
        return self.search_recorded(queries, k)[0]

    def search_recorded(self, queries: list[str], k: int = 5) -> tuple[list[list[Hit]], list[list[Withheld]]]:
        """The hits of each query, and what was withheld from them."""
        results: list[list[Hit]] = [[] for _ in queries]
        withheld: list[list[Withheld]] = [[] for _ in queries]
        pending, depth = list(range(len(queries))), k * self.overfetch
        while pending:
            short = []
            for i, hits in zip(pending, self.inner.search([queries[i] for i in pending], depth)):
                results[i], withheld[i] = self._keep(hits, k)
                if len(results[i]) < k and len(hits) == depth and depth < k * self.max_overfetch:
                    short.append(i)  # more passages exist below: look deeper
            pending, depth = short, depth * 2
        return results, withheld

    def _keep(self, hits: list[Hit], k: int) -> tuple[list[Hit], list[Withheld]]:
        kept, dropped = [], []
        for hit in hits:
            if len(kept) == k:  # what ranks below the k-th shown passage was never going to be read
                break
            rule = next((rule for rule in self.rules if rule.withholds(hit.passage)), None)
            if rule is None:
                kept.append(hit)
            else:
                dropped.append(Withheld(hit.passage.id, hit.passage.source, rule.why))
        return [Hit(hit.passage, hit.score, rank) for rank, hit in enumerate(kept, start=1)], dropped


def search_recorded(retriever: Retriever, queries: list[str], k: int) -> tuple[list[list[Hit]], list[list[Withheld]]]:
    """Any retriever's hits with what it withheld (nothing, unless it withholds)."""
    if isinstance(retriever, WithholdingRetriever):
        return retriever.search_recorded(queries, k)
    return retriever.search(queries, k), [[] for _ in queries]
