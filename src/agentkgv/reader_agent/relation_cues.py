"""The words that say which relation a passage states between two names: "died in London" says nothing of a
birth there.

The shipped reader keys on the marked names more than on the words between them: it scores Holst's "died
in London" as stating his birth in London. So a rule stands beside it, for relations a rival shares objects
with (a place of birth and a place of death take the same cities): a passage whose words between the
subject's and the object's marks hold a cue of a rival relation and none of the triple's own does not
support the triple, whatever its score. The cues are the content words of each relation's label, aliases
and ParaRel templates (`was born in`, `passed away in`), stemmed; the rivals, the relations whose objects in
the facts files overlap. A passage that writes both ("born and died in London") or neither keeps its score.
A relative clause after the object says what the subject did there ("moved to Dunholt, where she died"), whatever
the words before it say; and where the relation's words lead to another value first and a second statement then
leads on to the object ("born in Marrowick in 1952 and later moved to Dunholt"), the relation is the other value's.
"""

from __future__ import annotations

import functools
import gzip
import json
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import Stemmer

from agentkgv.data.errors import DataError
from agentkgv.data.predicates import PredicateInfo, by_name, predicate_key, template_phrase
from agentkgv.data.records import Triple
from agentkgv.data.text import FUNCTION_WORDS, fold_word, folded_words, without_disambiguation
from agentkgv.reader_agent.values import MONTHS

_STEMMER = Stemmer.Stemmer("english")
# Words that say nothing of which relation holds.
_STOP = frozenset("""a an the of in at on to from for by with as is are was were be been being has have had
who whose which that this its his her their they it he she s also and or not can found into""".split())
# Words of a relation's name that any of many relations share: they cue none of them.
_GENERIC = frozenset(_STEMMER.stemWords(["date", "year", "time", "place", "location", "name", "number", "day", "type",
                                         "item", "point", "value"]))
# How many objects two relations share, of all either takes (Jaccard), for them to be rivals: a place of birth
# and a place of death share 0.19, a place of birth and a sister city 0.10. Past the upper bound they are near
# synonyms whose words do not exclude each other: a film's original language and a work's language share 0.57,
# and "a play written by a Norwegian playwright" says something of both.
RIVAL_OVERLAP = (0.15, 0.3)
_MARKS = re.compile(r"\[(S|O):[^\]]*\]")
# A rival that no relation of the facts files holds, so that `build` cannot find it: the team a player played
# against. Pages that name a player and a team are match reports as often as rosters ("scored 30 points against
# the Los Angeles Clippers", "the Los Angeles Lakers' 112-105 loss to the Denver Nuggets"). Not "vs.": a fixture
# ("Chelsea vs. Arsenal") names both sides alike.
OPPONENTS = {"P54": frozenset(_STEMMER.stemWords(["against", "beat", "beating", "beaten", "defeat", "defeated",
                                                  "defeating", "loss", "lost", "rout", "routed"]))}
# Rivals that `build` cannot find by their objects, since no facts file holds one side, or since the relation takes
# several values (whose rivals are not read off their objects): where a person lives or works is no birth or death there
# ("lives in Lembrook. He was born in Dunholt"), nor a burial a birth or a death; a nomination no award received; an
# illustrator or a translator no author (not an editor: "edition" stems as "edited" does); a death's date no birth's, a
# dissolution's no founding's, nor the reverse; a work's producer, star, writer or composer no director, a distributor
# no record label, a chair or chief executive no founder. Their words are their names' in the predicates table
# (residence: live, resid; nominated for: nomin). Not a firm's seat for its founding place: "the Geneva-based firm" is
# where most firms were founded, and graphs take one for the other (FactBench-docs lost two contradictions and called a
# true founding place false with it).
UNHELD_RIVALS = {"P19": ("P551", "P937", "P119"), "P20": ("P551", "P937", "P119"), "P119": ("P20",),
                 "P166": ("P1411",), "P50": ("P110", "P655"), "P569": ("P570",), "P570": ("P569",),
                 "P571": ("P576",), "P576": ("P571",),
                 # A work's credits name each person's part: "directed by Wenna Pollard and produced by Idris Tamblyn".
                 "P57": ("P162", "P161", "P58", "P86"), "P162": ("P57", "P161"), "P161": ("P57", "P162", "P58", "P86"),
                 "P86": ("P57", "P161"), "P175": ("P86", "P50"), "P264": ("P750",), "P112": ("P488", "P169")}
# Words of the named rivals' names that any part in a work may stand beside ("a music documentary featuring",
# "a member of the cast", "recorded for"): no named rival's cue.
_OF_ANY_WORK = frozenset(_STEMMER.stemWords(["film", "movie", "music", "record", "member", "song"]))
# The words that may stand between an opponent's word and the team: "loss to the", "rout of the", "beaten by the".
_TO_OPPONENT = frozenset({"to", "of", "by", "the", "a", "an"})
# The cues and rivals of every relation the data folder names, shipped so that a run without the data folder
# tells a birth from a death (`agentkgv build predicates` writes it; a test checks it against the data folder).
CUES_FILE = "relation_cues.json.gz"
# (own cue stems, the rivals' stems) by relation id.
CueTable = dict[str, tuple[frozenset[str], tuple[frozenset[str], ...]]]


def _unmarked(view: str) -> str:
    """A passage view's text with its marks read as the names they mark: "[S:Ada Vance]" as "Ada Vance"."""
    return _MARKS.sub(lambda mark: mark.group(0)[3:-1], view)


def stems(phrases: list[str]) -> frozenset[str]:
    """The content words of `phrases`, stemmed, less the words any relation's name may hold."""
    words = {w for phrase in phrases for w in folded_words(phrase) if w not in _STOP and not w.isdigit() and len(w) > 2}
    return frozenset(_STEMMER.stemWords(sorted(words))) - _GENERIC


def cue_stems(info: PredicateInfo) -> frozenset[str]:
    return stems([info.label, *info.aliases, *(template_phrase(t) for t in info.templates)])


# "The population of [S:Marrowick] was 19,450": a relation's noun may lead the subject, joined to it by "of".
_LEADS = re.compile(r"((?:[\w'-]+\s+){1,3})of\s*$")


@functools.lru_cache(maxsize=1024)  # `denies` asks for a view's words between the marks and the clause next to one
def _nearest_marks(view: str) -> tuple[tuple[str, int, int], tuple[str, int, int]] | None:
    """The nearest subject and object marks of a passage view, in the order they stand; None without both."""
    marks = [(m.group(1), m.start(), m.end()) for m in _MARKS.finditer(view)]
    pairs = [(a, b) for a in marks for b in marks if a[0] == "S" and b[0] == "O"]
    if not pairs:
        return None
    a, b = min(pairs, key=lambda pair: abs(pair[0][1] - pair[1][1]))
    first, second = sorted((a, b), key=lambda mark: mark[1])
    return first, second


def between_marks(view: str, leading: bool = False) -> str | None:
    """The words between the nearest subject and object marks of a passage view, None without both. `leading`:
    with the words that lead the subject where it comes first and follows "of" ("the population of")."""
    marks = _nearest_marks(view)
    if marks is None:
        return None
    first, second = marks
    words = view[first[2]:second[1]]
    lead = _LEADS.search(view[max(0, first[1] - 60):first[1]]) if leading and first[0] == "S" else None
    return f"{lead.group(1)} {words}" if lead else words


def after_object(view: str) -> str:
    """The text after the object's mark where the object stands second of the nearest marks ("[S] moved to [O],
    where she died in 2019" gives ", where she died in 2019"), else ""."""
    marks = _nearest_marks(view)
    return view[marks[1][2]:] if marks is not None and marks[1][0] == "O" else ""


def next_to_object(view: str) -> str | None:
    """Of the words between the nearest marks, the clause that touches the object, within the object's sentence: "[S]
    was born in Cambridge, England, on 11 March 1952, and died in [O]" gives "and died in", and "[S] was born in
    Lembrook. Edwin Marsh was born in Kelvercombe. He died in [O]" gives "He died in": a sentence that follows
    states its own relation of the object, whoever its subject is."""
    marks = _nearest_marks(view)
    if marks is None:
        return None
    first, second = marks
    words = view[first[2]:second[1]]
    if second[0] == "O":
        return _CLAUSE.split(_SENTENCE_END.split(words)[-1])[-1]
    return _CLAUSE.split(_SENTENCE_END.split(words)[0])[0]


# How many clauses before an object written first its cue may stand: "Died on April 5, 2008 in [O]" is two.
_LEADING_CLAUSES = 3


# The words a date is written with besides its numbers and months: "on 5 April 1990 in".
_DATE_WORDS = frozenset({"in", "on", "at", "of", "the", "by", "from", "until", "since", "circa", "c"})


def _date_only(clause: str) -> bool:
    """Whether a clause is a date and the words around one alone: " 2008 in", "on 5 April 1990"."""
    words = clause.split()
    return any(word[:1].isdigit() for word in words) and all(
        word[:1].isdigit() or fold_word(word) in _DATE_WORDS or word.lower().rstrip(".") in MONTHS for word in words)


def leading_to_object(view: str) -> str | None:
    """The words of the object's sentence that lead to it, where the object stands first of the nearest marks: "Died
    on April 5, 2008 in [O] ... [S]" gives "Died on April 5, 2008 in"; None where the subject comes first."""
    marks = _nearest_marks(view)
    if marks is None or marks[0][0] != "O":
        return None
    return _SENTENCE_END.split(view[:marks[0][1]])[-1]


# A life span in brackets with a place on each side: "(Evanston, Illinois, October 4, 1924 - Beverly Hills, California,
# April 5, 2008)". The side before the dash is the birth's, the side after it the death's. Read bracket by bracket
# (a bracket's text, then one dash in it), so that a long passage with an unclosed bracket is read in linear time.
_BRACKET = re.compile(r"\(([^()]*)\)")
_LIFE_DASH = re.compile(r"\s-\s|\s*[\u2013\u2014]\s*")
_SIDE_YEAR = re.compile(r"\d{3,4}")
_SIDE_PLACE = re.compile(r"\b[A-Z][a-z]")
_LIFE_SIDES = ("born", "died")
_LIFE_WORDS = frozenset(_STEMMER.stemWords(["born", "birth", "died", "death", "b", "d"]))


def life_span_side(view: str) -> str | None:
    """"born" or "died" where the object's mark stands on that side of a bracketed life span (one dash, a year and
    a capitalised word on each side, and no word of its own that says which end: "(born 1911 in Oslo; died …)" is
    read by its words), else None."""
    marks = _nearest_marks(view)
    if marks is None:
        return None
    start = next(mark[1] for mark in marks if mark[0] == "O")
    for bracket in _BRACKET.finditer(view):
        if not bracket.start(1) <= start < bracket.end(1):
            continue
        text = bracket.group(1)
        sides = _LIFE_DASH.split(_unmarked(text))
        said = set(_STEMMER.stemWords(folded_words(text))) & _LIFE_WORDS
        if len(sides) != 2 or said or not all(_SIDE_YEAR.search(side) and _SIDE_PLACE.search(side) for side in sides):
            return None
        dash = _LIFE_DASH.search(text)
        return _LIFE_SIDES[0] if start < bracket.start(1) + dash.start() else _LIFE_SIDES[1]
    return None


# Where one clause of the words between two names ends and another begins.
_CLAUSE = re.compile(r"[,;:()\[\]]|\s[-\u2013\u2014]\s")
# Where a sentence or a line ends.
_SENTENCE_END = re.compile(r"[.!?]\s|\n")
# The words that may stand between another's name and the relation's words that state it of that one: "Quaine, who
# was born in", "Ashgrove later starred in".
_VERB_WORDS = frozenset({"who", "which", "was", "were", "is", "are", "had", "has", "have", "been", "being", "later",
                         "also", "then", "first", "once", "herself", "himself"})
# Another's name, two to four capitalised words, and an aside on it up to where the subject is named: "Mickey Rose, a
# writer who grew up with". The name opens its statement, no comma before it: in a list ("Oslo, Tobiah Venn, who …")
# whose name the aside is on, the commas do not say.
_ASIDE = re.compile(r"(?:^|[^\w,] )((?:[A-Z][\w'’.-]*\s){1,3}[A-Z][\w'’.-]*), (?:a|an|the|who|whose|whom|one)\s[^,;:]*$")
# A name the relation's words lead to, a preposition or an article or two between: "born in Australia".
_NAME_LED_TO = re.compile(r"\s+(?:(?:in|at|on|to|by|for|from|with|of|the|a|an)\s+){0,2}([A-Z][\w'’.-]*)")
# Where a statement ends: a sentence, a line, or a semicolon.
_STATEMENT_END = re.compile(r"[.!?]\s|\n|;")
# Words that join a second statement to a first within a sentence: "born in Marrowick and later moved to".
_SECOND_STATEMENT = re.compile(r"\b(?:and|but|before|later)\b|;")


def last_statement(clause: str) -> str:
    """Of a clause that joins two statements, each with a value of its own, the last: "was born in Harrowmere and died
    in" gives "died in" (the object's statement); "was born and died in" is one statement of both."""
    parts = [part for part in _SECOND_STATEMENT.split(clause) if part.strip()]  # "and later" joins once
    if len(parts) > 1 and any(word[:1].isupper() or word[:1].isdigit() for word in parts[-2].split()[1:]):
        return parts[-1]
    return clause


def _names_only(clause: str) -> bool:
    """Whether no word of `clause` starts in lower case: names, numbers and initials ("1874 Palazzo Marescalchi")."""
    return not any(next((c for c in word if c.isalpha()), "").islower() for word in clause.split())


# A relative clause on a place that says what the subject did there: "moved to Dunholt, where she died in 2019".
_RELATIVE = re.compile(r"\s*(?:where|wherein|in which|at which)\s+(\S+)((?:\s+\S+){1,3})", re.IGNORECASE)
_PRONOUNS = frozenset({"he", "she", "they", "it"})
# Cue stems that, so near a place, say too little of a relation: "where she spent the rest of her life", "where she
# lost her sight", "where the firm has its home".
_LOOSE = frozenset(_STEMMER.stemWords(["life", "lost", "end", "native", "origin", "home", "come", "base", "contain",
                                       "office", "head", "group", "source", "work", "formation"]))
# A clause of a date alone, between a value and what follows it: "moved to Dunholt in 1999, where she died".
_DATE_CLAUSE = re.compile(r"\s*(?:in|on|from|by|until|since)?\s*(?:\w+\s+){0,2}\d{3,4}\s*$", re.IGNORECASE)


def _aside_opened(words: list[str], closed: int) -> int | None:
    """Where an aside that closes with the comma after `words[closed]` opens: the last word of the name it is on,
    before the nearest comma back ("Fell," in "Her teacher, Osric Fell, a violin maker who trained with her father,").
    None where no name stands there, or none that opens its statement or follows a comma as an apposition does: in
    "Vance, who was born in Lembrook, trained there," Lembrook is no one the aside is on."""
    opened = next((k for k in range(closed - 1, -1, -1) if words[k].endswith(",")), None)
    if opened is None or not words[opened][:1].isupper() or _MARKS.match(words[opened]):
        return None
    first = opened
    while first > 0 and words[first - 1][:1].isupper() and not words[first - 1].endswith(","):
        first -= 1
    return opened if first == 0 or words[first - 1].endswith(",") else None


def relative_clause(after: str) -> str:
    """The relative clause that follows a value within its sentence (`after`, the text from the value's end, marks
    read as their names), past clauses of names or a date alone ("Santa Barbara, California, where he died"; "Dunholt in
    1999, where she died"); "" where none follows."""
    plain = _unmarked(after)
    for clause in _CLAUSE.split(_SENTENCE_END.split(plain)[0]):
        if not (_names_only(clause) or _DATE_CLAUSE.fullmatch(clause)):
            return clause if _RELATIVE.match(clause) else ""
    return ""


def _names_another(triple: Triple, name: list[str], cues: frozenset[str]) -> bool:
    """Whether the words `name` name someone other than the triple's subject: none a function word, a month, a word
    of the subject's names or a cue of the relation or a rival's."""
    subject = {w for n in triple.subject_names for w in folded_words(without_disambiguation(n))}
    return not any(w in FUNCTION_WORDS or w in MONTHS or w in subject or _STEMMER.stemWord(w) in cues
                   for w in (fold_word(word) for word in name))


@dataclass(frozen=True)
class RelationCues:
    # Cue stems and rivals by relation key (id, label, alias, lower-cased, as `by_name` keys them).
    cues: Mapping[str, frozenset[str]]
    rivals: Mapping[str, tuple[frozenset[str], ...]]
    # The words that lead to a relation's object as the subject's opponent (`OPPONENTS`), keyed as `cues` is.
    opponents: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def _key(self, triple: Triple) -> str | None:
        return predicate_key(self.cues, triple)

    def own(self, triple: Triple) -> frozenset[str]:
        """The relation's cues: those its label, aliases and templates give where it is known, else its own
        name's words."""
        key = self._key(triple)
        return self.cues[key] if key is not None else stems([triple.predicate.rsplit("/", 1)[-1]])

    def states(self, triple: Triple, view: str) -> bool:
        """Whether the words between the marked names (or leading the subject: "the population of") hold a cue of
        the triple's relation: what a passage that gives another value must show before it contradicts. Across a
        sentence's end only the object's sentence counts, and only after the subject: a value in a sentence before
        the subject is named ("… where the painter Essa Thornbury died in 1979. … the drummer Pell Drummond") is
        stated of no one the passage names later."""
        words, marks = between_marks(view, leading=True), _nearest_marks(view)
        if words is None or marks is None:
            return False
        if _SENTENCE_END.search(view[marks[0][2]:marks[1][1]]):
            if marks[0][0] == "O":
                return False
            words = _SENTENCE_END.split(view[marks[0][2]:marks[1][1]])[-1]
        return (bool(set(_STEMMER.stemWords(folded_words(words))) & self.own(triple))
                or self.follows_as_own(triple, after_object(view)))

    def denies(self, triple: Triple, view: str) -> bool:
        """Whether the passage view states a rival relation between the marked names and not this one: in the
        clause next to the object where that clause holds a cue ("born in Cambridge, …, and died in [O]" states
        a death there), else in all the words between them ("born and died in London" states both). Where the
        passage names the object but not the subject (a page's title names it, or a surname or a pronoun does), the
        clause leading to each mention of the object says it: "Tesk was buried in the churchyard of [O]" on Quillan
        Tesk's page states no death there."""
        key = self._key(triple)
        if key is not None and "[S:" not in view and "[O:" in view:
            # "She lived in [O], where she died in 1990": the relative clause states the death, as below.
            if any(self.follows_as_own(triple, view[mark.end():]) for mark in _MARKS.finditer(view)
                   if mark.group(1) == "O"):
                return False
            return self._denied_unnamed(key, view)
        words = between_marks(view) if key is not None else None
        if key is None or words is None or self.follows_as_own(triple, after_object(view)):
            return False
        if self.opposes(key, view) or self.led_by_another(triple, view):
            return True
        own, rivals = self.cues[key], self.rivals.get(key, ())
        # A side of a life span says which end of a life the place is; the words leading to an object written before
        # the subject say what it is, their cue nearest the object first ("Died on April 5, 2008 in [O] ... [S]").
        side = life_span_side(view)
        if side is not None:
            return self._rival_only(key, set(_STEMMER.stemWords([side])))
        lead = self._leading_cues(key, view)
        if lead:
            return self._rival_only(key, lead)
        near = set(_STEMMER.stemWords(folded_words(last_statement(next_to_object(view) or ""))))
        found = near if near & own or any(near & rival for rival in rivals) else set(_STEMMER.stemWords(folded_words(words)))
        return self._rival_only(key, found)

    def _denied_unnamed(self, key: str, view: str) -> bool:
        """Whether the clause leading to every mention of the object, within its sentence, holds a rival's cue and
        none of the relation's own: one mention stated otherwise ("Dunholt is a market town") may be the subject's
        statement for all the passage says, so it keeps the reader's score."""
        leading = [_CLAUSE.split(_SENTENCE_END.split(view[:mark.start()])[-1])[-1]
                   for mark in _MARKS.finditer(view) if mark.group(1) == "O"]
        return all(self._rival_only(key, set(_STEMMER.stemWords(folded_words(words)))) for words in leading)

    def led_by_another(self, triple: Triple, view: str) -> bool:
        """Whether, in the object's sentence (or statement, after a semicolon) and before the subject is named in it,
        the relation's words (or a rival's) nearest the object follow another name than the subject's, as the verb of
        its statement: "[S] … . Halloway, born in [O], wrote …", "[S] … ; Edwin Marsh was born in [O]" and "… where
        the painter Essa Thornbury died in [O] … [S]" state others' births and deaths. Not where the words from the
        object on to the subject state the relation ("Venn's birthplace [O] is where [S] was born too"). A statement of
        no such words says what it says of the other ("Open House was a BBC series presented by [S]"), which the
        reader weighs. A name is two capitalised words, or one also written so within a sentence, none a function
        word, cue or month, and none of the subject's: "Born in [O], [S] …", "She was born in [O]" and "Holders of
        [O] stock …" have none. Between the name and the relation's words only the words of a verb may stand ("who
        was", "later"): "… Michael Mästlin, among others, and his work in [O]" is his work's statement."""
        marks, key = _nearest_marks(view), self._key(triple)
        if marks is None or key is None:
            return False
        first, second = marks
        own = self.cues[key]
        cues = own.union(*self.rivals.get(key, ()))
        if first[0] == "O":
            opening = leading_to_object(view) or ""
            if set(_STEMMER.stemWords(folded_words(view[first[2]:second[1]]))) & own:
                return False
        else:
            parts = _STATEMENT_END.split(_BRACKET.sub(" ", view[first[2]:second[1]]))
            if len(parts) < 2:
                # The statement that names the object names the subject before it: its own, unless only in an aside
                # on another's name.
                return self._aside_on_another(triple, view, first, second, cues)
            opening = parts[-1]
        # A statement after a semicolon has a subject of its own, as a value after a key's colon has the page's (a
        # card's lines run together in a view); one in brackets is an aside.
        words = re.split(r"[;:]", _BRACKET.sub(" ", opening))[-1].split()
        said = [i for i, word in enumerate(words) if set(_STEMMER.stemWords(folded_words(word))) & cues]
        if not said or words[said[-1]][:1].isupper():
            return False  # none, or a card's next field ("… Oslo, Norway Died on 5 April 1990 in [O]")
        # Back from the relation's words, past a few in lower case ("was", "who had been"), to the name they follow,
        # and past an aside on it between commas ("Osric Fell, a violin maker who trained with her father, died in").
        at = said[-1] - 1
        while at >= 0 and not words[at][:1].isupper():
            if words[at].endswith(",") and (opened := _aside_opened(words, at)) is not None:
                at = opened
                break
            if fold_word(words[at]) not in _VERB_WORDS:
                return False  # "his work in", "a trade that sent": another statement's words, or no name's verb
            at -= 1
        name: list[str] = []
        while at >= 0 and words[at][:1].isupper() and not _MARKS.match(words[at]):
            name.insert(0, re.sub(r"['’]s?$", "", words[at].strip(",:'\"")))
            at -= 1
        if not name or not _names_another(triple, name, cues):
            return False
        # A sentence opens with a capital: one word is a name only where it is written so within a sentence too.
        return len(name) > 1 or re.search(rf"[a-z,] {re.escape(name[0])}\b", view) is not None

    @staticmethod
    def _aside_on_another(triple: Triple, view: str, first: tuple[str, int, int], second: tuple[str, int, int],
                          cues: frozenset[str]) -> bool:
        """Whether the subject (the `first` mark) is named only in an aside on another's name, between commas, and
        the relation's words (or a rival's) after the aside are that name's verb: "Mickey Rose, a writer who grew up
        with [S], died in [O]" and "Tobiah Venn, whose band [S] joined, was born in [O]" tell of Rose and Venn."""
        before = _unmarked(_STATEMENT_END.split(_BRACKET.sub(" ", view[:first[1]]))[-1])
        aside = _ASIDE.search(before)
        if aside is None:
            return False
        parts = _BRACKET.sub(" ", view[first[2]:second[1]]).split(",")
        if len(parts) < 2 or not _names_another(triple, aside.group(1).split(), cues):
            return False
        # The aside ends at the first comma after the subject; the words right after it, past a few of a verb, are the
        # relation's ("…, like him, born in" is no verb of Venn's).
        words = parts[1].split()
        lead = next((i for i, word in enumerate(words) if fold_word(word) not in _VERB_WORDS), len(words))
        return lead < len(words) and bool(set(_STEMMER.stemWords(folded_words(words[lead]))) & cues)

    def opposes(self, key: str, view: str) -> bool:
        """Whether the words right before the object's mark name it as the subject's opponent ("[S] scored 30 points
        against the [O]", "the Lakers' loss to the [O] ... [S]"): an opponent's word, then nothing but "to", "of",
        "by" and articles. Then the passage states no team of the subject's, whatever else it says ("[S] played
        against the [O]"); "debut against Arsenal for [O]", "a loss for the [O]" and "lost [S] to [O]" are not so
        written, and "the [O] beat the Lions as [S] scored 20" is his team's win."""
        opponent = self.opponents.get(key)
        marks = _nearest_marks(view)
        if not opponent or marks is None:
            return False
        start = next(mark[1] for mark in marks if mark[0] == "O")
        words = list(folded_words(_CLAUSE.split(_SENTENCE_END.split(view[max(0, start - 300):start])[-1])[-1]))
        while words and words[-1] in _TO_OPPONENT:
            words.pop()
        return bool(words) and _STEMMER.stemWord(words[-1]) in opponent

    def _leading_cues(self, key: str, view: str) -> set[str]:
        """Of the words leading to an object written before the subject (`leading_to_object`), the cue stems, the
        relation's own or a rival's, that say enough (not `_LOOSE`: "died at her home in [O]" is a death there), of
        the clause nearest the object that holds any: the object's own, or one before clauses of a date alone ("Died
        on April 5, 2008 in [O]"); "born and died in [O]" gives both. Empty where none leads to it. A list's earlier
        items lead to nothing. What `denies` reads; it states nothing on its own (`states`): a page's "published on
        2024-05-20" before a book's name is the page's date, not the book's."""
        own, rivals = self.cues[key], self.rivals.get(key, ())
        for clause in reversed(_CLAUSE.split(leading_to_object(view) or "")[-_LEADING_CLAUSES:]):
            found = {word for word in _STEMMER.stemWords(folded_words(clause))
                     if word not in _LOOSE and (word in own or any(word in rival for rival in rivals))}
            if found:
                return found
            if not _date_only(clause):
                return set()
        return set()

    def leads_to_rival(self, triple: Triple, before: str) -> bool:
        """Whether the clause that leads to a value (the last of `before`, the text up to it, within its sentence)
        holds a cue of a rival relation and none of the triple's: "Ada was born in" leads to no place of death. A
        clause of names alone is part of the value's own name: in "born in Nogales, Arizona" the clause that leads to
        Arizona is "born in Nogales"."""
        key = self._key(triple)
        if key is None:
            return False
        cues = self.cues[key].union(*self.rivals.get(key, ()))
        for clause in reversed(_CLAUSE.split(_SENTENCE_END.split(before)[-1])):
            words = set(_STEMMER.stemWords(folded_words(clause)))
            # A clause of names alone is the value's own name's part, unless it holds a cue ("Born 25 April 1874").
            if not _names_only(clause) or words & cues:
                return self._rival_only(key, words)
        return False

    def leads_as_own(self, triple: Triple, before: str) -> bool:
        """Whether the clause that leads to a value (the last of `before`, the text up to it, within its sentence)
        holds a cue of the triple's relation that says enough (not `_LOOSE`) and none of a rival's alone: "The company
        is headquartered in" leads to its headquarters; "Temenos bought Odyssey Group, the" leads to nothing of
        Temenos's, whatever follows the value ("the Luxembourg-based business")."""
        key = self._key(triple)
        if key is None:
            return False
        clause = _CLAUSE.split(_SENTENCE_END.split(before)[-1])[-1]
        words = set(_STEMMER.stemWords(folded_words(clause)))
        return bool(words & (self.cues[key] - _LOOSE)) and not self._rival_only(key, words)

    def follows_as_own(self, triple: Triple, after: str) -> bool:
        """Whether the relative clause that follows a value (`relative_clause` of `after`, the text from its end) says
        that the subject (a pronoun or its name) stands in the triple's relation to it, within its first words: in
        "born in Marrowick and later moved to Dunholt, where she died in 2019" the words that lead to Dunholt tell of
        a birth, and the clause after it of her death there. Not "where her father died", nor a loose cue ("where she
        spent the rest of her life")."""
        key = self._key(triple)
        found = _RELATIVE.match(relative_clause(after)) if key is not None else None
        if key is None or found is None:
            return False
        who = fold_word(found.group(1))
        names = {word for name in triple.subject_names for word in folded_words(without_disambiguation(name))}
        if who not in _PRONOUNS and who not in names:
            return False
        words = set(_STEMMER.stemWords(folded_words(found.group(2))))
        return bool(words & (self.cues[key] - _LOOSE)) and not self._rival_only(key, words)

    def leads_first_to(self, triple: Triple, view: str, other: str) -> bool:
        """Whether, within one sentence, the relation's words lead from the subject to `other`, a value stated between
        the subject and the object, and a second statement follows it that leads on to the object without them: "[S]
        was born in Marrowick in 1952 and later moved to [O]" states a birth in Marrowick and nothing of one in the
        object. Not where the words after `other` are the object's region or the place that holds it ("born in
        Hampstead, north London"; "in the Shoreditch district of London": no second statement), nor where a relative
        clause after the object states the relation."""
        marks, key = _nearest_marks(view), self._key(triple)
        if marks is None or key is None or marks[0][0] != "S" or not folded_words(other):
            return False
        words = view[marks[0][2]:marks[1][1]]
        found = re.search(rf"(?<!\w){re.escape(other)}(?!\w)", words, re.IGNORECASE)
        if found is None or _SENTENCE_END.search(words) or self.follows_as_own(triple, after_object(view)):
            return False
        return self._led_on_from(key, words[:found.start()], words[found.end():])

    def leads_elsewhere(self, triple: Triple, view: str) -> bool:
        """Whether, in the object's sentence after the subject is named, the relation's words lead first to another
        name, and a second statement follows it that leads on to the object without them: "[S] is a swimmer. She was
        born in Australia in 1990 and trained in [O]" states no birth in the object (`leads_first_to`, the other name
        found in the words themselves: a capitalised word that the relation's words lead to, a preposition or two
        between; "recorded … by R&B, Soul, and Rock n Roll singer Jackie Wilson on the [O] label" leads to none)."""
        marks, key = _nearest_marks(view), self._key(triple)
        if marks is None or key is None or marks[0][0] != "S":
            return False
        words = _SENTENCE_END.split(view[marks[0][2]:marks[1][1]])[-1]
        for cue in re.finditer(r"\w[\w'’-]*", words):
            if set(_STEMMER.stemWords(folded_words(cue.group()))) & self.cues[key]:
                other = _NAME_LED_TO.match(words[cue.end():])
                if other is None:
                    continue
                start = cue.end() + other.start(1)
                rest = words[start + len(other.group(1)):]
                joined = _SECOND_STATEMENT.search(rest)
                # A value alone: no other name before the second statement ("including Miles Davis, Ornette Coleman
                # … and as a session drummer for [O]" lists names, and leads to no one of them).
                if joined is None or re.search(r"\b[A-Z]", rest[:joined.start()]):
                    return False
                return self._led_on_from(key, words[:start], rest) and not self.follows_as_own(
                    triple, after_object(view))
        return False

    def _led_on_from(self, key: str, lead: str, rest: str) -> bool:
        """Whether the relation's words lead to a value (`lead`, the words before it) and a second statement of none of
        them follows it (`rest`, the words after it up to the object)."""
        leading = next((clause for clause in reversed(_CLAUSE.split(lead)) if not _names_only(clause)), "")
        return (bool(set(_STEMMER.stemWords(folded_words(leading))) & self.cues[key])
                and not set(_STEMMER.stemWords(folded_words(rest))) & self.cues[key]
                and _SECOND_STATEMENT.search(rest) is not None)

    def leads_back_to_rival(self, triple: Triple, after: str) -> bool:
        """Whether the words after a value (`after`, the text from its end) that lead to the subject's name, within
        their clause, hold a cue of a rival relation and none of the triple's: "Cincinnati born writer Robert Lowry"
        gives no place of death. False where the clause does not go on to name the subject."""
        key = self._key(triple)
        if key is None:
            return False
        words = folded_words(_CLAUSE.split(_SENTENCE_END.split(after)[0])[0])
        forms = {*triple.subject_names, *map(without_disambiguation, triple.subject_names)}
        names = [folded_words(name) for name in forms]
        lead = next((words[:i] for i in range(len(words)) for name in names
                     if name and words[i:i + len(name)] == name), None)
        return lead is not None and self._rival_only(key, set(_STEMMER.stemWords(lead)))

    def names_rival(self, triple: Triple, key: str) -> bool:
        """Whether a page's key (`Place of death`) names a rival of the triple's relation and not the relation: its
        line gives that rival's value."""
        relation = self._key(triple)
        return relation is not None and self._rival_only(relation, set(_STEMMER.stemWords(folded_words(key))))

    def _rival_only(self, key: str, words: set[str]) -> bool:
        """Whether the stemmed `words` hold a cue of a rival of relation `key` and none of its own."""
        return not words & self.cues[key] and any(words & rival for rival in self.rivals.get(key, ()))

    @staticmethod
    def of(predicates: Mapping[str, PredicateInfo], table: CueTable) -> RelationCues:
        """The cues of `table`, keyed as `by_name` keys them by the names `predicates` give each relation."""
        return RelationCues(by_name(dict(predicates), {pid: own for pid, (own, _) in table.items()}),
                            by_name(dict(predicates), {pid: rivals for pid, (_, rivals) in table.items()}),
                            by_name(dict(predicates), {pid: words for pid, words in OPPONENTS.items() if pid in predicates}))

    @staticmethod
    def build(predicates: Mapping[str, PredicateInfo], objects: Mapping[str, set[str]],
              single: Collection[str]) -> CueTable:
        """(cues, rivals) by relation id: the cues of every relation known, and for each relation of `single` (one
        value per subject) that the facts files give objects of, its rivals among those and `UNHELD_RIVALS`; a
        rival's cues that are also the relation's own are left out of it. A many-valued relation has no rival but
        those `UNHELD_RIVALS` names: "written in Norwegian" may state a play's language while a spoken language's
        cue stands beside it."""
        cues = {pid: cue_stems(info) for pid, info in predicates.items()}
        table: CueTable = {pid: (own, ()) for pid, own in cues.items()}
        one = [pid for pid in objects if pid in predicates and pid in single]
        for pid in one + [pid for pid in UNHELD_RIVALS if pid in predicates and pid not in one]:
            own, rivals = cues[pid], []
            for other in one if pid in one else ():
                theirs = cues[other]
                shared = len(objects[pid] & objects[other]) / max(1, len(objects[pid] | objects[other]))
                if other != pid and RIVAL_OVERLAP[0] <= shared < RIVAL_OVERLAP[1] and theirs - own:
                    rivals.append(frozenset(theirs - own))
            rivals += [frozenset(cues[other] - own - _OF_ANY_WORK) for other in UNHELD_RIVALS.get(pid, ())
                       if cues.get(other, own) - own - _OF_ANY_WORK]
            table[pid] = (own, tuple(rivals))
        return table


def shipped_cues_path() -> Path:
    return Path(str(resources.files("agentkgv.reader_agent").joinpath(CUES_FILE)))


def write_cue_table(table: CueTable, path: Path) -> int:
    """The table `read_cue_table` reads, written reproducibly (sorted, no time stamp); returns its size in bytes."""
    rows = {pid: {"cues": sorted(own), "rivals": sorted(sorted(r) for r in rivals)} if rivals else {"cues": sorted(own)}
            for pid, (own, rivals) in sorted(table.items())}
    data = gzip.compress(json.dumps(rows, sort_keys=True).encode("utf-8"), 9, mtime=0)
    path.write_bytes(data)
    return len(data)


def read_cue_table(path: Path | None = None) -> CueTable:
    """The shipped cue table, or the one at `path`."""
    path = path or shipped_cues_path()
    try:
        rows = json.loads(gzip.decompress(path.read_bytes()))
        return {pid: (frozenset(row["cues"]), tuple(frozenset(r) for r in row.get("rivals", ())))
                for pid, row in rows.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise DataError(path, f"not a relation cue table: {error!r}") from None
