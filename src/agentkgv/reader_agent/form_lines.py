"""A web page's key-value lines: `Location of death: Santa Barbara, CA` gives the page's subject's place of death.

Pages state facts about their subject as lines of a key and a value (an infobox or a profile card as text, a
two-column table written as `Key | Value` rows, Markdown's `| Key | Value |` among them). The value reader, which
reads sentences, misses many of them.
A line gives a relation's value where its key is the relation's label or one of the aliases that name it alone
(`Birthplace`, `Place of Birth`, `Location of death`, `Team`), in any case. The value is the rest of the line,
less what a page adds to a value (a reference mark `[1]`, a parenthesis: `Eliot Kennedy (m. 2006–2010)`, the
next cell of a row); a line that gives none (`Unknown`) gives nothing. The line speaks of its card's subject
only, so the agent reads it for a claim where the heading above it names the claim's subject, or where the page is
about the subject (its title, or its first line where that reads as a heading, names it) and the line is under no
other card's heading: a profile of Serena Williams gives Venus no birthplace. A wiki infobox writes its
fields several to a line (`| birth_place = Wilmette, Illinois | height = …`), a key's words joined by underscores;
its `name` field, else the file name of its `image`, is its heading.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Sequence
from typing import NamedTuple

from agentkgv.data.text import FUNCTION_WORDS, folded_words

# A key (a few words, starting with a letter), a colon, bar or tab, and a value on the rest of the line; a Markdown
# table's row opens with a bar too (`| Place of birth | Pellingford |`).
_LINE = re.compile(r"^[ \t*\u2022|-]*([^\W\d_][\w ()/'.-]{0,40}?)[ *\t]*(?::|\||\t)[ *\t]*(\S[^\n]*?)[ \t\r]*$", re.M)
_ADDED = re.compile(r"\[[^\]]*\]|\([^)]*\)")
# Where a value ends within its line: the next cell of a row, a second statement.
_CELL_END = re.compile(r"\s*(?:\||\t|;)")
_LONGEST = 80  # characters: a longer rest of a line is prose, not a value
# What a card writes where it knows no value: no value to set against the claim's.
_NO_VALUE = frozenset({"unknown", "not known", "none", "n a", "na", "tba", "tbd", "various", "other"})
# A list in a line: its values apart at commas, semicolons and every "and"; the longest line read as one.
_LIST_SEPARATOR = re.compile(r"\s*[,;]\s*(?:and\s+)?|\s+and\s+")
_LIST_AT_LEAST = 2
_LONGEST_LIST = 400
_TRAILS_OFF = re.compile(r"(?:\band (?:many )?others|\betc\b|\bamong others|\.\.\.|…|\band more)\W*$", re.I)
# The event a date relation's names name, and the key a card writes its date under.
_EVENT_KEYS = (("birth", "born"), ("death", "died"))
_HEADING_WORDS = 12  # a first line longer than this is a paragraph that may name anyone, not the page's heading
# Where a line's value runs on into a second sentence: a word's stop and a capitalised word, not an initial's
# (`Samuel L. Jackson`, `St. Ives`).
_SENTENCES = re.compile(r"[a-z]{2,}[.!?]\s+[A-Z][a-z]")
# A further cell in a row's value: a table of more than two columns.
_CELLS = re.compile(r"\s\|\s|\t")
# A wiki infobox's field: a bar, a key, an equals sign and a value up to the next field.
_FIELD = re.compile(r"\|[ \t]*([^\W\d_][\w ()/'.-]{0,40}?)[ \t]*=([^|\n{}=]*)")
_INFOBOX_FIELDS = 3
_WIKI_LINK = re.compile(r"\[\[(?:[^|\]]*\|)?([^\]]*)\]\]")
# The fields that name an infobox's subject, in the order asked: its name, else its image's file name. Not its caption,
# which names whoever stands beside the subject ("Heston with his wife Lydia Clarke").
_INFOBOX_HEADINGS = {"name": "", "image": r"\.\w{3,4}$"}


def _fields(text: str, infobox: bool = True) -> list[tuple[str, str]]:
    """The (key, value) pairs of `text`'s key-value lines, then of its infobox fields (where `infobox`), each in the
    order written; a key's underscores read as spaces, its wiki links as their text."""
    return ([(m.group(1), m.group(2)) for m in _LINE.finditer(text)]
            + ([(m.group(1).replace("_", " "), m.group(2).strip()) for m in _infobox_fields(text)] if infobox else []))


def _infobox_fields(text: str) -> list[re.Match[str]]:
    """The infobox fields of `text`, its wiki links read as their text; none where fewer than `_INFOBOX_FIELDS`: one
    "| x = y" in prose is no infobox."""
    if "=" not in text:
        return []
    fields = list(_FIELD.finditer(_WIKI_LINK.sub(r"\1", text)))
    return fields if len(fields) >= _INFOBOX_FIELDS else []


def infobox_heading(text: str) -> str:
    """What names an infobox's subject: its `name` field, else its `image` less the file's extension; "" where the
    text has no infobox or neither."""
    given = {key: value for m in reversed(_infobox_fields(text))
             if (key := m.group(1).strip().lower()) in _INFOBOX_HEADINGS and (value := m.group(2).strip())}
    return next((re.sub(_INFOBOX_HEADINGS[key], "", given[key]) for key in _INFOBOX_HEADINGS if key in given), "")


def is_field(line: str) -> bool:
    """Whether `line` is a key-value line ("Birth Place: Lembrook", "Population | 19,450")."""
    return _LINE.fullmatch(line.strip("\r")) is not None


def page_heading(text: str) -> str:
    """The heading a text opens with: its first line where that reads as one (no sentence, no key-value line), less a
    Markdown heading's marks; "" where it opens with none."""
    line = first_line(text).strip().lstrip("#").strip()
    return line if line and line[-1] not in ".!?" and not is_field(line) else ""


def first_line(text: str) -> str:
    """The text's first line where it reads as a heading (a page's title, a card's name), else ""."""
    line = next((line for line in text.splitlines() if line.strip()), "")
    return line if len(line.split()) <= _HEADING_WORDS else ""


def stated_in_lines(names: Sequence[str], text: str, infobox: bool = True) -> list[str]:
    """The values `text`'s key-value lines (and its infobox's fields, where `infobox`) give where the key is one of
    `names`, in the order written."""
    found: list[str] = []
    for key, given in _fields(text, infobox):
        if not names_key(key, names) or len(given) > _LONGEST:
            continue
        value = _cleaned(_CELL_END.split(_ADDED.sub(" ", given))[0])
        if value and value not in found:
            found.append(value)
    return found


class Line(NamedTuple):
    """A key-value line: its key, its value as written, where it starts and ends in the text, and the heading above it
    ("" where none is)."""

    key: str
    value: str
    start: int
    end: int
    heading: str


def lines_of(text: str) -> list[Line]:
    """`text`'s key-value lines (not an infobox's fields), each with its heading: the nearest line before it that is
    no key-value line, no sentence and no value continuing a key that ends in a colon (`Samantha Stosur (Australia)`
    above her `Birthplace: Brisbane` on a results page's profile per player), "" where none is. A line whose value
    runs on into sentences or reads as one is prose, a row of more than two cells a table's."""
    return list(_lines_of(text))


# A turn asks each passage's lines for every claim it is read for, several times.
@functools.lru_cache(maxsize=4096)
def _lines_of(text: str) -> tuple[Line, ...]:
    starts, rows = [], []  # each line of words: where it starts, and its text
    for row in re.finditer(r"[^\n]+", text):
        if any(c.isalpha() for c in row.group(0)):
            starts.append(row.start())
            rows.append(row.group(0).strip())
    found: list[Line] = []
    for m in _LINE.finditer(text):
        key, value = m.group(1), m.group(2)
        if _prose(key, value) or _CELLS.search(value.rstrip(" |\t")):
            continue
        found.append(Line(key, value, m.start(), m.end(), _heading_above(rows[:bisect.bisect_left(starts, m.start())])))
    return tuple(found)


def several_cards(lines: Sequence[Line]) -> bool:
    """Whether `lines` are several cards': a key given under two headings. On a page of one card a heading above its
    lines may be a section's (`Personal information`), which names no one."""
    headings: dict[tuple[str, ...], set[str]] = {}
    for line in lines:
        headings.setdefault(key_words(line.key), set()).add(line.heading)
    return any(len(seen) > 1 for seen in headings.values())


def _prose(key: str, value: str) -> bool:
    """Whether a line of a key, a colon and a value is a sentence with a colon in it ("Womanlight (French: Clair de
    femme) is a 1979 film …", "Update: Orla Penhallow was born in Lembrook.")."""
    return (len(value) > _LONGEST_LIST or _SENTENCES.search(value) is not None or key.count("(") != key.count(")")
            or value.endswith((".", "!", "?")) and sum(word in FUNCTION_WORDS for word in folded_words(value)) >= 2)


def _heading_above(lines: list[str]) -> str:
    """The heading of a card whose line follows `lines` (the text's lines of words before it): the nearest that is no
    key-value line, no sentence and no value on a line of its own after a key ending in a colon; "" where that is
    none."""
    for k in range(len(lines) - 1, -1, -1):
        if is_field(lines[k]):
            continue
        if k > 0 and lines[k - 1].endswith(":"):
            continue  # `Spouse(s):` over `Tom Brown (m. 1950)`: a value, not a heading
        # A page's text run together ends the sentence before a card's heading on its line ("… franchise. Hardcore
        # Henry").
        line = re.split(r"(?<=[a-z][.!?])\s+", lines[k])[-1]
        return line if len(line.split()) <= _HEADING_WORDS and line[-1] not in ".!?" else ""
    return ""


def key_words(key: str) -> tuple[str, ...]:
    """A key's words as keys are compared: folded, without a plural's `(s)` (`Spouse(s)`)."""
    return tuple(folded_words(re.sub(r"\(s\)\s*$", "", key.strip())))


def names_key(key: str, names: Sequence[str]) -> bool:
    """Whether a line's `key` is one of `names` or its plural (`Awards`, `Spouse(s)`)."""
    return any(key_words(key) in _plurals(tuple(folded_words(name))) for name in names)


def date_keys(names: Sequence[str]) -> tuple[str, ...]:
    """`names` (a date relation's label and aliases) with the key a card gives the date of the event they name
    under: `Born: 14 May 1958` is a date of birth, `Died: 9-Jan-1990` a date of death. Only where a date is asked:
    `Born: Tessaby` gives a place."""
    words = {word for name in names for word in folded_words(name)}
    return (*names, *(key for event, key in _EVENT_KEYS if event in words))


def listed_in_lines(names: Sequence[str], text: str) -> list[list[str]]:
    """The lists `text`'s key-value lines give in full where the key is one of `names` or its plural (`Starring:
    Sam Shepard, Scott Glenn and Ed Harris`, `Spouse(s): …`, `Awards: …`): each line's values, where it gives
    `_LIST_AT_LEAST` or more and does not trail off (`and others`, `etc.`, `…`). A line of one value of a relation
    with several is the current one as often as the only one (`Team: Charlotte Bobcats`), so no list."""
    return [values for values, _, trails in _lists_in_lines(names, text) if not trails]


def in_line_lists(names: Sequence[str], text: str, value: str) -> bool:
    """Whether `value` is written within a list a key-value line of `text` gives, in full or trailing off, where the
    key is one of `names` or its plural (one of its values, or the line's run of them): the list, not the value alone,
    says what the page holds of the relation."""
    folded = tuple(folded_words(value))
    for _, row, _ in _lists_in_lines(names, text):
        words = tuple(folded_words(row))
        if folded and any(words[k:k + len(folded)] == folded for k in range(len(words) - len(folded) + 1)):
            return True
    return False


def _lists_in_lines(names: Sequence[str], text: str) -> list[tuple[list[str], str, bool]]:
    """The lists of `_LIST_AT_LEAST` or more values `text`'s key-value lines give where the key is one of `names` or
    its plural, each with the row as written and whether it trails off."""
    lists: list[tuple[list[str], str, bool]] = []
    for key, given in _fields(text):
        if not names_key(key, names) or len(given) > _LONGEST_LIST:
            continue
        row = re.split(r"\s*\|\s*|\t", _ADDED.sub(" ", given))[0]
        trails = bool(_TRAILS_OFF.search(row))
        values = [value for part in _LIST_SEPARATOR.split(_TRAILS_OFF.sub("", row)) if (value := _cleaned(part))]
        if len(values) >= _LIST_AT_LEAST and all((values, trails) != (listed, off) for listed, _, off in lists):
            lists.append((values, row, trails))
    return lists


def _cleaned(value: str) -> str:
    """A value as a line writes it, less spacing and stray marks; "" where it is no value (`Unknown`)."""
    value = re.sub(r"\s+", " ", value).strip(" ,;.*'\"")
    return "" if " ".join(folded_words(value)) in _NO_VALUE else value


def _plurals(words: tuple[str, ...]) -> set[tuple[str, ...]]:
    """A key's words and its plural's: `award`, `awards`; `subsidiary`, `subsidiaries`."""
    if not words:
        return set()
    last = words[-1]
    plural = last[:-1] + "ies" if last.endswith("y") and last[-2:-1] not in ("a", "e", "o", "u") else last + "s"
    return {words, words[:-1] + (plural,)}
