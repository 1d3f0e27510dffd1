"""Retrieval on a small real corpus: the LAMA T-REx evidence sentences of place of birth (P19) and
place of death (P20), whose many "born in"/"died in" sentences make near misses plentiful.

The indexes are built once per module through the factory (kind "hybrid" builds both members), so
the real MiniLM model embeds the corpus once.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from agentkgv import paths
from agentkgv.data.errors import DataError
from agentkgv.data.lama import iter_evidence_facts
from agentkgv.data.records import Fact, Passage
from agentkgv.retrieval import (BM25Retriever, DenseRetriever, Hit, HybridRetriever, Retriever, RetrieverConfig,
                                build_retriever, load_retriever, reciprocal_rank_fusion)
from agentkgv.retrieval.factory import bm25_dir, dense_dir

FACTS_PER_RELATION = 200
SAMPLED_FACTS = 30
# Observed: BM25 30/30, dense 28/30, hybrid 30/30; a retriever returning 5 random passages of the ~780
# would find well under 1 of 30.
MIN_RECALL_AT_5 = 0.8
KINDS = ("bm25", "dense", "hybrid")


def evidence_id(sentence: str) -> str:
    return Passage.make_id("trex", sentence)


@pytest.fixture(scope="module")
def facts() -> list[Fact]:
    found: list[Fact] = []
    for relation in ("P19", "P20"):
        relation_facts = iter_evidence_facts(paths.data_dir(), relation)
        found += [fact for fact in itertools.islice(relation_facts, FACTS_PER_RELATION) if fact.evidences]
    return found


@pytest.fixture(scope="module")
def passages(facts: list[Fact]) -> list[Passage]:
    return [Passage(id=evidence_id(sentence), text=sentence, source=f"trex:{fact.triple.predicate_id}")
            for fact in facts for sentence in fact.evidences]


@pytest.fixture(scope="module")
def config() -> RetrieverConfig:
    return RetrieverConfig(kind="hybrid")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("indexes")


@pytest.fixture(scope="module")
def built(config: RetrieverConfig, root: Path, passages: list[Passage]) -> dict[str, Retriever]:
    hybrid = build_retriever(config, root, passages)
    assert isinstance(hybrid, HybridRetriever)
    bm25, dense = hybrid.retrievers
    return {"bm25": bm25, "dense": dense, "hybrid": hybrid}


@pytest.fixture(scope="module")
def sample(facts: list[Fact]) -> list[Fact]:
    return random.Random(0).sample(facts, SAMPLED_FACTS)


@pytest.mark.parametrize("kind", KINDS)
def test_subject_and_object_find_the_evidence(built: dict[str, Retriever], sample: list[Fact], kind: str) -> None:
    results = built[kind].search([f"{fact.triple.subject} {fact.triple.object}" for fact in sample], k=5)
    found = sum(bool({evidence_id(s) for s in fact.evidences} & {hit.passage.id for hit in hits})
                for fact, hits in zip(sample, results))
    assert found >= MIN_RECALL_AT_5 * SAMPLED_FACTS, f"{kind}: evidence in top 5 for {found}/{SAMPLED_FACTS}"


@pytest.mark.parametrize("kind", KINDS)
def test_hits_are_k_ranked_best_first_and_a_sentence_finds_itself(built: dict[str, Retriever], sample: list[Fact],
                                                                  kind: str) -> None:
    sentences = [fact.evidences[0] for fact in sample]
    for sentence, hits in zip(sentences, built[kind].search(sentences, k=5), strict=True):
        assert [hit.rank for hit in hits] == [1, 2, 3, 4, 5]
        assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)
        assert hits[0].passage.id == evidence_id(sentence)


@pytest.mark.parametrize("kind", KINDS)
def test_batched_search_equals_one_by_one(built: dict[str, Retriever], sample: list[Fact], kind: str) -> None:
    queries = [f"{fact.triple.subject} {fact.triple.object}" for fact in sample[:8]]
    batched = built[kind].search(queries, k=5)
    single = [built[kind].search([query], k=5)[0] for query in queries]
    def ids(results: list[list[Hit]]) -> list[list[str]]:
        return [[hit.passage.id for hit in hits] for hits in results]

    assert ids(batched) == ids(single)
    # Dense scores differ in the last float bits between a padded batch and a lone query.
    assert [hit.score for hits in batched for hit in hits] == pytest.approx(
        [hit.score for hits in single for hit in hits], rel=1e-5)
    assert built[kind].search([], k=5) == []


@pytest.mark.parametrize("kind", KINDS)
def test_loaded_index_returns_identical_hits(built: dict[str, Retriever], config: RetrieverConfig, root: Path,
                                             sample: list[Fact], kind: str) -> None:
    loaded = load_retriever(config.model_copy(update={"kind": kind}), root)
    queries = [f"{fact.triple.subject} {fact.triple.object}" for fact in sample]
    assert loaded.name == built[kind].name
    assert loaded.search(queries, k=5) == built[kind].search(queries, k=5)


def test_index_folders_keep_deduplicated_passages_and_build_metadata(built: dict[str, Retriever],
                                                                    config: RetrieverConfig, root: Path,
                                                                    passages: list[Passage]) -> None:
    bm25, dense = built["bm25"], built["dense"]
    assert isinstance(bm25, BM25Retriever) and isinstance(dense, DenseRetriever)
    unique = list(dict.fromkeys(passage.id for passage in passages))
    assert [passage.id for passage in bm25.store] == [passage.id for passage in dense.store] == unique
    assert all(bm25.store.row_of(passage.id) == row for row, passage in enumerate(bm25.store))
    assert dense.meta["model"] == config.embedding_model and dense.meta["dimension"] == 384
    assert dense.meta["passages"] == bm25.meta["passages"] == len(unique)
    assert float(dense.meta["build_seconds"]) > 0
    assert dense_dir(root, config.embedding_model).name == "dense-minilm" and bm25_dir(root).name == "bm25"


def test_bm25_returns_no_filler_for_a_query_sharing_no_term(built: dict[str, Retriever]) -> None:
    assert built["bm25"].search(["zzyzx qwxv"], k=5) == [[]]


def test_reciprocal_rank_fusion_matches_hand_computation() -> None:
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["b", "d", "a"]], k_rrf=60)
    expected = [("b", 1 / 62 + 1 / 61), ("a", 1 / 61 + 1 / 63), ("d", 1 / 62), ("c", 1 / 63)]
    assert [item for item, _ in fused] == [item for item, _ in expected]
    assert [score for _, score in fused] == pytest.approx([score for _, score in expected])
    # Equal scores keep first-seen order.
    assert [item for item, _ in reciprocal_rank_fusion([["x"], ["y"]], k_rrf=60)] == ["x", "y"]


class FixedRetriever:
    """Returns the same ranked passages for every query."""

    def __init__(self, name: str, passages: list[Passage]):
        self.name = name
        self.passages = passages

    def search(self, queries: list[str], k: int = 5) -> list[list[Hit]]:
        hits = [Hit(passage, 1.0 / rank, rank) for rank, passage in enumerate(self.passages[:k], start=1)]
        return [hits for _ in queries]


def test_hybrid_returns_top_k_of_the_fused_order() -> None:
    a, b, c, d = (Passage(id=name, text=name) for name in "abcd")
    hybrid = HybridRetriever([FixedRetriever("one", [a, b, c]), FixedRetriever("two", [b, d, a])], k_rrf=60)
    (hits,) = hybrid.search(["any query"], k=3)
    assert [(hit.passage, hit.rank) for hit in hits] == [(b, 1), (a, 2), (d, 3)]
    assert hits[0].score == pytest.approx(1 / 61 + 1 / 62)
    assert hybrid.name == "hybrid(one+two)"


def test_missing_or_mismatched_index_raises_a_clear_error(built: dict[str, Retriever], config: RetrieverConfig,
                                                           root: Path, tmp_path) -> None:
    with pytest.raises(DataError, match="no bm25 index here"):
        BM25Retriever.load(tmp_path / "nothing")
    with pytest.raises(DataError, match="expected a dense index, found kind 'bm25'"):
        DenseRetriever.load(bm25_dir(root))
    with pytest.raises(DataError, match="built with embedding model 'minilm'"):
        DenseRetriever.load(dense_dir(root, config.embedding_model), model="BAAI/bge-base-en-v1.5")
    with pytest.raises(DataError, match="no dense index here"):
        load_retriever(config.model_copy(update={"kind": "dense", "embedding_model": "BAAI/bge-base-en-v1.5"}), root)
