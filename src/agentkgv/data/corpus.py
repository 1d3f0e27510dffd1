"""The retrieval corpus: every T-REx evidence sentence plus the other sources' text as distractors.

Every LAMA evidence sentence of every relation is in, so each benchmark triple's gold evidence is
findable; REBEL and T-REx abstracts, TekGen and FewRel sentences, Re-DocRED documents and the FactBench
web pages add text the retriever must rank below it. Passages are deduplicated by text, the first
source winning, so LAMA sentences keep the ids the benchmark's gold ids point to.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

from agentkgv.data.factbench import chunk_text, iter_factbench_passages
from agentkgv.data.fewrel import iter_fewrel
from agentkgv.data.lama import iter_evidence_facts, relations_with_evidence
from agentkgv.data.passage_file import read_passages, write_passages
from agentkgv.data.records import Passage
from agentkgv.data.redocred import iter_redocred_documents
from agentkgv.data.settings import Settings
from agentkgv.data.tekgen import iter_tekgen_sentences
from agentkgv.data.trex_json import Document, iter_trex_documents

SOURCES = ("lama_trex", "rebel", "trex_format", "tekgen", "fewrel", "redocred", "factbench")


class CorpusConfig(Settings):
    sources: list[str] = list(SOURCES)
    words_per_passage: int = 100
    # Caps a distractor source (LAMA evidence is never capped): keeps a quick demo corpus small.
    max_passages_per_source: int | None = None


def _lama(data_dir: Path) -> Iterator[Passage]:
    for relation in relations_with_evidence(data_dir):
        for fact in iter_evidence_facts(data_dir, relation):
            for sentence in fact.evidences:
                yield Passage(Passage.make_id(fact.source, sentence), sentence, "", fact.source)


def _documents(documents: Iterator[Document], words: int) -> Iterator[Passage]:
    for document in documents:
        for chunk in chunk_text(document.text, words):
            yield Passage(Passage.make_id(document.source, chunk), chunk, document.title, document.source)


def _fewrel(data_dir: Path) -> Iterator[Passage]:
    for fact in iter_fewrel(data_dir):
        for sentence in fact.evidences:
            yield Passage(Passage.make_id(fact.source, sentence), sentence, "", fact.source)


def _readers(data_dir: Path, words: int) -> dict[str, Callable[[], Iterator[Passage]]]:
    return {
        "lama_trex": lambda: _lama(data_dir),
        "rebel": lambda: _documents(iter_trex_documents(data_dir / "rebel" / "sample.jsonl", "rebel"), words),
        "trex_format": lambda: _documents(
            iter_trex_documents(data_dir / "trex_format" / "sample-output.json", "trex_format"), words),
        "tekgen": lambda: iter_tekgen_sentences(data_dir),
        "fewrel": lambda: _fewrel(data_dir),
        "redocred": lambda: _documents(iter_redocred_documents(data_dir), words),
        "factbench": lambda: iter_factbench_passages(data_dir, words),
    }


def iter_corpus(data_dir: Path, config: CorpusConfig) -> Iterator[Passage]:
    unknown = sorted(set(config.sources) - set(SOURCES))
    if unknown:
        raise ValueError(f"unknown corpus sources {unknown}; choose from {list(SOURCES)}")
    readers = _readers(data_dir, config.words_per_passage)
    seen: set[str] = set()
    for source in SOURCES:  # fixed order: LAMA first so its ids win deduplication
        if source not in config.sources:
            continue
        cap = None if source == "lama_trex" else config.max_passages_per_source
        kept = 0
        for passage in readers[source]():
            text_key = " ".join(passage.text.split())
            if not text_key or text_key in seen:
                continue
            seen.add(text_key)
            yield passage
            kept += 1
            if cap is not None and kept >= cap:
                break


def build_corpus(data_dir: Path, out_path: Path, config: CorpusConfig,
                 progress: Callable[[int], None] = lambda count: None) -> Counter:
    """Write the corpus as JSONL; returns passages per source family."""
    counts: Counter = Counter()

    def counted():
        for total, passage in enumerate(iter_corpus(data_dir, config), start=1):
            counts[passage.source.split(":")[0]] += 1
            if total % 5000 == 0:
                progress(total)
            yield passage

    write_passages(out_path, counted())
    return counts


def load_corpus(path: Path) -> list[Passage]:
    return read_passages(path)
