"""Dense retrieval: sentence embeddings in an exact FAISS inner-product index.

Embeddings are L2-normalised, so inner product is cosine similarity. Exact search (IndexFlatIP) is
used because at ~150K passages it answers in milliseconds and an approximate index would only add
recall loss and training settings.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # loaded only where a dense index is built or read, so BM25 runs without faiss
    import faiss

from agentkgv.data.errors import DataError
from agentkgv.data.records import Passage
from agentkgv.encoders import DEFAULT_EMBEDDING_MODEL, embed
from agentkgv.retrieval.base import (Hit, PassageStore, check_passage_count, indexed_text, read_meta, start_build,
                                     write_meta)

KIND = "dense"
INDEX_FILE = "faiss.index"
BGE_QUERY_PREFIX = "Represent this sentence for searching relevant passages: "
# Models trained with an instruction on the query side only; passages are embedded as they are.
KNOWN_QUERY_PREFIXES = {
    "BAAI/bge-small-en-v1.5": BGE_QUERY_PREFIX,
    "BAAI/bge-base-en-v1.5": BGE_QUERY_PREFIX,
    "BAAI/bge-large-en-v1.5": BGE_QUERY_PREFIX,
}


class DenseRetriever:
    def __init__(self, index: faiss.Index, store: PassageStore, meta: dict[str, object]):
        self.index = index
        self.store = store
        self.meta = meta
        self.model = str(meta["model"])
        self.query_prefix = str(meta["query_prefix"])
        self.name = f"{KIND}:{self.model}"

    @classmethod
    def build(cls, passages: Iterable[Passage], index_dir: Path, model: str = DEFAULT_EMBEDDING_MODEL,
              batch_size: int = 128, query_prefix: str | None = None) -> DenseRetriever:
        """`query_prefix=None` means the model's known instruction prefix, if it has one."""
        start = time.perf_counter()
        start_build(index_dir)
        store = PassageStore(passages)
        vectors = embed([indexed_text(p) for p in store], model, batch_size=batch_size, show_progress=True)
        import faiss

        index = faiss.IndexFlatIP(vectors.shape[1])
        index.add(vectors)
        faiss.write_index(index, str(index_dir / INDEX_FILE))
        store.save(index_dir)
        meta: dict[str, object] = {
            "kind": KIND, "model": model, "dimension": int(vectors.shape[1]), "passages": len(store),
            "query_prefix": KNOWN_QUERY_PREFIXES.get(model, "") if query_prefix is None else query_prefix,
            "build_seconds": round(time.perf_counter() - start, 3),
        }
        write_meta(index_dir, meta)
        return cls(index, store, meta)

    @classmethod
    def load(cls, index_dir: Path, model: str | None = None) -> DenseRetriever:
        """Raises DataError if the folder holds no dense index, or one built with a model other than `model`:
        queries embedded by a different model would be compared against meaningless vectors."""
        meta = read_meta(index_dir, KIND)
        if model is not None and meta.get("model") != model:
            raise DataError(index_dir, f"index was built with embedding model {meta.get('model')!r}, "
                                       f"but {model!r} was asked for; rebuild it or change the setting")
        import faiss

        index = faiss.read_index(str(index_dir / INDEX_FILE))
        if index.d != meta.get("dimension"):
            raise DataError(index_dir, f"index has dimension {index.d}, meta.json says {meta.get('dimension')}")
        store = PassageStore.load(index_dir)
        check_passage_count(index_dir, meta, store, int(index.ntotal))
        return cls(index, store, meta)

    def search(self, queries: list[str], k: int = 5) -> list[list[Hit]]:
        if not queries:
            return []
        vectors = embed([self.query_prefix + query for query in queries], self.model)
        scores, rows = self.index.search(vectors, min(k, len(self.store)))
        return [self.store.hits(query_rows, query_scores)
                for query_rows, query_scores in zip(rows.tolist(), scores.tolist())]
