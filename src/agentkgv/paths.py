"""Where input data is read from and where everything derived from it is written.

Both are settings. The data folder, which only the benchmark and training commands read, defaults to the
`../shared/data` layout that sits beside the repository; a user who downloaded the original sources points
`AGENTKGV_DATA` at their own copy. Everything derived (document indexes, run logs, exported readers, benchmark
splits, corpus, converted models) goes under the cache folder: the user's cache folder (platformdirs:
`~/.cache/agentkgv` on Linux) unless `AGENTKGV_CACHE` or a command's `--cache-dir` names another, so an index
name means the same index from any folder. The repository's Makefile keeps it in the checkout's `.cache`.
"""

from __future__ import annotations

import os
from pathlib import Path

from agentkgv.data.errors import DataError

DEFAULT_DATA_DIR = Path("../shared/data")
# The Cache Directory Tagging Specification's file (bford.info/cachedir): backup tools skip the folder, and
# `index` never reads one as documents.
CACHE_TAG = "CACHEDIR.TAG"
_CACHE_TAG_TEXT = ("Signature: 8a477f597d28d172789f06886806bc55\n"
                   "# This file is a cache directory tag created by AgentKGV: everything here is derived.\n")


def data_dir() -> Path:
    return Path(os.environ.get("AGENTKGV_DATA", DEFAULT_DATA_DIR))


def default_cache_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("agentkgv", appauthor=False))


def cache_dir() -> Path:
    path = Path(os.environ.get("AGENTKGV_CACHE") or default_cache_dir())
    path.mkdir(parents=True, exist_ok=True)
    return path


class Workspace:
    """The cache layout every command shares, rooted at the cache folder."""

    def __init__(self, data: Path | None = None, cache: Path | None = None):
        self.data = Path(data) if data else data_dir()
        self.cache = Path(cache) if cache else cache_dir()
        self.cache.mkdir(parents=True, exist_ok=True)
        tag = self.cache / CACHE_TAG
        if not tag.exists():
            tag.write_text(_CACHE_TAG_TEXT, encoding="utf-8")

    @property
    def benchmark(self) -> Path:
        return self.cache / "benchmark"

    @property
    def corpus(self) -> Path:
        return self.cache / "corpus" / "passages.jsonl"

    @property
    def indexes(self) -> Path:
        return self.cache / "index"

    @property
    def llm_cache(self) -> Path:
        return self.cache / "llm" / "completions.sqlite"

    @property
    def models(self) -> Path:
        """Models made from what the packages ship: the converted embedded LLM, the joined mpnet."""
        return self.cache / "models"

    @property
    def runs(self) -> Path:
        return self.cache / "runs"

    @property
    def training(self) -> Path:
        return self.cache / "train"


def check_name(name: str, what: str, hint: str = "") -> str:
    """A name that becomes a folder under the cache: letters, digits, '-', '_' and '.', not leading '.'."""
    if not name or name.startswith(".") or not all(c.isalnum() or c in "-_." for c in name):
        raise DataError(name, f"{what} name may hold letters, digits, '-', '_' and '.'{hint}")
    return name
