"""Where input data is read from and where everything derived from it is written.

Both are settings: the data folder defaults to the `../shared/data` layout that sits beside the
repository, and a user who downloaded the original sources points `AGENTKGV_DATA` at their own copy.
Everything derived (benchmark splits, corpus, indexes, converted models, caches) goes under the cache
folder, which git ignores.
"""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_DATA_DIR = Path("../shared/data")
DEFAULT_CACHE_DIR = Path(".cache")


def data_dir() -> Path:
    return Path(os.environ.get("AGENTKGV_DATA", DEFAULT_DATA_DIR))


def cache_dir() -> Path:
    path = Path(os.environ.get("AGENTKGV_CACHE", DEFAULT_CACHE_DIR))
    path.mkdir(parents=True, exist_ok=True)
    return path
