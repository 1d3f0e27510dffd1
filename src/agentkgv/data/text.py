"""Folding text for whole-word name matching: case, accents and punctuation are ignored.

Shared by every place that asks "is this name in this text" (the lexical check, the agent's passage view,
the benchmark's co-mention miner), so they all agree on what a mention is.
"""

from __future__ import annotations

import functools
import re
import unicodedata

WORD = re.compile(r"\w+")


def fold_word(word: str) -> str:
    word = unicodedata.normalize("NFKD", word)
    return "".join(c for c in word if not unicodedata.combining(c)).lower()


def folded_words(text: str) -> list[str]:
    return [fold_word(w) for w in WORD.findall(text)]


@functools.cache
def _function_words() -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


def function_word(word: str) -> bool:
    """Whether a folded word is one of English's function words (scikit-learn's stop words: `we`, `her`, `up`)."""
    return word in _function_words()


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
