"""Pick, build and load the retriever a run's settings name, with one index folder per kind and model."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from agentkgv.data.records import Passage
from agentkgv.data.settings import Settings
from agentkgv.encoders import DEFAULT_EMBEDDING_MODEL
from agentkgv.retrieval.base import Retriever
from agentkgv.retrieval.bm25 import BM25Retriever
from agentkgv.retrieval.dense import DenseRetriever
from agentkgv.retrieval.hybrid import HybridRetriever


class RetrieverConfig(Settings):
    """A run's retriever. `index` names a document index built from the user's own documents
    (`retrieval/user_index.py`); None searches the benchmark corpus."""

    kind: Literal["bm25", "dense", "hybrid"] = "bm25"
    embedding_model: str = DEFAULT_EMBEDDING_MODEL
    index: str | None = None
    # Sources whose passages alone never decide a verdict: a file or folder of a document index as it was
    # indexed (the index's own marks, `index --distrust`), or a corpus by its sources' prefix (`poison:`).
    # The reader agent reads them without deciding on them; every other method never sees them.
    distrust: tuple[str, ...] = ()


def bm25_dir(root: Path) -> Path:
    return root / "bm25"


def dense_dir(root: Path, embedding_model: str) -> Path:
    """One folder per model, so switching models never loads vectors from another model's space."""
    return root / f"dense-{re.sub(r'[^A-Za-z0-9._-]+', '_', embedding_model)}"


def build_retriever(config: RetrieverConfig, root: Path, passages: Sequence[Passage]) -> Retriever:
    """Build the index(es) `config.kind` needs under `root`, replacing any already there."""
    if config.kind == "bm25":
        return BM25Retriever.build(passages, bm25_dir(root))
    dense = dense_dir(root, config.embedding_model)
    if config.kind == "dense":
        return DenseRetriever.build(passages, dense, model=config.embedding_model)
    return HybridRetriever([BM25Retriever.build(passages, bm25_dir(root)),
                            DenseRetriever.build(passages, dense, model=config.embedding_model)])


def load_retriever(config: RetrieverConfig, root: Path) -> Retriever:
    """Raises DataError naming the folder if an index is missing or was built with another model."""
    if config.kind == "bm25":
        return BM25Retriever.load(bm25_dir(root))
    dense = dense_dir(root, config.embedding_model)
    if config.kind == "dense":
        return DenseRetriever.load(dense, model=config.embedding_model)
    return HybridRetriever([BM25Retriever.load(bm25_dir(root)), DenseRetriever.load(dense, model=config.embedding_model)])
