"""Named indexes over a user's own documents: build, add to, mark trust in, and open one for a run.

An index folder holds generations, each a complete index: `gen-000003/` with `manifest.json` (every file
taken in: its path, size, modification time, content hash and passage count, or why it was skipped; the
sources distrusted; the fingerprint), `passages.jsonl` (all passages, grouped by file) and the retriever's
own folders. `CURRENT` names the live generation. Adding files parses only files that are new or whose
content changed; the passages of the others are taken from the live generation, never re-read from the
documents. The retriever is then rebuilt over all passages (BM25 takes seconds; dense re-embeds them).

Why an update never loses a document or a trust mark:
- one writer: `index.lock` (filelock) is held for the whole update, so two `index` runs never interleave;
  `writer.json` says who holds it, for the message a second writer shows;
- a new state is built beside the live one, in `gen-N.partial/`, and published by two renames: the
  finished folder to `gen-N/`, then a new `CURRENT` over the old one (`os.replace`, atomic on POSIX within a
  filesystem). A kill before the second rename leaves `CURRENT` naming the old generation, whole; the next
  writer deletes the leftover `*.partial` folders, which only a writer holding the lock makes. Files are
  fsynced before each rename, so the switch never points at data still in the page cache;
- a generation's files are never changed once it is published: a reader that opened it keeps reading it,
  and a trust change or a touched file makes a new generation whose unchanged files are hard links;
- the manifest, trust marks included, is written into every generation, so no rebuild drops them.
The writer keeps the live generation and the one before it (a run that opened that one while the update
ran still finds it) and deletes older ones.

The fingerprint hashes the passages with the settings and trust marks that decide what a run reads: a
verification run pins it, so resuming a run against an index whose contents or trust changed is refused.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from agentkgv.data.documents import ChunkConfig, DocumentError, discover, document_path, parse_document
from agentkgv.data.errors import DataError
from agentkgv.data.jsonl import read_json
from agentkgv.data.passage_file import read_passages, write_passages
from agentkgv.data.records import Passage
from agentkgv.encoders import DEFAULT_EMBEDDING_MODEL
from agentkgv.paths import CACHE_TAG, Workspace, check_name
from agentkgv.retrieval.base import Retriever
from agentkgv.retrieval.factory import RetrieverConfig, build_retriever, load_retriever
from agentkgv.retrieval.guard import DistrustedSource
from agentkgv.retrieval.index_generations import MANIFEST_FILE, PARTIAL, discard_leftovers, link_tree, next_generation, prune, publish, live_generation, writer_lock

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
    # The files reached through a link under a distrusted folder, where they resolve to: a mark follows the
    # text, not the path it was reached by. Recomputed at every update from the marks above.
    distrusted_targets: list[str] = []
    # What a run over this index makes of a triple its documents do not state (`index --absence`): "unknown",
    # for documents that need not state every true triple, or "false", for documents said to state them all.
    absence: Literal["false", "unknown"] = "unknown"

    def retriever_config(self) -> RetrieverConfig:
        return RetrieverConfig(kind=self.kind, embedding_model=self.embedding_model, index=self.name,
                               distrust=tuple(self.distrusted + self.distrusted_targets))

    @property
    def passages(self) -> int:
        return sum(entry.passages for entry in self.files.values())


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
    generation: str = ""  # the generation folder now live
    discarded: list[str] = field(default_factory=list)  # leftovers of a killed update, deleted


@dataclass(frozen=True)
class OpenIndex:
    retriever: Retriever
    manifest: Manifest
    index_dir: Path  # the generation folder opened: it stays whole while this run reads it

    def identity(self) -> dict[str, str]:
        """What a verification run pins about its evidence: what it holds, not where it lies, so a moved
        cache folder still resumes."""
        return {"name": self.manifest.name, "fingerprint": self.manifest.fingerprint}


def index_dir(ws: Workspace, name: str) -> Path:
    """A bare name lives under the cache (`<cache>/indexes/NAME`); anything with a slash is a folder path."""
    if "/" in name or name.startswith("."):
        return Path(name)
    return ws.cache / "indexes" / check_name(name, "an index", " (or give a folder path)")


def _read_manifest(generation: Path) -> Manifest:
    path = generation / MANIFEST_FILE
    try:
        return Manifest.model_validate(read_json(path))
    except ValueError as error:
        raise DataError(path, f"not an index manifest ({error})") from None


def load_manifest(folder: Path) -> Manifest | None:
    """The live generation's manifest; None where the folder holds no index."""
    generation = live_generation(folder)
    return None if generation is None else _read_manifest(generation)


def fingerprint(generation: Path, manifest: Manifest) -> str:
    """The passages' bytes with what decides how a run reads them: the retriever and the trust marks."""
    digest = hashlib.sha256()
    with (generation / PASSAGES_FILE).open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    digest.update(json.dumps([manifest.kind, manifest.embedding_model, sorted(manifest.distrusted),
                              manifest.absence]).encode())
    return digest.hexdigest()[:16]


def update_index(folder: Path, documents: list[Path] = (), trust: list[Path] = (), distrust: list[Path] = (),
                 kind: str | None = None, embedding_model: str | None = None, chunking: ChunkConfig | None = None,
                 progress: Callable[[int, int], None] = lambda done, total: None, wait: bool = True,
                 on_wait: Callable[[str], None] = lambda holder: None,
                 on_step: Callable[[str], None] = lambda step: None, absence: str | None = None) -> IndexReport:
    """Create the index or update it as one writer: add `documents` (files and folders; only new or changed
    files are parsed), then distrust or trust again the sources named, and set what a run makes of a triple
    the documents do not state (`absence`); publish the result as a new generation. `progress(bytes done,
    bytes total)` follows the parsing, `on_step` names each later step."""
    if absence not in (None, "false", "unknown"):
        raise DataError("--absence", f"'false' or 'unknown', not {absence!r}")
    with writer_lock(folder, wait, on_wait):
        discarded = discard_leftovers(folder)
        live = live_generation(folder)
        stored = _read_manifest(live) if live is not None else None
        if stored is None and not documents:  # a trust mark or a setting needs documents to apply to
            raise DataError(folder, "no index here: index documents first")
        manifest = stored or Manifest(name=folder.name)
        if chunking is not None and manifest.files and chunking != manifest.chunking:
            raise DataError(folder, f"index was cut with {manifest.chunking.model_dump()}; documents cut otherwise "
                                    "would mix two passage sizes: build a new index for new settings")
        updates = {key: value for key, value in {"kind": kind, "embedding_model": embedding_model,
                                                 "chunking": chunking, "absence": absence}.items() if value is not None}
        manifest = manifest.model_copy(update=updates, deep=True)
        report = IndexReport(folder, manifest, discarded=discarded)
        by_file: dict[str, list[Passage]] = {}
        if live is not None:
            for passage in read_passages(live / PASSAGES_FILE):
                by_file.setdefault(document_path(passage.source), []).append(passage)
        _take_in(documents, manifest, by_file, report, progress, on_step)
        distrusted = set(manifest.distrusted) | {str(p.resolve()) for p in distrust}
        manifest.distrusted = sorted(distrusted - {str(p.resolve()) for p in trust})
        manifest.distrusted_targets = linked_out(manifest.distrusted, manifest.files)
        same_passages = stored is not None and not report.parsed and not report.skipped and (
            stored.kind, stored.embedding_model) == (manifest.kind, manifest.embedding_model)
        report.passages = manifest.passages
        if same_passages and manifest == stored:  # nothing changed: no new generation
            report.generation = live.name
            return report
        started = time.perf_counter()
        partial = folder / f"{next_generation(folder)}{PARTIAL}"
        partial.mkdir()
        if same_passages:  # only trust marks or modification times changed: the built files are reused
            link_tree(live, partial, skip={MANIFEST_FILE})
        else:
            passages = _unique_ids([passage for key in sorted(by_file) for passage in by_file[key]], report)
            if not passages:
                shutil.rmtree(partial)
                raise DataError(folder, "no passages to index: every document was empty or unreadable "
                                        + "; ".join(report.skipped[:3]))
            on_step("writing passages")
            write_passages(partial / PASSAGES_FILE, passages)
            on_step(f"building the {manifest.kind} index")
            build_retriever(manifest.retriever_config(), partial, passages)
        on_step("writing the manifest")
        manifest.fingerprint = fingerprint(partial, manifest)
        (partial / MANIFEST_FILE).write_text(manifest.model_dump_json(indent=2) + "\n", encoding="utf-8")
        on_step("switching to the new generation")
        report.generation = publish(folder, partial)
        prune(folder, keep={report.generation, live.name if live is not None else ""})
        report.build_seconds = time.perf_counter() - started
        report.manifest = manifest
        return report


def _derived(file: Path) -> bool:
    """A file of an index (a generation holds a manifest beside its passages) or of an AgentKGV cache: never a
    document, whoever's index it is."""
    for parent in file.resolve().parents:
        if (parent / MANIFEST_FILE).is_file() and (parent / PASSAGES_FILE).is_file():
            return True
        if (parent / CACHE_TAG).is_file():
            return True
    return False


def linked_out(marks: list[str], files: dict[str, FileEntry]) -> list[str]:
    """The indexed files that a link under one of the folders `marks` resolves to, outside every mark."""
    guard = DistrustedSource(tuple(marks))
    targets = set()
    for mark in map(Path, marks):
        if mark.is_dir():
            for file in discover([mark]):
                target = str(file.resolve())
                if target in files and not guard.covers(target):
                    targets.add(target)
    return sorted(targets)


def _unique_ids(passages: list[Passage], report: IndexReport) -> list[Passage]:
    """Passages with ids unique in the index: a repeated id (two users' tables numbering rows 1, 2, ...)
    gets its source's hash appended, so neither passage is dropped; said once."""
    seen: set[str] = set()
    unique, renamed = [], 0
    for passage in passages:
        if passage.id in seen:
            renamed += 1
            suffix = hashlib.sha256(passage.source.encode()).hexdigest()[:8]
            passage, n = replace(passage, id=f"{passage.id}@{suffix}"), 1
            while passage.id in seen:  # a repeat within one source
                n += 1
                passage = replace(passage, id=f"{passage.id.rsplit('#', 1)[0]}#{n}")
        seen.add(passage.id)
        unique.append(passage)
    if renamed:
        report.warnings.append(f"{renamed} passages shared an id with another (a table's own ids): each kept, "
                               "renamed `<id>@<source hash>`")
    return unique


def _take_in(documents: list[Path], manifest: Manifest, by_file: dict[str, list[Passage]], report: IndexReport,
             progress: Callable[[int, int], None], on_step: Callable[[str], None]) -> None:
    files = [file for file in discover(list(documents)) if not _derived(file)]
    if files:
        on_step(f"reading {len(files)} files")
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
                manifest.files[key] = _parse(file.resolve(), data, digest, stat.st_mtime_ns, manifest.chunking,
                                             by_file, report)
        done += sizes[file]
        progress(done, total)
    report.parse_seconds = time.perf_counter() - started


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


def open_index(ws: Workspace, name: str) -> OpenIndex:
    """The retriever over a named index's live generation, with the manifest whose fingerprint a run pins.
    An update running meanwhile does not disturb it: this run keeps the generation it opened. Raises
    DataError if the index is missing, or if its passages changed without a rebuild."""
    folder = index_dir(ws, name)
    attempts = 3
    while True:
        generation = live_generation(folder)
        if generation is None:
            raise DataError(folder, f"no index named {name!r} here; build it with `agentkgv index DOCS... --name {name}`")
        try:
            return _open_generation(generation)
        except Exception:
            # Two updates finished while this run opened the generation, and the second is pruning it: open
            # the live one instead. The same generation failing again is a real fault.
            attempts -= 1
            if attempts == 0 or live_generation(folder) == generation:
                raise


def _open_generation(generation: Path) -> OpenIndex:
    manifest = _read_manifest(generation)
    if fingerprint(generation, manifest) != manifest.fingerprint:
        raise DataError(generation / PASSAGES_FILE, "passages changed since the index was built; run "
                                                    "`agentkgv index` on it again")
    return OpenIndex(load_retriever(manifest.retriever_config(), generation), manifest, generation)
