"""Hybrid retrieval by reciprocal-rank fusion (Cormack et al., 2009).

RRF uses only ranks, so BM25 scores (unbounded) and cosine similarities (in [-1, 1]) need no
calibration against each other; k_rrf=60 is the value from the paper and the common default.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

from agentkgv.retrieval.base import Hit, Retriever

Id = TypeVar("Id", bound=Hashable)


def reciprocal_rank_fusion(ranked_id_lists: Sequence[Sequence[Id]], k_rrf: int = 60) -> list[tuple[Id, float]]:
    """Every id scores the sum of 1 / (k_rrf + rank) over the lists it appears in (rank 1-based),
    best first; ties keep the order in which ids were first seen."""
    scores: dict[Id, float] = {}
    for ranked_ids in ranked_id_lists:
        for rank, item in enumerate(ranked_ids, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k_rrf + rank)
    return sorted(scores.items(), key=lambda pair: pair[1], reverse=True)


class HybridRetriever:
    def __init__(self, retrievers: Sequence[Retriever], k_rrf: int = 60, depth: int = 50):
        self.retrievers = tuple(retrievers)
        self.k_rrf = k_rrf
        self.depth = depth
        self.name = "hybrid(" + "+".join(retriever.name for retriever in self.retrievers) + ")"

    def search(self, queries: list[str], k: int = 5) -> list[list[Hit]]:
        depth = max(self.depth, k)
        per_member = [retriever.search(queries, depth) for retriever in self.retrievers]
        results = []
        for query_index in range(len(queries)):
            member_hits = [hits[query_index] for hits in per_member]
            passages = {hit.passage.id: hit.passage for hits in member_hits for hit in hits}
            fused = reciprocal_rank_fusion([[hit.passage.id for hit in hits] for hits in member_hits], self.k_rrf)
            results.append([Hit(passages[passage_id], score, rank)
                            for rank, (passage_id, score) in enumerate(fused[:k], start=1)])
        return results
