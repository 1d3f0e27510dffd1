"""A web page's key-value lines: `Location of death: Santa Barbara, CA` gives the page's subject's place of death.

Pages state facts about their subject as lines of a key and a value (an infobox or a profile card as text, a
two-column table written as `Key | Value` rows). The value reader, which reads sentences, misses many of them.
A line gives a relation's value where its key is the relation's label or one of the aliases that name it alone
(`Birthplace`, `Place of Birth`, `Location of death`, `Team`), in any case. The value is the rest of the line,
less what a page adds to a value (a reference mark `[1]`, a parenthesis: `Eliot Kennedy (m. 2006–2010)`, the
next cell of a row); a line that gives none (`Unknown`) gives nothing. The line speaks of the page's subject
only, so the agent reads it for a claim only where the passage's title, or its first line where that reads as a
heading, names the claim's subject: a profile of Serena Williams gives Venus no birthplace.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agentkgv.data.text import folded_words

# A key (a few words, starting with a letter), a colon, bar or tab, and a value on the rest of the line.
_LINE = re.compile(r"^[ \t*\u2022-]*([^\W\d_][\w ()/'.-]{0,40}?)[ *\t]*(?::|\||\t)[ *\t]*(\S[^\n]*?)[ \t\r]*$", re.M)
_ADDED = re.compile(r"\[[^\]]*\]|\([^)]*\)")
# Where a value ends within its line: the next cell of a row, a second statement.
_CELL_END = re.compile(r"\s*(?:\||\t|;)")
_LONGEST = 80  # characters: a longer rest of a line is prose, not a value
# What a card writes where it knows no value: no value to set against the claim's.
_NO_VALUE = frozenset({"unknown", "not known", "none", "n a", "na", "tba", "tbd", "various", "other"})
_HEADING_WORDS = 12  # a first line longer than this is a paragraph that may name anyone, not the page's heading


def first_line(text: str) -> str:
    """The text's first line where it reads as a heading (a page's title, a card's name), else ""."""
    line = next((line for line in text.splitlines() if line.strip()), "")
    return line if len(line.split()) <= _HEADING_WORDS else ""


def stated_in_lines(names: Sequence[str], text: str) -> list[str]:
    """The values `text`'s key-value lines give where the key is one of `names`, in the order written."""
    keys = {tuple(folded_words(name)) for name in names}
    found: list[str] = []
    for match in _LINE.finditer(text):
        if tuple(folded_words(match.group(1))) not in keys or len(match.group(2)) > _LONGEST:
            continue
        value = _CELL_END.split(_ADDED.sub(" ", match.group(2)))[0]
        value = re.sub(r"\s+", " ", value).strip(" ,;.*'\"")
        if value and " ".join(folded_words(value)) not in _NO_VALUE and value not in found:
            found.append(value)
    return found
