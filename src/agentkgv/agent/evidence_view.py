"""How a retrieved passage is shown to the model: a window around the triple's mentions, mentions marked.

A 135M model reads a few hundred tokens well and a thousand badly, and string matching (is the subject
here? the object?) is not what it should spend its capacity on. So each passage is cut to a window of
`max_words` words around where the object (else the subject) is mentioned, and every mention is marked
`[S:...]` or `[O:...]`. What is left to the model is the part string matching cannot judge: whether the
words between the marks state this relation.

Matching is on folded words (case, accents and punctuation ignored, whole words only), as the lexical check
does, so `Ira` never matches inside `Iran`.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentkgv.data.text import WORD, fold_word, folded_words


def _words(text: str) -> list[tuple[int, int, str]]:
    """(start, end, folded word) for every word of `text`."""
    return [(m.start(), m.end(), fold_word(m.group())) for m in WORD.finditer(text)]


def mention_spans(words: list[tuple[int, int, str]], name: str) -> list[tuple[int, int]]:
    """Word-index ranges [first, last] where `name` occurs as a whole-word sequence."""
    needle = folded_words(name)
    if not needle:
        return []
    folded = [w for _, _, w in words]
    size = len(needle)
    return [(i, i + size - 1) for i in range(len(folded) - size + 1) if folded[i:i + size] == needle]


def _outside(spans: list[tuple[int, int]], others: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """`spans` less those lying inside a strictly longer span of `others`."""
    return [(a, b) for a, b in spans
            if not any(c <= a and b <= d and d - c > b - a for c, d in others)]


@dataclass(frozen=True, slots=True)
class PassageView:
    text: str
    has_subject: bool
    has_object: bool


def view_passage(text: str, subject: str, obj: str, max_words: int) -> PassageView:
    """The window of the passage the model reads, with the subject's and object's mentions marked."""
    words = _words(text)
    subjects, objects = mention_spans(words, subject), mention_spans(words, obj)
    # A name inside a longer one is part of that mention, not a mention of its own: "Google" in
    # "[S:Google Account]" is not the object Google (and would otherwise erase the subject's mark).
    subjects, objects = _outside(subjects, objects), _outside(objects, subjects)
    if len(words) <= max_words:
        first, last = 0, len(words) - 1
    else:
        # Centre on the first object mention; when the nearest subject mention fits beside it, centre on the
        # span from one to the other instead, held so that both its ends stay inside the window.
        anchor = objects[0][0] if objects else subjects[0][0] if subjects else 0
        first = anchor - max_words // 2
        if objects and subjects:
            nearest = min(subjects, key=lambda s: abs(s[0] - anchor))
            low, high = min(anchor, nearest[0]), max(objects[0][1], nearest[1])
            if high - low < max_words:
                first = min(max((low + high) // 2 - max_words // 2, high - max_words + 1), low)
        first = max(0, min(first, len(words) - max_words))
        last = first + max_words - 1
    # Marks go on mentions inside the window; an object span wins over an overlapping subject span.
    marks: dict[int, tuple[int, str]] = {}
    for kind, spans in (("S", subjects), ("O", objects)):
        for start, end in spans:
            if first <= start and end <= last:
                for other in [s for s in marks if s <= end and marks[s][0] >= start]:
                    del marks[other]
                marks[start] = (end, kind)
    pieces, cursor = [], words[first][0] if words else 0
    for start in sorted(marks):
        end, kind = marks[start]
        pieces += [text[cursor:words[start][0]], f"[{kind}:{text[words[start][0]:words[end][1]]}]"]
        cursor = words[end][1]
    pieces.append(text[cursor:words[last][1]] if words else "")
    shown = " ".join("".join(pieces).split())
    prefix = "… " if first > 0 else ""
    suffix = " …" if words and last < len(words) - 1 else ""
    kinds = {kind for _, kind in marks.values()}
    # A triple whose subject and object share a name (a city in its namesake province) has its subject
    # wherever its object is marked.
    same = folded_words(subject) == folded_words(obj)
    return PassageView(prefix + shown + suffix, "S" in kinds or (same and "O" in kinds), "O" in kinds)
