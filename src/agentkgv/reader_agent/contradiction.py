"""Where a passage read contradicts a triple: it states another value where the triple's object stands, for a
relation where another value excludes the object, or, for a relation with several values, speaks against it.

A value is another date, another number beyond rounding, or another name the facts files give for a relation
with one value per subject (reader_agent/relation_facts.py). The reader then scores the triple with that value
against the passage; where its calibration would call that triple true, the passage contradicts the claim. A name
of a relation with several values (an employer, a member of, a field of work) is read the same way, as another of
several:
another value stated where nothing read supports the object excludes nothing, but speaks against it (a BBC
presenter's page that names the BBC and no ESPN), weighed apart from a contradiction (`Calibration.several_ratio`).
Because the reader keys on the marked names more than on the words between them, a value counts only where
the passage's words between the subject and it say the relation (`born` for a birth, `founded` for a
founding): "Codemasters opened an office in 2006" contradicts no founding year.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agentkgv.core.evidence_view import LEGAL_FORMS
from agentkgv.data.places import gazetteer
from agentkgv.data.records import Triple
from agentkgv.data.text import FUNCTION_WORDS, fold, fold_word, folded_words
from agentkgv.data.trex_json import sentence_spans
from agentkgv.reader_agent.claims import Claim, Kind, links_out, same_name, web_address
from agentkgv.reader_agent.form_lines import is_field, lines_of, listed_in_lines
from agentkgv.reader_agent.values import dates_in, numbers_in
from agentkgv.reader_agent.reader import names_subject, reader_view
from agentkgv.reader_agent.relation_facts import RelationFacts
from agentkgv.retrieval.base import Hit


@dataclass(frozen=True, slots=True)
class Contradiction:
    """A passage read that states another value where the triple's object stands, and the reader's support
    for the triple with that value."""

    hit: Hit
    value: str
    p_other: float  # P(true) of the triple with `value`, by the judge's calibration
    worded: bool  # whether the passage states the value with the relation's words or as its key-value line's
    of_object: bool = False  # whether the value is another subject of the object's (reader_agent/object_side.py)


@dataclass(frozen=True, slots=True)
class Unlisted:
    """A trusted page about the subject whose key-value line lists the relation's values in full, the triple's
    object not among them (`Starring: Sam Shepard, Scott Glenn and Ed Harris` against a film starring Demi Lovato):
    evidence against a triple of a relation with several values, weaker than another value of a relation with one."""

    hit: Hit
    values: tuple[str, ...]


def unlisted_in(claim: Claim, names: tuple[str, ...], text: str) -> tuple[str, ...] | None:
    """The first list a key-value line of `text` gives for the relation (`names`: its label and the aliases that
    name it alone) in which no value names the claim's object, if any."""
    return next((tuple(values) for values in listed_in_lines(names, text)
                 if all(stated_other(claim, value) is not None for value in values)), None)


def contradicts(claim: Claim, relations: RelationFacts) -> bool:
    """Whether another value would contradict the claim: a date or a number, or a name of a relation with one
    value per subject."""
    return claim.kind in (Kind.DATE, Kind.NUMBER) or (claim.kind is Kind.ENTITY and relations.holds(claim.triple))


def takes_several(claim: Claim, relations: RelationFacts) -> bool:
    """Whether another value would speak against the claim without excluding it: a name of a relation with several
    values per subject, of those the predicates table knows (of one it does not, nobody says how many it takes)."""
    return claim.kind is Kind.ENTITY and not relations.holds(claim.triple) and relations.knows(claim.triple)


def other_values(claim: Claim, relations: RelationFacts, text: str, limit: int) -> list[str]:
    """The values a passage about the subject gives in the object's place, with the relation's words between
    the subject and each; the first `limit` found, less those written as no value of the object's kind is
    (`names_nothing_of`): "electronic music" gives Jacques Brel no record label "music", whatever label the facts
    files give one."""
    if not reader_view(claim.triple, text).has_subject:
        return []
    found = (relations.others_in(claim.triple, text, limit) if claim.kind is Kind.ENTITY
             else claim.others_in(text, limit))
    return [value for value in found
            if not relations.may_hold(value, claim.triple) and not names_nothing_of(claim, value)
            and states_value(relations, claim, value, text)]


def states_value(relations: RelationFacts, claim: Claim, value: str, text: str) -> bool:
    """Whether `text` states `value` as the claim's relation's, with its words (`stated_as_own`)."""
    other = claim.with_object(value)
    return stated_as_own(relations, other, reader_view(other, text).text)


def stated_as_own(relations: RelationFacts, triple: Triple, view: str) -> bool:
    """Whether the words between the marked names state the triple's relation, and the clause next to its value no
    rival relation alone: "born Gross-Strehlitz, Germany 28 October 1916; …; died Bonn 6 May 1998" holds a birth's
    cue between the names, but gives Bonn as the place of death, not of birth; "born in Australia in 1990 and trained in
    Brisbane" gives no birthplace Brisbane (`RelationCues.leads_elsewhere`)."""
    return (relations.cues.states(triple, view) and not relations.cues.denies(triple, view)
            and not relations.cues.leads_elsewhere(triple, view))


def stated_other(claim: Claim, value: str) -> str | None:
    """`value` (what a passage gives for the claim's subject and relation: the value reader's span or a key-value
    line's) where it is another value than the claim's: another date or number (compared as values), or a name
    that is neither the object's nor the subject's and holds neither (`Dunholt` for Marrowick; not `Victoria` for
    `Alexandra, Victoria`), nor is one of them in another number (`symphonies` for `symphony`, `singular`), nor names
    the same place with its region written otherwise (`Santa Barbara, CA` for `Santa Barbara, California`), nor is one
    of them as a possessive (`Bethany Joy Lenz's` for Bethany Joy Lenz-Galeotti) or by its initials (`EA` for
    Electronic Arts). An object that lists values ("Linux, Mac OS and Microsoft Windows") is each of them as well."""
    if claim.date is not None:
        return next((s for s, d in dates_in(value) if claim.date.agrees(d) is False), None)
    if claim.number is not None:
        return next((s for s, n in numbers_in(value) if claim.number.agrees(n) is False), None)
    read = _POSSESSIVE.sub("", value)  # "Bethany Joy Lenz's" names her
    words = set(folded_words(read))
    if not words:
        return None
    head, one = folded_words(read.split(",")[0]), singular(read)
    for name in (*claim.triple.object_names, *listed_in(claim.triple.object), *claim.triple.subject_names):
        theirs = set(folded_words(name))
        if same_name(read, name) or (theirs and (theirs <= words or words <= theirs)) or one == singular(name) or (
                initials_of(read, name)):
            return None
        if "," in read and head == folded_words(name.split(",")[0]):
            return None
    return value


def listed_in(name: str) -> list[str]:
    """The values a name lists, written "A, B and C" (a comma and an "and" both: "Trinidad and Tobago" is one name,
    "Alexandra, Victoria" a place and its region, "Simon & Schuster, Inc." a firm); none where it lists none."""
    if "," not in name or not re.search(r"\sand\s", name):
        return []
    items = [item for item in re.split(r"\s*,\s*|\s+and\s+", name) if item]
    # A firm's legal form is no value it lists ("Harcourt, Brace and Company", "Simon & Schuster, Inc.").
    return [item for item in items if item.lower().rstrip(".") not in (*LEGAL_FORMS, "company")]


_POSSESSIVE = re.compile(r"\s*['\u2019]s?$")
_INITIALS = re.compile(r"[A-Z]{2,6}")


def initials_of(value: str, name: str) -> bool:
    """Whether `value` is written as the initials of `name`'s capitalised words ("EA" for Electronic Arts, "IBM" for
    International Business Machines)."""
    initials = "".join(word[0] for word in name.split() if word[:1].isupper())
    return bool(_INITIALS.fullmatch(value)) and value == initials


# English plural endings and what each stands for in the singular, the longest first. Written out because the
# dependencies hold no lemmatizer, and a stemmer joins words of two meanings ("anime" and "animation").
_PLURALS = (("ies", "y"), ("ches", "ch"), ("shes", "sh"), ("sses", "ss"), ("xes", "x"), ("s", ""))


# Feminine endings of English nouns and the form they mark ("actress": `actor`, "poetess": `poet`): one occupation.
_FEMININE = (("tresses", "tor"), ("esses", ""), ("tress", "tor"), ("ess", ""))


def singular(value: str) -> tuple[str, ...]:
    """The folded words of `value`, each written in lower case put in the singular and the unmarked gender
    ("symphonies": `symphony`, "actresses": `actor`); a capitalised word is a name, whose final s is its own
    ("Williams")."""
    def one(word: str) -> str:
        folded = fold_word(word)
        if word[:1].islower() and len(folded) > 6 and (ending := next(
                (pair for pair in _FEMININE if folded.endswith(pair[0])), None)):
            return folded[:-len(ending[0])] + ending[1]
        if not word[:1].islower() or folded.endswith(("ss", "us", "is")):
            return folded
        return next((folded[:-len(plural)] + own for plural, own in _PLURALS
                     if folded.endswith(plural) and len(folded) > len(plural) + 2), folded)
    return tuple(one(word) for word in re.findall(r"[\w'’-]+", value))


def writes_as_region(triple: Triple, before: str) -> bool:
    """Whether a value stands right after the triple's object, a comma between (`before`, the text up to the value):
    "born in Alexandra, Victoria" writes Alexandra with its region, which is no other place of birth."""
    before = before.rstrip()
    return before.endswith(",") and any(
        fold(before[:-1]).endswith(fold(name)) for name in triple.object_names if folded_words(name))


# A word right before or after a name, a space between; what ends a name with the word it follows.
_WORD_BEFORE = re.compile(r"(\S+) $")
# The next word after a name, with the lower-case words that may join it to the name first (`_NAME_JOINS`).
_JOINED_AFTER = re.compile(r"^ ((?:[a-z]+ ){0,2})(\S+)")
_ENDS_NAME = ".,;:!?)'\"’”"
# The lower-case words that join the words of one name ("University of Cambridge", "Academy Award for Best Actor",
# "Order of the British Empire", "Leonardo da Vinci"), and the nouns of honours whose names go on with "in" ("Nobel
# Prize in Physics"): elsewhere "in" leads to another name ("Harvard University in Cambridge").
_NAME_JOINS = frozenset({"of", "for", "the", "de", "del", "della", "di", "da", "du", "des", "von", "van", "der", "den",
                         "la", "le", "y"})
_HONOURS = frozenset({"prize", "award", "medal", "trophy"})


def _of_name(word: str) -> bool:
    """Whether `word`, next to a name, is part of it: capitalised and no function word ("In Paris", "the Hague")."""
    return word[:1].isupper() and word.lower() not in FUNCTION_WORDS


# The two words a sentence opens with, a space between.
_OPENING = re.compile(r"[\"'(\[“‘]?(\w[\w'’.-]*+) (\w[\w'’.-]*+)")


def _tells_of_another(sentence: str) -> bool:
    """Whether a sentence that does not name the subject opens with a name, two capitalised words the first of which
    is no function word ("Edwin Marsh was", not "The Lembrook weir", "In Paris"), and so tells of what that names;
    not where its first line is a page's key-value line ("Birth Place: Lembrook", `form_lines.is_field`)."""
    opening = _OPENING.match(sentence)
    return (opening is not None and all(word[:1].isupper() for word in opening.groups())
            and opening.group(1).lower() not in FUNCTION_WORDS and not is_field(sentence.split("\n", 1)[0]))


# A sentence that opens with one of the subject's kin or fellows tells of them, not of the subject: "His brother Tam
# Fell married Wenna Pollard", "Her father, Edwin Penhallow, was born in Tessaby". The words name persons only, so a
# sentence of the subject's own things ("His debut album was released by ...") stays the subject's.
_KIN_WORDS = ("father|mother|parents?|brothers?|sisters?|siblings?|sons?|daughters?|child|children|wife|wives|husband"
              "|spouse|partner|widow|widower|fianc[ée]e?|grandfather|grandmother|grand(?:son|daughter|child)(?:ren|s)?"
              "|uncle|aunt|nephews?|nieces?|cousins?|friends?|teachers?|mentor|pupils?|students?|colleagues?"
              "|teammates?|bandmates?|successor|predecessor")
# The opening runs on over the kin's name, or over a name a copula gives them ("His wife was Wenna Pollard"), which
# states who they are to the subject.
_KIN = re.compile(rf"[\"'(\[“‘]?(?:His|Her|Their)\s+(?:[a-z]+\s+)?(?:step-?|half-)?(?:{_KIN_WORDS})(?:-in-law)?\b"
                  r"(?:,?\s+(?:[A-Z][\w'’.-]*\s*)+)?,?"
                  r"(?:\s*(?:was|is|were|are|includes?|included)\s+(?:the\s+)?(?:[A-Z][\w'’.-]*\s*)+)?")


def kin_opening(sentence: str) -> int | None:
    """Where the opening that names one of the subject's kin ends ("His brother Tam Fell", "Her father, Edwin
    Penhallow,"), in a sentence that opens so; None in one that does not. The rest tells of that person; the opening
    itself states who they are to the subject (his wife, Wenna Pollard)."""
    opening = _KIN.match(sentence)
    return None if opening is None else opening.end()


def kin_blanked(triple: Triple, text: str) -> str:
    """`text` with what its sentences that open with one of the subject's kin, and do not name the subject, tell of
    that person blanked (`kin_opening`), spaces for its characters."""
    if _KIN.search(text) is None:
        return text  # most passages: no sentence to split
    kept = list(text)
    for start, end in sentence_spans(text):
        if (rest := kin_opening(text[start:end])) is not None and not names_subject(triple, text[start:end]):
            kept[start + rest:end] = ["\n" if c == "\n" else " " for c in text[start + rest:end]]
    return "".join(kept)


def others_blanked(triple: Triple, text: str) -> str:
    """`text` with what it tells of others than the triple's subject blanked out, spaces for its characters (its line
    breaks kept) so that every place in it holds: from a sentence that opens with another's name up to the next that
    names the subject. "Orla Penhallow was born in Lembrook in 1950. She built the weir. Edwin Marsh was born in
    Kelvercombe. He died in Marrowick." keeps Orla's two sentences: the value reader reads a whole passage, and a
    birthplace it finds in Edwin's states none of hers. A sentence of a pronoun or of no name continues whoever's
    the sentence before it told of. A known limit: a place that opens a sentence is read as another's name too
    ("Lembrook Abbey taught her. She died in Marrowick." blanks her death), which only withholds a value from the
    reader, never gives it one. A page's key-value line that names the subject is the page's subject's, not the
    subject's: it keeps nothing. A sentence that opens with one of the subject's kin keeps its opening only
    (`kin_blanked`)."""
    text = kin_blanked(triple, text)
    kept, other = list(text), False
    # A key-value line speaks of its page's subject: naming the subject there (`Spouse(s): … Dorran Vess` on Wenna
    # Pollard's card) makes what follows no more the subject's. Lines are found in the whole text, since a sentence
    # may end inside one ("(m. 1950); Dorran Vess").
    prose = text
    for line in lines_of(text):
        prose = prose[:line.start] + " " * (line.end - line.start) + prose[line.end:]
    for start, end in sentence_spans(text):
        sentence = text[start:end]
        if names_subject(triple, prose[start:end]):
            other = False
        elif kin_opening(sentence) is not None:
            pass  # blanked already; "He" after it may be either, and whoever the sentence before told of goes on
        elif _tells_of_another(sentence):
            other = True
        if other:
            kept[start:end] = ["\n" if c == "\n" else " " for c in sentence]
    return "".join(kept)


def names_nothing_of(claim: Claim, value: str) -> bool:
    """Whether `value` is written as no value of the claim's object's kind is: in lower case throughout where the
    object is a proper name ("valley", a page's heading word, names no town: "People of the valley"; "jazz" may name
    a genre written "jazz"), without a letter where the object is a name (a year, "1992", is no network), or as no web
    address where the object links out of the graph (a band's "jazz" is no other website of it)."""
    return (not any(c.isupper() or c.isdigit() for c in value) and any(c.isupper() for c in claim.triple.object)
            or claim.kind is Kind.ENTITY and not any(c.isalpha() for c in value)
            and any(c.isalpha() for c in claim.triple.object)
            or links_out(claim.triple) and not web_address(value))


def whole_name(text: str, start: int, end: int) -> str:
    """The proper name `text[start:end]` is part of, as written: the capitalised words on either side, a space between,
    up to a stop or a comma ("the London O2 Arena,", "released by Bethlehem Records in", "Holmby Hills, Los Angeles"),
    and after it the words that join a name's words (`_NAME_JOINS`), each once ("University of Cambridge", "Academy
    Award for Best Actor", "Order of the British Empire"). A span inside a longer name names that name's thing, whose
    kind it must be read by: Bethlehem Records is no place of death; and the value reader cuts names where its training
    spans did, so "Nobel" of "won the Nobel Prize in Physics" would pass for the Nobel Prize in Literature, whose words
    it shares. A span in lower case is no proper name: "American jazz" is jazz. Before the span, no join is crossed:
    "Physics" stays Physics."""
    if not text[start:end][:1].isupper():
        return text[start:end]
    used: set[str] = set()
    # A span that ends in a possessive is not carried on: "Bethany Joy Lenz's Husband" is another (a known limit:
    # "King's Lynn" read as "King's" stays so).
    while not _POSSESSIVE.search(text[start:end]) and (match := _JOINED_AFTER.match(text[end:])) and _of_name(
            word := match.group(2).rstrip(_ENDS_NAME)) and _joins(text[start:end], match.group(1).split(), used, word,
                                                                  text[end + match.end(1):]):
        used |= set(match.group(1).split())
        end += match.end(1) + len(word)
        if len(word) < len(match.group(2)):
            break
    while ((match := _WORD_BEFORE.search(text[:start])) and match.group(1)[-1] not in _ENDS_NAME
           and _of_name(match.group(1))):
        start = match.start()
    return text[start:end]


def _joins(name: str, joins: list[str], used: set[str], word: str, rest: str) -> bool:
    """Whether the words `joins` (lower-case, none or up to two) carry `name` on to the capitalised `word` that follows
    them, `rest` the text from that word on: each a word that joins a name's words and not used in it yet ("the Academy
    Award for Best Actor for Gandhi" names the award, then a film), no acronym after them ("the Cleveland Cavaliers of
    the NBA"), "in" only after an honour's noun and not before a place ("Nobel Prize in Physics"; "the Nobel Prize in
    Stockholm"), and nothing after a place's name ("born in London of Irish parents")."""
    if not joins:
        return True
    if used & set(joins) or word.isupper() or not all(
            join in _NAME_JOINS or join == "in" and k == 0 and name.split()[-1].lower() in _HONOURS
            for k, join in enumerate(joins)):
        return False
    places = gazetteer()
    return places.lie_in(name) is None and ("in" not in joins or places.lie_in(_capitalised_run(rest)) is None)


def _capitalised_run(text: str) -> str:
    """The capitalised words `text` opens with, up to a stop or a comma: "Los Angeles" of "Los Angeles in 1990"."""
    words = []
    for word in text.split(" "):
        bare = word.rstrip(_ENDS_NAME)
        if not _of_name(bare):
            break
        words.append(bare)
        if len(bare) < len(word):
            break
    return " ".join(words)
