"""Folding text for whole-word name matching: case, accents and punctuation are ignored.

Shared by every place that asks "is this name in this text" (the lexical check, the agent's passage view,
the benchmark's co-mention miner), so they all agree on what a mention is. The passage view asks more of a name
than a match (core/evidence_view.py): a function word written as a name, and a name without its disambiguation, must
be written with a capital there.
"""

from __future__ import annotations

import re
import unicodedata

WORD = re.compile(r"\w+")


def fold_word(word: str) -> str:
    word = unicodedata.normalize("NFKD", word)
    return "".join(c for c in word if not unicodedata.combining(c)).lower()


def folded_words(text: str) -> list[str]:
    return [fold_word(w) for w in WORD.findall(text)]


# English's closed word classes (pronouns, determiners, prepositions, conjunctions, auxiliaries and a few particles):
# a one-word name that is also one of them is a name only where written as one ("we" is not the novel `We`). Written
# here because the stop-word lists of the libraries at hand are made for search and hold content words too (`fire`,
# `bill`, `system`), which name films and firms as often.
FUNCTION_WORDS = frozenset("""
i me my mine we us our ours you your yours he him his she her hers it its they them their theirs who whom whose which
what that this these those a an the some any no none all both each every either neither few many much more most other
another such own about above across after against along among around at before behind below beneath beside besides
between beyond by down during except for from in inside into near of off on onto out outside over past since through
throughout till to toward towards under until up upon with within without and but or nor so yet if because although
though while whether unless as than when where why how am is are was were be been being have has had do does did can
could may might must shall should will would not now then there here also only just very too again ever never once
still even""".split())
# A graph's disambiguation of a name, where the name ends or a comma follows: "Paul Stephenson (police officer)",
# "Wayland (village), New York".
_DISAMBIGUATION = re.compile(r"\s*\([^()]*\)(?=\s*(?:,|$))")


def without_disambiguation(name: str) -> str:
    """`name` as text writes it, without a graph's disambiguations: "Wayland (village), New York" -> "Wayland, New
    York", "Tom Ash (born 1950) (actor)" -> "Tom Ash"."""
    plain = " ".join(name.split())
    while (shorter := _DISAMBIGUATION.sub("", plain)) != plain:
        plain = shorter
    return plain


def fold(text: str) -> str:
    """The text as space-padded folded words, so `" paris "` in `fold(x)` is a whole-word test."""
    return " " + " ".join(folded_words(text)) + " "


def label_key(label: str) -> str:
    """A label as a lookup key: lower case, white space folded (facts files disagree on both)."""
    return " ".join(label.lower().split())


def mentions_any(passage: str, names: tuple[str, ...]) -> bool:
    """Whole-word containment of any of `names`, so `Ira` does not match inside `Iran`; the passage is folded
    once for all of them."""
    text = fold(passage)
    return any(needle.strip() != "" and needle in text for needle in map(fold, names))


# A first line this short reads as the heading of a plain-text page, not as a paragraph.
_TITLE_MAX_CHARS = 100


def page_title(text: str) -> str:
    """A plain-text page's first line where it is short enough to be its heading, else none."""
    first_line = text.split("\n", 1)[0].strip()
    return first_line if len(first_line) <= _TITLE_MAX_CHARS else ""
