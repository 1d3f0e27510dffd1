"""Pick, build and load the retriever a run's settings name, with one index folder per kind and model."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from agentkgv.data.records import Passage
from agentkgv.embedding import DEFAULT_EMBEDDING_MODEL
from agentkgv.retrieval.base import Retriever
from agentkgv.retrieval.bm25 import BM25Retriever
from agentkgv.retrieval.dense import DenseRetriever
from agentkgv.retrieval.hybrid import HybridRetriever


class RetrieverConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["bm25", "dense", "hybrid"] = "dense"
    top_k: int = Field(5, ge=1)
    embedding_model: str = DEFAULT_EMBEDDING_MODEL
    index_root: Path


def bm25_dir(config: RetrieverConfig) -> Path:
    return config.index_root / "bm25"


def dense_dir(config: RetrieverConfig) -> Path:
    """One folder per model, so switching models never loads vectors from another model's space."""
    return config.index_root / f"dense-{re.sub(r'[^A-Za-z0-9._-]+', '_', config.embedding_model)}"


def build_retriever(config: RetrieverConfig, passages: Sequence[Passage]) -> Retriever:
    """Build the index(es) `config.kind` needs under `config.index_root`, replacing any already there."""
    if config.kind == "bm25":
        return BM25Retriever.build(passages, bm25_dir(config))
    if config.kind == "dense":
        return DenseRetriever.build(passages, dense_dir(config), model=config.embedding_model)
    return HybridRetriever([BM25Retriever.build(passages, bm25_dir(config)),
                            DenseRetriever.build(passages, dense_dir(config), model=config.embedding_model)])


def load_retriever(config: RetrieverConfig) -> Retriever:
    """Raises DataError naming the folder if an index is missing or was built with another model."""
    if config.kind == "bm25":
        return BM25Retriever.load(bm25_dir(config))
    if config.kind == "dense":
        return DenseRetriever.load(dense_dir(config), model=config.embedding_model)
    return HybridRetriever([BM25Retriever.load(bm25_dir(config)),
                            DenseRetriever.load(dense_dir(config), model=config.embedding_model)])
