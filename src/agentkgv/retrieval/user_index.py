"""Named indexes over a user's own documents: build, add to, and open one for a verification run.

An index folder holds `manifest.json` (every file taken in: its path, size, modification time, content
hash and passage count, or why it was skipped), `passages.jsonl` (all passages, grouped by file) and the
retriever's own folders. Adding files parses only files that are new or whose content changed; the
passages of the others are taken from `passages.jsonl`, never re-read from the documents. The retriever
is then rebuilt over all passages (BM25 takes seconds; dense re-embeds them).

The fingerprint is a hash of `passages.jsonl`: a verification run pins it, so resuming a run against an
index whose contents changed since is refused.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from agentkgv.data.documents import ChunkConfig, DocumentError, discover, parse_document
from agentkgv.data.errors import DataError
from agentkgv.data.jsonl import read_json
from agentkgv.data.passage_file import read_passages, write_passages
from agentkgv.data.records import Passage
from agentkgv.embedding import DEFAULT_EMBEDDING_MODEL
from agentkgv.paths import Workspace, check_name
from agentkgv.retrieval.base import Retriever
from agentkgv.retrieval.factory import RetrieverConfig, build_retriever, load_retriever

MANIFEST_FILE = "manifest.json"
PASSAGES_FILE = "passages.jsonl"


class FileEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    size: int
    mtime_ns: int
    sha256: str
    passages: int = 0
    skipped: str | None = None  # why the file gave no passages
    warnings: list[str] = []


class Manifest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    kind: Literal["bm25", "dense", "hybrid"] = "bm25"
    embedding_model: str = DEFAULT_EMBEDDING_MODEL
    chunking: ChunkConfig = ChunkConfig()
    files: dict[str, FileEntry] = {}
    fingerprint: str = ""
    # Files and folders (resolved paths) whose passages alone never decide a verdict (`index --distrust`).
    distrusted: list[str] = []

    def retriever_config(self) -> RetrieverConfig:
        return RetrieverConfig(kind=self.kind, embedding_model=self.embedding_model, index=self.name)


@dataclass
class IndexReport:
    """What one `index` call did; `bytes_parsed` counts only the files parsed this time."""

    index_dir: Path
    manifest: Manifest
    parsed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "path: reason"
    warnings: list[str] = field(default_factory=list)
    bytes_parsed: int = 0
    passages: int = 0
    parse_seconds: float = 0.0
    build_seconds: float = 0.0


@dataclass(frozen=True)
class OpenIndex:
    retriever: Retriever
    manifest: Manifest
    index_dir: Path

    def identity(self) -> dict[str, str]:
        """What a verification run pins about its evidence: what it holds, not where it lies, so a moved
        cache folder still resumes."""
        return {"name": self.manifest.name, "fingerprint": self.manifest.fingerprint}


def index_dir(ws: Workspace, name: str) -> Path:
    """A bare name lives under the cache (`<cache>/indexes/NAME`); anything with a slash is a folder path."""
    if "/" in name or name.startswith("."):
        return Path(name)
    return ws.cache / "indexes" / check_name(name, "an index", " (or give a folder path)")


def load_manifest(folder: Path) -> Manifest | None:
    path = folder / MANIFEST_FILE
    if not path.exists():
        return None
    try:
        return Manifest.model_validate(read_json(path))
    except ValueError as error:
        raise DataError(path, f"not an index manifest ({error})") from None


def add_documents(folder: Path, paths: list[Path], kind: str | None = None, embedding_model: str | None = None,
                  chunking: ChunkConfig | None = None,
                  progress: Callable[[int, int], None] = lambda done, total: None) -> IndexReport:
    """Create the index or add `paths` (files and folders) to it; `progress(bytes done, bytes total)`."""
    stored_manifest = load_manifest(folder)
    manifest = stored_manifest or Manifest(name=folder.name)
    if chunking is not None and manifest.files and chunking != manifest.chunking:
        raise DataError(folder, f"index was cut with {manifest.chunking.model_dump()}; documents cut otherwise "
                                "would mix two passage sizes: build a new index for new settings")
    updates = {key: value for key, value in {"kind": kind, "embedding_model": embedding_model,
                                             "chunking": chunking}.items() if value is not None}
    manifest = manifest.model_copy(update=updates)
    stored = read_passages(folder / PASSAGES_FILE) if (folder / PASSAGES_FILE).exists() else []
    by_file: dict[str, list[Passage]] = {}
    for passage in stored:
        by_file.setdefault(passage.source.removeprefix("doc:"), []).append(passage)
    report = IndexReport(folder, manifest)
    files = list(discover(paths))
    sizes = {file: file.stat().st_size for file in files}
    total, done = sum(sizes.values()), 0
    started = time.perf_counter()
    for file in files:
        key = str(file.resolve())  # the same file by any relative path
        stat = file.stat()
        old = manifest.files.get(key)
        if old and old.size == stat.st_size and old.mtime_ns == stat.st_mtime_ns:
            report.unchanged.append(key)
        else:
            data = file.read_bytes()
            digest = hashlib.sha256(data).hexdigest()
            if old and old.sha256 == digest:  # touched, not changed
                manifest.files[key] = old.model_copy(update={"mtime_ns": stat.st_mtime_ns})
                report.unchanged.append(key)
            else:
                manifest.files[key] = _parse(file.resolve(), data, digest, stat.st_mtime_ns, manifest.chunking, by_file, report)
        done += sizes[file]
        progress(done, total)
    report.parse_seconds = time.perf_counter() - started
    same_settings = stored_manifest is not None and (stored_manifest.kind, stored_manifest.embedding_model) == (
        manifest.kind, manifest.embedding_model)
    if same_settings and len(report.unchanged) == len(files):  # nothing new: keep the built index as it is
        (folder / MANIFEST_FILE).write_text(manifest.model_dump_json(indent=2) + "\n", encoding="utf-8")
        report.passages = sum(entry.passages for entry in manifest.files.values())
        return report
    passages = [passage for key in sorted(by_file) for passage in by_file[key]]
    if not passages:
        raise DataError(folder, "no passages to index: every document was empty or unreadable "
                                + "; ".join(report.skipped[:3]))
    started = time.perf_counter()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MANIFEST_FILE).unlink(missing_ok=True)  # written last: no manifest means no complete index
    write_passages(folder / PASSAGES_FILE, passages)
    build_retriever(manifest.retriever_config(), folder, passages)
    manifest.fingerprint = fingerprint(folder)
    (folder / MANIFEST_FILE).write_text(manifest.model_dump_json(indent=2) + "\n", encoding="utf-8")
    report.build_seconds = time.perf_counter() - started
    report.passages = len(passages)
    report.manifest = manifest
    return report


def _parse(file: Path, data: bytes, digest: str, mtime_ns: int, chunking: ChunkConfig,
           by_file: dict[str, list[Passage]], report: IndexReport) -> FileEntry:
    key = str(file)
    entry = FileEntry(size=len(data), mtime_ns=mtime_ns, sha256=digest)
    report.bytes_parsed += len(data)
    try:
        parsed = parse_document(file, data, chunking)
    except (DocumentError, DataError) as error:
        by_file.pop(key, None)
        report.skipped.append(str(error))
        return entry.model_copy(update={"skipped": str(error)})
    by_file[key] = parsed.passages
    report.parsed.append(key)
    report.warnings += parsed.warnings
    return entry.model_copy(update={"passages": len(parsed.passages), "warnings": parsed.warnings})


def set_trust(folder: Path, trust: list[Path], distrust: list[Path]) -> Manifest:
    """Distrust these files or folders of the index, or trust them again (every source is trusted at first)."""
    manifest = load_manifest(folder)
    if manifest is None:
        raise DataError(folder, "no index here: index documents first")
    distrusted = set(manifest.distrusted) | {str(p.resolve()) for p in distrust}
    distrusted -= {str(p.resolve()) for p in trust}
    manifest = manifest.model_copy(update={"distrusted": sorted(distrusted)})
    (folder / MANIFEST_FILE).write_text(manifest.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return manifest


def fingerprint(folder: Path) -> str:
    digest = hashlib.sha256()
    with (folder / PASSAGES_FILE).open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def open_index(ws: Workspace, name: str) -> OpenIndex:
    """The retriever over a named index, with the manifest whose fingerprint a run pins. Raises DataError if
    the index is missing, or if its passages changed without a rebuild (the fingerprint no longer matches)."""
    folder = index_dir(ws, name)
    manifest = load_manifest(folder)
    if manifest is None:
        raise DataError(folder, f"no index named {name!r} here; build it with `agentkgv index DOCS... --name {name}`")
    if fingerprint(folder) != manifest.fingerprint:
        raise DataError(folder / PASSAGES_FILE, "passages changed since the index was built; run `agentkgv index` "
                                                "on it again")
    return OpenIndex(load_retriever(manifest.retriever_config(), folder), manifest, folder)
