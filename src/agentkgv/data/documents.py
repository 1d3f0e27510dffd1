"""A user's own documents as passages: plain text, Markdown, HTML, PDF and JSONL/CSV/TSV passage tables.

Each document is read into titled sections (a Markdown or HTML heading, a PDF page, a table row), and
each section is cut into passages of whole sentences with a few words of overlap, so a fact stated
across a cut is still whole in one passage. Passage ids are hashes of the text, stable across rebuilds.

A passage's title is the heading its document gives it, or none: the value reader reads "title: text", and a
file name or a page number there kept it from finding a stated value (the evidence readers add the file's name
back, `reader_agent/reader.judged_title`). Where it came from is the passage's source, `doc:<path>`, with
`#page=N` for a PDF's page.

A document that cannot be read (binary, broken PDF, no text) raises DocumentError and is skipped by the
indexer, which reports it; a bad row of a passage table is skipped with its line named.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from agentkgv.data.errors import DataError
from agentkgv.data.factbench import chunk_text
from agentkgv.data.jsonl import decoded_lines, raise_field_limit, read_jsonl
from agentkgv.data.records import Passage
from agentkgv.data.tekgen import repair_mojibake
from agentkgv.data.text import page_title

TEXT_SUFFIXES = frozenset({".txt", ".text"})
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})
HTML_SUFFIXES = frozenset({".html", ".htm"})
TABLE_SUFFIXES = frozenset({".jsonl", ".csv", ".tsv"})
SUPPORTED_SUFFIXES = TEXT_SUFFIXES | MARKDOWN_SUFFIXES | HTML_SUFFIXES | TABLE_SUFFIXES | {".pdf"}
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_BLOCKS = ("p", "div", "li", "br", "tr", "td", "th", "section", "article", "blockquote", "pre", "dd", "dt",
           "table", "ul", "ol", "header", "footer", "main", "aside", "figcaption", *_HEADINGS)
_NOT_TEXT = ("script", "style", "noscript", "template", "svg", "head")
_SPACES = re.compile(r"[ \t\r\f\v]+")


class ChunkConfig(BaseModel):
    """How documents are cut; stored in an index's manifest, since passages cut otherwise are other passages."""

    model_config = ConfigDict(extra="forbid")

    words_per_passage: int = Field(120, ge=10)
    overlap_words: int = Field(20, ge=0)


class DocumentError(DataError):
    """A document that yields nothing to index; the indexer skips it and reports why."""


@dataclass(frozen=True, slots=True)
class Section:
    heading: str
    text: str
    page: int | None = None  # a PDF's page, kept in the source as `#page=N` (RFC 8118)


@dataclass(slots=True)
class ParsedDocument:
    passages: list[Passage]
    warnings: list[str] = field(default_factory=list)


def discover(paths: list[Path]) -> Iterator[Path]:
    """Each file named, and every supported file under each folder named (hidden ones left out), once, in
    a stable order. A path that does not exist raises DataError: a typo must not index nothing silently."""
    seen: set[Path] = set()
    for path in paths:
        if not path.exists():
            raise DataError(path, "no such file or folder")
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SUPPORTED_SUFFIXES
                           and not any(part.startswith(".") for part in p.relative_to(path).parts))
        elif not path.is_file():
            raise DataError(path, "not a regular file (a pipe or a device): give files or folders of documents")
        else:
            found = [path]  # an unsupported one is then reported by parse_document, not passed over
        for file in found:
            if file.resolve() not in seen:
                seen.add(file.resolve())
                yield file


def parse_document(path: Path, data: bytes, config: ChunkConfig) -> ParsedDocument:
    """The passages of one document (its bytes already read, so the caller hashes what it parsed)."""
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise DocumentError(path, f"unsupported document type {suffix or '(no suffix)'!r}; supported: "
                                  + " ".join(sorted(SUPPORTED_SUFFIXES)))
    warnings: list[str] = []
    if suffix in TABLE_SUFFIXES:
        passages = list(_table_passages(path, config, warnings))
    else:
        if suffix == ".pdf":
            sections = _pdf_sections(path, data)
        else:
            text = _decode(path, data, warnings)
            if suffix in MARKDOWN_SUFFIXES:
                sections = _markdown_sections(text)
            elif suffix in HTML_SUFFIXES:
                sections = _html_sections(text, path)
            else:
                sections = _text_sections(text)
        passages = [passage for section in sections for passage in _section_passages(path, section, config)]
    if not passages:
        raise DocumentError(path, "no text to index (empty document)")
    return ParsedDocument(passages, warnings)


def _decode(path: Path, data: bytes, warnings: list[str]) -> str:
    if b"\x00" in data[:8192]:
        raise DocumentError(path, "binary file, not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        # Web pages saved in a legacy encoding still hold mostly readable text; keep it, and say so.
        line = data[:error.start].count(b"\n") + 1
        warnings.append(f"{path}:{line}: not UTF-8 (byte 0x{data[error.start]:02x}); undecodable bytes replaced")
        return repair_mojibake(data.decode("utf-8", errors="replace"))


def _text_sections(text: str) -> list[Section]:
    text = repair_mojibake(text).strip()
    return [Section(page_title(text), text)] if text else []


def _markdown_sections(text: str) -> list[Section]:
    """Markdown rendered to HTML by markdown-it-py, so headings, lists and emphasis are read by one parser."""
    from markdown_it import MarkdownIt

    return _html_sections(MarkdownIt("commonmark").render(text))


# Deeper than any page a person writes; the HTML parser's time grows with the square of the depth (100,000
# nested <div>s ran for over five minutes), so a page nested deeper is skipped with its reason.
MAX_HTML_DEPTH = 2_000
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)[^>]*?(/?)>")
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr",
                   "p", "li", "td", "tr", "th", "option"})  # void, or closed implicitly often enough


def html_depth(html: str) -> int:
    """How deep a page's elements nest, counted in one pass over its tags."""
    depth = deepest = 0
    for closing, name, self_closing in _TAG.findall(html):
        if name.lower() in _VOID or self_closing:
            continue
        depth = max(0, depth - 1) if closing else depth + 1
        deepest = max(deepest, depth)
    return deepest


def _html_sections(html: str, path: Path | None = None) -> list[Section]:
    """Visible text of the page, one section per heading; the <title> heads the text before the first."""
    from bs4 import BeautifulSoup

    depth = html_depth(html)
    if depth > MAX_HTML_DEPTH:
        raise DocumentError(path or "page", f"HTML nested {depth} elements deep (over {MAX_HTML_DEPTH}): not a page "
                                            "to read; skipped")
    soup = BeautifulSoup(html, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for tag in soup.find_all(_NOT_TEXT):
        tag.decompose()
    for tag in soup.find_all(_BLOCKS):
        tag.insert_after("\n")
    sections: list[Section] = []
    heading, parts = title, []

    def close() -> None:
        text = _clean("".join(parts))
        if text:
            sections.append(Section(heading, text))

    root = soup.body or soup
    for node in root.descendants:
        if getattr(node, "name", None) in _HEADINGS:
            close()
            heading, parts = node.get_text(" ", strip=True), []
        elif isinstance(node, str) and not any(getattr(p, "name", None) in _HEADINGS for p in node.parents):
            parts.append(str(node))
    close()
    return sections


def _clean(text: str) -> str:
    lines = (_SPACES.sub(" ", line).strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line)


def _pdf_sections(path: Path, data: bytes) -> list[Section]:
    from io import BytesIO

    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(BytesIO(data))
        if reader.is_encrypted:
            raise DocumentError(path, "encrypted PDF")
        pages = [page.extract_text() or "" for page in reader.pages]
        title = str(reader.metadata.title or "").strip() if reader.metadata else ""
        # A PDF's title field is often its maker's ("Microsoft Word - report.docx", "untitled"): kept only where
        # the document writes it too.
        if title and title.casefold() not in " ".join(pages).casefold():
            title = ""
    except DocumentError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError) as error:  # pypdf raises these on broken files
        raise DocumentError(path, f"unreadable PDF ({error})") from None
    sections = [Section(title, _clean(text), number) for number, text in enumerate(pages, start=1)]
    sections = [section for section in sections if section.text]
    if not sections:
        raise DocumentError(path, "PDF has no extractable text (a scan needs OCR first)")
    return sections


def _table_passages(path: Path, config: ChunkConfig, warnings: list[str]) -> Iterator[Passage]:
    """Rows with a `text` column (optional `id`, `title`): a user's own passages, kept as they are."""
    for line, row in _table_rows(path, warnings):
        text = str(row.get("text") or "").strip()
        if not text:
            warnings.append(str(DataError(path, "missing or empty; row skipped", line, "text")))
            continue
        title = str(row.get("title") or "").strip()
        if row.get("id"):
            yield Passage(id=str(row["id"]), text=text, title=title, source=_source(path))
        else:
            yield from _section_passages(path, Section(title, text), config)


def _table_rows(path: Path, warnings: list[str]) -> Iterator[tuple[int, dict]]:
    if path.suffix.lower() == ".jsonl":
        for line, record in read_jsonl(path, on_error=lambda error: warnings.append(f"{error}; row skipped")):
            if isinstance(record, dict):
                yield line, record
            else:
                warnings.append(str(DataError(path, "expected a JSON object; row skipped", line)))
        return
    raise_field_limit()
    lines = decoded_lines(path, on_error=lambda error: warnings.append(f"{error}; row skipped"))
    reader = csv.DictReader(lines, delimiter="\t" if path.suffix.lower() == ".tsv" else ",")
    if "text" not in [name.strip() for name in reader.fieldnames or []]:
        raise DocumentError(path, "passage table has no 'text' column", 1)
    for row in reader:
        yield reader.line_num, {(key or "").strip(): value for key, value in row.items()}


def _source(path: Path, page: int | None = None) -> str:
    return f"doc:{path}" if page is None else f"doc:{path}#page={page}"


_PAGE = re.compile(r"#page=\d+$")


def document_path(source: str) -> str:
    """The file a user document's passage came from, by its source (`doc:<path>`, `#page=N` for a PDF's)."""
    return _PAGE.sub("", source.removeprefix("doc:"))


def _section_passages(path: Path, section: Section, config: ChunkConfig) -> list[Passage]:
    """Chunks of whole sentences; each after the first starts with the last `overlap_words` of the one before."""
    step = max(10, config.words_per_passage - config.overlap_words)
    chunks = chunk_text(section.text, step)
    passages = []
    for index, chunk in enumerate(chunks):
        text = chunk
        if index and config.overlap_words:
            text = " ".join(chunks[index - 1].split()[-config.overlap_words:]) + " " + chunk
        passages.append(Passage(id=Passage.make_id(_source(path), text), text=text, title=section.heading,
                                source=_source(path, section.page)))
    return passages
