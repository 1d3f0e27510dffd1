"""Retrieval quality and speed: recall@k of the gold evidence for each query form of the paper's table."""

from __future__ import annotations

import time
from dataclasses import dataclass

from agentkgv.core.combinations import COMBINATIONS, compose_query, paraphrases_of
from agentkgv.data.records import Example
from agentkgv.retrieval.base import Retriever


@dataclass(frozen=True, slots=True)
class RecallRow:
    retriever: str
    split: str
    combination: str
    recall: float
    queries: int
    queries_per_second: float


def recall_at_k(retriever: Retriever, name: str, split: str, examples: list[Example],
                paraphrases: dict[str, list[str]], k: int = 5, batch_size: int = 64) -> list[RecallRow]:
    """For each combination, the share of positives with a gold passage among the top k."""
    positives = [e for e in examples if e.label and e.gold_passage_ids]
    rows = []
    for combination in COMBINATIONS:
        queries = [compose_query(e.triple, combination, (paraphrases_of(paraphrases, e.triple) or [None])[0])
                   for e in positives]
        start = time.perf_counter()
        found = 0
        for offset in range(0, len(queries), batch_size):
            hits = retriever.search(queries[offset:offset + batch_size], k)
            for example, result in zip(positives[offset:offset + batch_size], hits):
                gold = set(example.gold_passage_ids)
                found += any(h.passage.id in gold for h in result)
        elapsed = time.perf_counter() - start
        rows.append(RecallRow(name, split, combination, found / max(1, len(positives)), len(queries),
                              len(queries) / elapsed if elapsed else float("inf")))
    return rows
