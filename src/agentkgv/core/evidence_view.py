"""How a retrieved passage is shown to the model: a window around the triple's mentions, mentions marked.

A 135M model reads a few hundred tokens well and a thousand badly, and string matching (is the subject
here? the object?) is not what it should spend its capacity on. So each passage is cut to a window of
`max_words` words around where the object (else the subject) is mentioned (two half windows when the
subject stands too far from it), and every mention is marked `[S:...]` or `[O:...]`. What is left to the
model is the part string matching cannot judge: whether the words between the marks state this relation.

Matching is on folded words (case, accents and punctuation ignored, whole words only), as the lexical check
does, so `Ira` never matches inside `Iran`; a word a page's markup ran together from two (`Place of
DeathHolmby Hills`, `Born1952`) is also cut into its pieces, where a name is found too. A subject's two-word
name is also found written in full, with middle names between (`Robert Charles Durman Mitchum`), as pages
and Wikipedia's first sentences write people.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from agentkgv.data.text import FUNCTION_WORDS, WORD, fold_word, folded_words, without_disambiguation


@dataclass(frozen=True, slots=True)
class _Tokens:
    """A text's words, each cut into pieces where a page's markup ran two words into one."""
    pieces: list[tuple[int, int, str]]  # (start, end, folded piece)
    words: list[tuple[int, int, str]]  # (first piece, last piece, folded word)
    capitals: list[bool]  # whether each word starts with a capital letter
    piece_capitals: list[bool]  # whether each piece starts with a capital letter
    spaced: list[bool]  # whether only spaces (or an initial's full stop) part each word from the one before
    # Whether spaces and an opening quotation mark part it from the word before, and whether a closing one and
    # spaces do: a nickname's bounds ('Dmitry "Goblin" Puchkov').
    opens: list[bool]
    closes: list[bool]


def _cuts(word: str) -> list[int]:
    """Where a word ran together from two is cut: text pulled out of web pages runs a key into its value
    ("Place of DeathHolmby Hills", "Born1952"), so a word is cut where three lower-case letters meet a capital
    or a digit (not "McDonald", "YouTube", "km2") and where a digit meets a capital ("1952Died"; not "19th"
    or "1940s", which must not name 19 or 1940)."""
    if word.isalpha() and (word.islower() or word[1:].islower()):  # most words: nothing to cut, found fast
        return []
    return [i for i in range(1, len(word))
            if ((word[i].isupper() or word[i].isdigit()) and i >= 3
                and all(c.isalpha() and c.islower() for c in word[i - 3:i]))
            or (word[i - 1].isdigit() and word[i].isupper())]


def _tokens(text: str) -> _Tokens:
    pieces: list[tuple[int, int, str]] = []
    words, capitals, spaced, opens, closes, end = [], [], [], [], [], 0
    for m in _VIEW_WORD.finditer(text):
        word, first, folded = m.group(), len(pieces), "and" if m.group() == "&" else fold_word(m.group())
        cuts = _cuts(word)
        if cuts:
            bounds = [0, *cuts, len(word)]
            pieces += [(m.start() + a, m.start() + b, fold_word(word[a:b])) for a, b in zip(bounds, bounds[1:])]
        else:
            pieces.append((m.start(), m.end(), folded))
        words.append((first, len(pieces) - 1, folded))
        capitals.append(word[:1].isupper())
        gap = text[end:m.start()]
        spaced.append(bool(_SPACED.fullmatch(gap)))
        opens.append(not spaced[-1] and bool(_OPENING.fullmatch(gap)))
        closes.append(not spaced[-1] and bool(_CLOSING.fullmatch(gap)))
        end = m.end()
    return _Tokens(pieces, words, capitals, [text[start].isupper() for start, _, _ in pieces], spaced, opens, closes)


# A word, or "&" read as "and": "Freaks & Geeks" is Freaks and Geeks, and "Romeo & Juliet" is no "Romeo, Juliet".
_VIEW_WORD = re.compile(rf"{WORD.pattern}|&")
_SPACED = re.compile(r"\.?\s+")
_OPENING, _CLOSING = re.compile(r"\s+[\"“„‘‚'«]"), re.compile(r"[\"”“’‘'»]\s+")


def runs_apart(left: str, right: str) -> bool:
    """Whether `left + right`, run together, still reads as two: a piece starts where `right` does."""
    return any(start == len(left) for start, _, _ in _tokens(left + right).pieces)


@functools.lru_cache(maxsize=4096)  # the same few names are looked for in every passage a triple reads
def _name_units(name: str) -> tuple[list[str], list[str]]:
    """A name's folded words ("&" read as "and"), and its folded pieces."""
    tokens = _tokens(name)
    return [w for _, _, w in tokens.words], [p for _, _, p in tokens.pieces]


def mention_spans(tokens: _Tokens, name: str, capitalised: bool = False) -> list[tuple[int, int]]:
    """Piece ranges [first, last] where `name` stands: as whole words (its folded words, as the lexical check
    matches), or as pieces cut the same way as the name's own ("Holmby Hills" in "DeathHolmby Hills",
    "PlayStation" in "Play Station"). A name never spans a real gap between words that it lacks ("Iran" is
    not in "I ran"); a name that is itself a piece of a brand's run-together word ("Java" in "JavaScript")
    is found there, the price of reading run-on pages. A name of one word that is also a function word of English
    (`We`, `Her`, `Up`), or a particle that names in other languages write in lower case (`Dell`, `Van`), is found
    only where it is written with a capital: "we" in "where do we come from" is not the novel `We`, nor "dell" in
    "Anzola dell'Emilia" the firm Dell; so is any name with `capitalised`. Other names are found in lower case too
    ("the religion (islam)")."""
    spans: set[tuple[int, int]] = set()
    words, pieces = _name_units(name)
    for needle, units, span in ((words, tokens.words, lambda i, j: (tokens.words[i][0], tokens.words[j][1])),
                                (pieces, tokens.pieces, lambda i, j: (i, j))):
        folded, size = [u[2] for u in units], len(needle)
        if size:
            spans |= {span(i, i + size - 1) for i in range(len(folded) - size + 1) if folded[i:i + size] == needle}
    if capitalised or len(words) == 1 and name.lstrip()[:1].isupper() and words[0] in _LOWER_CASE_WORDS:
        spans = {(first, last) for first, last in spans if tokens.piece_capitals[first]}
    return sorted(spans)


# Particles and elided articles that names in other languages hold in lower case ("Anzola dell'Emilia", "Vincent van
# Gogh", "Leonardo da Vinci").
_PARTICLES = frozenset({"al", "da", "dal", "dalla", "de", "degli", "dei", "del", "della", "dell", "delle", "dello",
                        "den", "der", "des", "di", "dos", "du", "el", "la", "le", "ter", "ten", "van", "von"})
_LOWER_CASE_WORDS = FUNCTION_WORDS | _PARTICLES


# A person's name as a page writes it in full: "Robert Charles Durman Mitchum" for Robert Mitchum.
MAX_MIDDLE_NAMES = 3


def middle_name_spans(tokens: _Tokens, name: str) -> list[tuple[int, int]]:
    """Piece ranges where a two-word name written with capitals stands with up to `MAX_MIDDLE_NAMES` capitalised
    words between its two ("Douglas Noel Adams" for Douglas Adams), or a nickname in quotation marks ('Dmitry
    "Goblin" Puchkov')."""
    written, units = name.split(), _name_units(name)[0]
    if len(written) != 2 or len(units) != 2 or not all(w[:1].isupper() and w[1:2].isalpha() for w in written):
        return []
    first, last = units
    folded = [w[2] for w in tokens.words]
    spans = []
    for i, word in enumerate(folded):
        if word != first or not tokens.capitals[i]:
            continue
        opened = i + 1 < len(folded) and tokens.opens[i + 1]
        # The first name may be a nickname itself ('Raynoma "Ray" Mayberry Liles Gordy Singleton').
        nickname_first = tokens.opens[i] and i + 1 < len(folded) and tokens.closes[i + 1]
        for j in range(i + 2, min(i + 2 + MAX_MIDDLE_NAMES, len(folded))):
            if not (tokens.capitals[j - 1] and (opened or nickname_first or tokens.spaced[i + 1])
                    and all(tokens.spaced[k] for k in range(i + 2, j))):
                break
            # Middle names stand spaces apart; a nickname has quotation marks about it.
            if (tokens.closes[j] if opened else tokens.spaced[j]) and folded[j] == last and tokens.capitals[j]:
                spans.append((tokens.words[i][0], tokens.words[j][1]))
                break
    return spans


def _outside(spans: list[tuple[int, int]], others: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """`spans` less those lying inside a strictly longer span of `others`."""
    return [(a, b) for a, b in spans
            if not any(c <= a and b <= d and d - c > b - a for c, d in others)]


@dataclass(frozen=True, slots=True)
class PassageView:
    text: str
    has_subject: bool
    has_object: bool


def _around(span: tuple[int, int], size: int, count: int) -> tuple[int, int]:
    """A `size`-word range of a `count`-word text centred on `span`, kept inside the text."""
    first = span[0] - (size - (span[1] - span[0] + 1)) // 2
    first = max(0, min(first, count - size))
    return first, first + size - 1


def _windows(subjects: list[tuple[int, int]], objects: list[tuple[int, int]], max_words: int,
             count: int) -> list[tuple[int, int]]:
    """The word ranges shown, `max_words` words in all: one window around the first object mention (else the
    subject's), re-centred on the span to the nearest subject mention when both fit in one; when they are further apart, half
    a window around each, so a passage that names its subject in its lead and the object later still shows
    both (the lexical check counts such a passage, and a single window dropped one of the two names)."""
    if count <= max_words:
        return [(0, count - 1)]
    if not objects:
        return [_around(subjects[0] if subjects else (0, 0), max_words, count)]
    anchor = objects[0]
    if not subjects:
        return [_around(anchor, max_words, count)]
    nearest = min(subjects, key=lambda s: abs(s[0] - anchor[0]))
    low, high = min(anchor[0], nearest[0]), max(anchor[1], nearest[1])
    if high - low < max_words:
        return [_around((low, high), max_words, count)]
    half = max_words // 2
    first, second = sorted([_around(nearest, half, count), _around(anchor, max_words - half, count)])
    return [first, second] if first[1] < second[0] else [(first[0], second[1])]


def written_forms(names: Sequence[str]) -> list[str]:
    """The forms of `names` text writes that they are not already: without a graph's disambiguation ("Paul
    Stephenson (police officer)" is written "Paul Stephenson"), where that leaves a name of two letters or more
    ("2012 (film)" is no year, "M (1931 film)" no letter)."""
    forms = [without_disambiguation(name) for name in names]
    return list(dict.fromkeys(f for f in forms if f not in names and sum(c.isalpha() for c in f) >= 2))


# Firms' legal forms. Pages drop them from a firm's name ("Oracle" for Oracle Corporation), and a name they follow
# goes on as the same firm's ("Hamburger Hochbahn AG"). Not "Company" or "Limited", which end names of other things
# too (Bad Company, the Sunset Limited).
LEGAL_FORMS = ("inc", "ltd", "llc", "plc", "co", "corp", "corporation", "ag", "sa", "nv", "bv", "se", "gmbh", "pty", "spa")
_LEGAL_FORM = re.compile(r"(?:\s*(?:&|and)\s+co(?:mpany)?\.?|[\s,]+(?:"
                         + "|".join(r"\.?".join(form) for form in LEGAL_FORMS) + r")\.?)+$", re.IGNORECASE)


def trade_names(names: Sequence[str]) -> list[str]:
    """Firms' names of `names` as pages write them, without their legal form ("Uprizer Labs LLC" is written "Uprizer
    Labs", Oracle Corporation "Oracle", Tiffany & Co. "Tiffany"), where a capitalised name of two letters or more is
    left that is not of function words alone ("The Corporation" is never "The")."""
    forms = [_LEGAL_FORM.sub("", without_disambiguation(name)) for name in names]
    return list(dict.fromkeys(f for f in forms if f not in names and f[:1].isupper()
                              and sum(c.isalpha() for c in f) >= 2 and not set(folded_words(f)) <= FUNCTION_WORDS))


def _word_starts(tokens: _Tokens) -> dict[int, int]:
    """Each word's index by the index of its first piece."""
    return {first: k for k, (first, _, _) in enumerate(tokens.words)}


def _line_spaced(text: str, tokens: _Tokens, piece: int) -> bool:
    """Whether the piece after `piece` follows it on its line with spaces only between."""
    return _LINE_SPACE.fullmatch(text[tokens.pieces[piece][1]:tokens.pieces[piece + 1][0]]) is not None


def _standing_alone(text: str, tokens: _Tokens, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """`spans` less those a capitalised word joins on either side on their line, spaces apart, as part of a longer
    name: "Intel" in "Battle Intel Report" is no Intel Corporation. A function word before ("The", "At"), a legal form
    after or a sentence's end between joins none."""
    starts, ends = _word_starts(tokens), {last: k for k, (_, last, _) in enumerate(tokens.words)}

    def joined(k: int) -> bool:  # whether word k follows word k - 1 spaces apart on one line
        return _line_spaced(text, tokens, tokens.words[k - 1][1])

    kept = []
    for a, b in spans:
        i, j = starts.get(a), ends.get(b)
        if i is None or j is None:  # inside a word a page's markup ran together
            continue
        before = i > 0 and joined(i) and tokens.capitals[i - 1] and tokens.words[i - 1][2] not in FUNCTION_WORDS
        after = (j + 1 < len(tokens.words) and joined(j + 1) and tokens.capitals[j + 1]
                 and tokens.words[j + 1][2] not in _SAME_NAMED)
        if not (before or after):
            kept.append((a, b))
    return kept


def _spans_of(text: str, tokens: _Tokens, names: Sequence[str], middle_names: bool = False,
              others: Sequence[str] = ()) -> list[tuple[int, int]]:
    """Mentions of any of `names` (a label and its aliases), a name inside a longer one dropped; with
    `middle_names`, a person's name written in full too. A name is also found without its disambiguation, there
    only where written with a capital as a name is: "Love (Destiny's Child song)" is not any "love"; and a firm's
    without its legal form, there only where it stands alone as a name. A form that is a name of `others` (the
    triple's other end) is not taken: Ralph Lauren Corporation's "Ralph Lauren" is the man too."""
    plain = [form for form in written_forms(names) if form[:1].isupper() and not _same_name(form, others)]
    trade = [form for form in trade_names(names) if not _same_name(form, others)]
    spans = {span for name in names for span in mention_spans(tokens, name)}
    spans |= {span for name in plain for span in mention_spans(tokens, name, capitalised=True)}
    spans |= set(_standing_alone(text, tokens, [span for name in trade
                                                for span in mention_spans(tokens, name, capitalised=True)]))
    names = [*names, *plain]
    if middle_names:
        spans |= {span for name in names for span in middle_name_spans(tokens, name)}
    spans = sorted(spans)
    return _outside(spans, spans)


_LINE_SPACE = re.compile(r"[ \t]+")
# Words that continue a name without naming another thing: a firm's legal form, a generation.
_SAME_NAMED = frozenset({*LEGAL_FORMS, "company", "limited", "jr", "sr", "ii", "iii", "iv"})


def named_alone(text: str, names: Sequence[str]) -> bool:
    """Whether `text` names one of `names` (a label and its aliases) other than as the head of a longer proper
    name: "Walt Whitman" in "the Walt Whitman Bridge" names a bridge, and what the passage says of it is not said
    of the poet. A name followed on its line, after a space only, by a capitalised word is such a head, unless
    that word is a firm's legal form or a generation (`Hamburger Hochbahn AG`, `Sammy Davis Jr.`)."""
    tokens = _tokens(text)
    starts = _word_starts(tokens)
    for _, last in _spans_of(text, tokens, names, middle_names=True):
        # No next word: the text ends, or the name ends inside a word a page's markup ran together ("WhitmanBorn").
        after = starts.get(last + 1)
        if after is None or not tokens.capitals[after] or tokens.words[after][2] in _SAME_NAMED:
            return True
        if not _line_spaced(text, tokens, last):
            return True  # a full stop, a comma or a line break ends the name
    return False


def _builds_names(head: list[str], tail: list[str]) -> bool:
    """Whether a name's `tail` (its last words) is what names of its kind end in, after `head`: "Airport" after
    "Melbourne", not a legal form or initials alone ("Inc.", "F.C."), nor what follows "of" ("University of New
    Mexico": "Albuquerque New Mexico" is the city)."""
    return not (set(tail) <= _SAME_NAMED or all(len(word) == 1 for word in tail) or set(head) & FUNCTION_WORDS)


def _siblings_dropped(tokens: _Tokens, text: str, spans: list[tuple[int, int]], subject: str) -> list[tuple[int, int]]:
    """`spans` less those that head a name built as the subject's is, the end of the subject's name after them:
    beside the subject Melbourne Airport, "Sydney" in "Sydney Airport" names another airport, not the city; beside
    the Swedish National Rail Administration, "Norwegian" in "Norwegian National Rail Administration" another
    agency, not Norway. A firm's legal form alone builds no name ("Honda Inc." beside Apple Inc. is Honda). A place
    the subject's name ends in, written after a city without a comma, is read as such a name too ("Paris France"
    beside Air France): a known limit."""
    name = _name_units(without_disambiguation(subject))[0]
    if len(name) < 2 or name[-1] in FUNCTION_WORDS:
        return spans
    starts, folded = _word_starts(tokens), [word for _, _, word in tokens.words]
    kept = []
    for start, end in spans:
        after = starts.get(end + 1)
        built = after is not None and tokens.capitals[after] and _line_spaced(text, tokens, end) and any(
            folded[after:after + len(name) - j] == name[j:] and _builds_names(name[:j], name[j:])
            for j in range(1, len(name)))
        if not built:
            kept.append((start, end))
    return kept


def _same_name(name: str, others: Sequence[str]) -> bool:
    return any(folded_words(name) == folded_words(other) for other in others)


def view_passage(text: str, subject: str, obj: str, max_words: int,
                 subject_aliases: Sequence[str] = (), object_aliases: Sequence[str] = ()) -> PassageView:
    """The window(s) of the passage the model reads, with the subject's and object's mentions (by label or
    alias) marked."""
    tokens = _tokens(text)
    words = tokens.pieces
    # An alias that is the other entity's name (`Indonesian` for Indonesia, in a triple about the language)
    # would take that entity's mentions for its own.
    subject_names = [subject, *(a for a in subject_aliases if not _same_name(a, [obj, *object_aliases]))]
    object_names = [obj, *(a for a in object_aliases if not _same_name(a, [subject, *subject_aliases]))]
    subjects = _spans_of(text, tokens, subject_names, middle_names=True, others=object_names)
    objects = _spans_of(text, tokens, object_names, others=subject_names)
    # A name inside a longer one is part of that mention, not a mention of its own: "Google" in
    # "[S:Google Account]" is not the object Google (and would otherwise erase the subject's mark).
    subjects, objects = _outside(subjects, objects), _outside(objects, subjects)
    objects = _siblings_dropped(tokens, text, objects, subject)
    if not words:
        return PassageView("", False, False)
    ranges = _windows(subjects, objects, max_words, len(words))
    shown, kinds = [], set()
    for first, last in ranges:
        piece, marked = _marked(text, words, first, last, subjects, objects)
        shown.append(piece)
        kinds |= marked
    prefix = "… " if ranges[0][0] > 0 else ""
    suffix = " …" if ranges[-1][1] < len(words) - 1 else ""
    # A triple whose subject and object share a name (a city in its namesake province) has its subject
    # wherever its object is marked.
    same = folded_words(subject) == folded_words(obj)
    return PassageView(prefix + " … ".join(shown) + suffix, "S" in kinds or (same and "O" in kinds), "O" in kinds)


def _marked(text: str, words: list[tuple[int, int, str]], first: int, last: int, subjects: list[tuple[int, int]],
            objects: list[tuple[int, int]]) -> tuple[str, set[str]]:
    """Words first..last of `text` with the mentions inside them marked, and the kinds of mark placed."""
    # An object span wins over an overlapping subject span.
    marks: dict[int, tuple[int, str]] = {}
    for kind, spans in (("S", subjects), ("O", objects)):
        for start, end in spans:
            if first <= start and end <= last:
                for other in [s for s in marks if s <= end and marks[s][0] >= start]:
                    del marks[other]
                marks[start] = (end, kind)
    pieces, cursor = [], words[first][0]
    for start in sorted(marks):
        end, kind = marks[start]
        pieces += [text[cursor:words[start][0]], f"[{kind}:{text[words[start][0]:words[end][1]]}]"]
        cursor = words[end][1]
    pieces.append(text[cursor:words[last][1]])
    return " ".join("".join(pieces).split()), {kind for _, kind in marks.values()}
