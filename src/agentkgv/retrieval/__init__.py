"""Passage retrieval: BM25 (bm25s), dense (sentence-transformers + FAISS) and their RRF hybrid."""

from agentkgv.retrieval.base import Hit, PassageStore, Retriever
from agentkgv.retrieval.bm25 import BM25Retriever
from agentkgv.retrieval.dense import DenseRetriever
from agentkgv.retrieval.factory import RetrieverConfig, build_retriever, load_retriever
from agentkgv.retrieval.hybrid import HybridRetriever, reciprocal_rank_fusion

__all__ = ["BM25Retriever", "DenseRetriever", "Hit", "HybridRetriever", "PassageStore", "Retriever",
           "RetrieverConfig", "build_retriever", "load_retriever", "reciprocal_rank_fusion"]
