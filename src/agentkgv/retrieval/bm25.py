"""Lexical retrieval with bm25s: exact entity names in a triple are strong evidence of the right passage."""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path

import bm25s
import Stemmer

from agentkgv.data.errors import DataError
from agentkgv.data.records import Passage
from agentkgv.retrieval.base import (Hit, PassageStore, check_passage_count, indexed_text, read_meta, start_build,
                                     write_meta)

KIND = "bm25"
# Queries must be tokenized exactly as the corpus was; meta.json records this and loading checks it.
TOKENIZER = "english-stopwords+snowball-english"
STOPWORDS = "en"
STEMMER_LANGUAGE = "english"


def _tokenize(texts: list[str], show_progress: bool) -> list[list[str]]:
    return bm25s.tokenize(texts, stopwords=STOPWORDS, stemmer=Stemmer.Stemmer(STEMMER_LANGUAGE),
                          return_ids=False, show_progress=show_progress)


class BM25Retriever:
    name = KIND

    def __init__(self, model: bm25s.BM25, store: PassageStore, meta: dict[str, object]):
        self.model = model
        self.store = store
        self.meta = meta

    @classmethod
    def build(cls, passages: Iterable[Passage], index_dir: Path) -> BM25Retriever:
        start = time.perf_counter()
        start_build(index_dir)
        store = PassageStore(passages)
        model = bm25s.BM25()
        # The caller's own bar or status line covers the build: bm25s's bars would add two more.
        model.index(_tokenize([indexed_text(p) for p in store], show_progress=False), show_progress=False)
        model.save(str(index_dir), show_progress=False)
        store.save(index_dir)
        meta: dict[str, object] = {"kind": KIND, "tokenizer": TOKENIZER, "passages": len(store),
                                   "build_seconds": round(time.perf_counter() - start, 3)}
        write_meta(index_dir, meta)
        return cls(model, store, meta)

    @classmethod
    def load(cls, index_dir: Path) -> BM25Retriever:
        meta = read_meta(index_dir, KIND)
        if meta.get("tokenizer") != TOKENIZER:
            raise DataError(index_dir, f"index was built with tokenizer {meta.get('tokenizer')!r}, "
                                       f"this code uses {TOKENIZER!r}; rebuild it")
        model = bm25s.BM25.load(str(index_dir), show_progress=False)
        store = PassageStore.load(index_dir)
        check_passage_count(index_dir, meta, store, int(model.scores["num_docs"]))
        return cls(model, store, meta)

    def search(self, queries: list[str], k: int = 5) -> list[list[Hit]]:
        """Zero-score documents share no term with the query, so they are dropped rather than returned
        as arbitrary filler: a query may get fewer than k hits."""
        if not queries:
            return []
        rows, scores = self.model.retrieve(_tokenize(queries, show_progress=False), k=min(k, len(self.store)),
                                           show_progress=False)
        results = []
        for query_rows, query_scores in zip(rows.tolist(), scores.tolist()):
            matched = sum(score > 0 for score in query_scores)
            results.append(self.store.hits(query_rows[:matched], query_scores[:matched]))
        return results
