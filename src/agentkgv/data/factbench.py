"""FactBench (from the FactCheck benchmark): 12,060 DBpedia facts, 1,500 true and 10,560 false.

`factbench/kg.json` maps a fact id to `[[subject, predicate, object], [start date, end date]]`,
`gt.json` maps it to 1 (true) or 0 (false). The false facts are made from true ones by swapping a part
(`wrong_range_*`, `wrong_domain_*`, ...). For 400 facts `docs/<fact id>/<n>.txt` holds the web pages
gathered as their evidence, about ten each; some pages are mojibake, some repeat within or across facts.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from agentkgv.data.errors import DataError
from agentkgv.data.jsonl import read_json
from agentkgv.data.rdf_graphs import predicate_words
from agentkgv.data.records import Example, LabeledTriple, Passage, Triple
from agentkgv.data.tekgen import repair_mojibake
from agentkgv.data.text import page_title
from agentkgv.data.trex_json import split_sentences

ROOT = Path("factbench")
# The 400 facts that come with their own web documents, as an evaluation split: real extraction-style
# errors (the object of another relation of the subject), never trained on.
DOCS_SPLIT = "factbench_docs"


def iter_factbench(data_dir: Path) -> Iterator[LabeledTriple]:
    """Every fact with its gold label; the predicate as words (`death place`), its DBpedia name as id."""
    kg_path, gt_path = data_dir / ROOT / "kg.json", data_dir / ROOT / "gt.json"
    facts, labels = read_json(kg_path), read_json(gt_path)
    for path, value in ((kg_path, facts), (gt_path, labels)):
        if not isinstance(value, dict):
            raise DataError(path, f"expected an object keyed by fact id, got {type(value).__name__}")
    for fact_id, value in facts.items():
        spo = value[0] if isinstance(value, list) and value else None
        if not isinstance(spo, list) or len(spo) != 3 or not all(isinstance(x, str) and x for x in spo):
            raise DataError(kg_path, "expected [[subject, predicate, object], dates]", field=fact_id)
        if labels.get(fact_id) not in (0, 1):
            raise DataError(gt_path, f"expected 1 or 0, got {labels.get(fact_id)!r}", field=fact_id)
        subject, predicate, obj = spo
        yield LabeledTriple(
            id=fact_id,
            triple=Triple(
                subject=subject, predicate=predicate_words(predicate), object=obj, predicate_id=predicate
            ),
            label=labels[fact_id] == 1,
            source="factbench",
        )


def factbench_kind(fact_id: str) -> str:
    """What FactBench made a fact as, from its id: `correct`, or the false kinds `domain`, `range`,
    `domainrange`, `property` and `random` (`wrong_mix_property_death_00012`); `other` for another id."""
    parts = fact_id.split("_")
    if parts[0] == "correct":
        return "correct"
    return parts[2] if len(parts) > 3 and parts[:2] == ["wrong", "mix"] else "other"


def factbench_docs_examples(data_dir: Path) -> list[Example]:
    """The facts with a documents folder, as benchmark examples (their pages are in the corpus)."""
    base = data_dir / ROOT / "docs"
    if not base.is_dir():
        raise DataError(base, "FactBench documents folder not found (is the data folder set right?)")
    with_docs = {p.name for p in base.iterdir() if p.is_dir()}
    return [Example(item.id, item.triple, bool(item.label), DOCS_SPLIT, "factbench")
            for item in iter_factbench(data_dir) if item.id in with_docs]


def iter_factbench_passages(data_dir: Path, words_per_passage: int = 120) -> Iterator[Passage]:
    """The evidence pages cut into passages of about `words_per_passage` words, source `factbench:<fact id>`.

    A page gathered for several facts is yielded once per fact, with the same passage ids: an index keeps
    one copy, while each fact can still find its own gold passages by source.
    """
    base = data_dir / ROOT / "docs"
    if not base.is_dir():
        raise DataError(base, "FactBench documents folder not found (is the data folder set right?)")
    for fact_dir in sorted(p for p in base.iterdir() if p.is_dir()):
        source = f"factbench:{fact_dir.name}"
        seen: set[str] = set()
        for path in sorted(fact_dir.glob("*.txt"), key=_page_order):
            text = repair_mojibake(path.read_bytes().decode("utf-8", errors="replace")).strip()
            if not text:
                continue
            # The benchmark's corpus keeps the file name where a page has no title line: without it the reader
            # supports more co-mentions of the wrong triples (BENCHMARKS.md, the user index's titles).
            title = page_title(text) or path.name
            for chunk in chunk_text(text, words_per_passage):
                passage_id = Passage.make_id(source, chunk)
                if passage_id not in seen:
                    seen.add(passage_id)
                    yield Passage(id=passage_id, text=chunk, title=title, source=source)


def chunk_text(text: str, words_per_passage: int) -> list[str]:
    """Pack whole sentences into chunks of at most `words_per_passage` words, closing a chunk early at a
    paragraph end once it is half full. A sentence longer than a chunk is cut between words; a last
    chunk under a quarter full (a page's "See also", "Share this") joins the one before."""
    if words_per_passage < 1:
        raise ValueError("words_per_passage must be at least 1")
    chunks: list[str] = []
    paragraphs: list[list[str]] = []  # the chunk being built, as paragraphs of sentences
    count = 0

    def render() -> str:
        return "\n".join(" ".join(sentences) for sentences in paragraphs if sentences)

    for paragraph in text.splitlines():
        words = paragraph.split()
        if not words:
            continue
        paragraphs.append([])
        # Only a paragraph that does not fit is split into sentences (the costly part).
        units = [paragraph] if count + len(words) <= words_per_passage else split_sentences(paragraph)
        for unit in units:
            unit_words = unit.split()
            for start in range(0, len(unit_words), words_per_passage):
                piece = unit_words[start : start + words_per_passage]
                if count + len(piece) > words_per_passage:
                    chunks.append(render())
                    paragraphs, count = [[]], 0
                paragraphs[-1].append(" ".join(piece))
                count += len(piece)
        if count * 2 >= words_per_passage:
            chunks.append(render())
            paragraphs, count = [], 0
    if count:
        if chunks and count * 4 < words_per_passage:
            chunks[-1] += "\n" + render()
        else:
            chunks.append(render())
    return chunks


def _page_order(path: Path) -> tuple[int, str]:
    # Pages are numbered: 2.txt before 10.txt.
    return (int(path.stem), path.name) if path.stem.isdigit() else (1 << 62, path.name)
