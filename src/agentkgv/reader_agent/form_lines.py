"""A web page's key-value lines: `Location of death: Santa Barbara, CA` gives the page's subject's place of death.

Pages state facts about their subject as lines of a key and a value (an infobox, a profile card, a two-column
table stripped of its markup). The value reader, which reads sentences, misses many of them. A line gives a
relation's value where its key is the relation's label or one of its aliases (`Birthplace`, `Place of Birth`,
`Location of death`, `Team`), in any case, and the value is the rest of the line, less what a page adds to a
value (a reference mark `[1]`, a parenthesis: `Eliot Kennedy (m. 2006–2010)`). The line speaks of the page's
subject only, so the agent reads it for a claim only where the page's title or first line names the claim's
subject: a profile of Serena Williams gives Venus no birthplace.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agentkgv.data.text import folded_words

# A key (a few words, starting with a letter), a colon, bar or tab, and a value on the rest of the line.
_LINE = re.compile(r"^[ \t*\u2022-]*([^\W\d_][\w ()/'.-]{0,40}?)[ \t]*(?::|\||\t)[ \t]*(\S[^\n]*?)[ \t]*$", re.M)
_ADDED = re.compile(r"\[[^\]]*\]|\([^)]*\)")
_LONGEST = 80  # characters: a longer rest of a line is prose, not a value


def first_line(text: str) -> str:
    return next((line for line in text.splitlines() if line.strip()), "")


def stated_in_lines(names: Sequence[str], text: str) -> list[str]:
    """The values `text`'s key-value lines give where the key is one of `names`, in the order written."""
    keys = {tuple(folded_words(name)) for name in names}
    found: list[str] = []
    for match in _LINE.finditer(text):
        if tuple(folded_words(match.group(1))) not in keys or len(match.group(2)) > _LONGEST:
            continue
        value = _ADDED.sub(" ", match.group(2)).strip(" ,;.'\"")
        value = re.sub(r"\s+", " ", value)
        if value and value not in found:
            found.append(value)
    return found
