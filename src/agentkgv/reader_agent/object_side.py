"""The object's one author: a book has one author, so a passage that gives the book another author contradicts a
triple that names someone else as its writer, as another value of a relation with one value contradicts its subject's.

FactBench's `author` goes from the writer to the book, so a page that says "Schismatrix by Bruce Sterling" states
that Eric Flint did not write it, though it never names Eric Flint. Such a triple is read turned round, as the
statement of its object (`read_from_object`: Schismatrix, author, Eric Flint), and each name a passage gives beside
the object (`names_beside`) is another value of that statement, weighed as one: the evidence reader must read the
turned statement true of it. The value reader reads no author off a page, so the names are the proper names of the
sentences that name the object, those of another kind than the subject's dropped (reader_agent/value_kinds.py).
"""

from __future__ import annotations

import re

from agentkgv.data.records import Triple
from agentkgv.data.text import FUNCTION_WORDS, folded_words
from agentkgv.data.trex_json import split_sentences
from agentkgv.reader_agent.claims import Claim, Kind
from agentkgv.reader_agent.reader import reader_view

# (relation id, whether the graph names it from the other end than Wikidata does) -> the relation of which the
# triple's object has one value, by Wikidata id; the triple's subject is that value. A book has one author in nearly
# every graph (91% of Re-DocRED's books, where a person has one birthplace in 79%), and pages state it by name ("a
# novel by Edwin A. Abbott"). Measured and left out (BENCHMARKS.md): a subsidiary's one parent, though as common, since
# the reader takes "Conrail, whose primary subsidiary is Consolidated Rail Corporation" for the subsidiary's parent and
# a firm sold on has had several. Not a person's notable work either: it may be a film, a building or a painting,
# whose director, architect or painter the evidence reader would read as its author.
FROM_THE_OBJECT: dict[tuple[str, bool], str] = {("P50", True): "P50"}
TURNED_RELATIONS = frozenset(relation for relation, _ in FROM_THE_OBJECT)
# The names of a passage weighed as the object's other subjects, at most: the first, in the order written.
NAMES_BESIDE = 8
_WORD = re.compile(r"[^\W\d_][\w'’-]*\.?")
# Words that join a name's parts in lower case ("Honoré de Balzac", "Ludwig van Beethoven").
_PARTICLES = frozenset({"of", "de", "da", "del", "der", "van", "von", "le", "la", "du"})
_POSSESSIVE = re.compile(r"['’]s?$")
_INITIAL = re.compile(r"(?:^|\s)[^\W\d_]\.$")


def read_from_object(claim: Claim, mirror: str, label: str) -> Claim | None:
    """The claim read from its object's end, as the statement of `mirror` (its relation's id; `label`, its name) of
    which the object has one value; None for a claim that is not of a name."""
    if claim.kind is not Kind.ENTITY:
        return None
    t = claim.triple
    return Claim(Triple(subject=t.object, predicate=label, object=t.subject, predicate_id=mirror,
                        subject_id=t.object_id, object_id=t.subject_id, subject_aliases=t.object_aliases,
                        object_aliases=t.subject_aliases), Kind.ENTITY)


def _names(sentence: str) -> list[tuple[bool, str]]:
    """The runs of capitalised words and initials of `sentence`, joined by single spaces (not a line's end: a page's
    "Author: Edwin Abbott Abbott" line runs on into "Release Date") or a particle, each with whether it is the
    sentence's first word alone, whose capital says nothing ("Industry observers said")."""
    runs: list[tuple[bool, str]] = []
    words = list(_WORD.finditer(sentence))
    k = 0
    while k < len(words):
        if not words[k].group(0)[0].isupper():
            k += 1
            continue
        first, end = k, k
        while end + 1 < len(words) and sentence[words[end].end():words[end + 1].start()] == " " and (
                words[end + 1].group(0)[0].isupper() or words[end + 1].group(0) in _PARTICLES and end + 2 < len(words)
                and sentence[words[end + 1].end():words[end + 2].start()] == " "
                and words[end + 2].group(0)[0].isupper()):
            end += 1
        runs.append((first == 0 and end == 0, sentence[words[first].start():words[end].end()]))
        k = end + 1
    return runs


def names_beside(triple: Triple, text: str) -> list[str]:
    """The proper names of the sentences of `text` that name the triple's subject: none that shares a word with its
    subject's or its object's names (a book's title holds names of its own: "Sterling's Schismatrix" gives none), nor a
    sentence's first word alone; the first `NAMES_BESIDE`, as written (a line in capitals as a name is), a possessive's
    ending left out."""
    own = [set(folded_words(name)) for name in (*triple.subject_names, *triple.object_names)]
    found: list[str] = []
    for sentence in split_sentences(text):
        if not reader_view(triple, sentence).has_subject:
            continue
        for alone_first, run in _names(sentence):
            words = run.split()
            while words and words[0].lower() in FUNCTION_WORDS:  # "The Redwood Shores": the article is no name's
                words = words[1:]
            name = " ".join(words)
            if name.endswith(".") and not _INITIAL.search(name):  # a full stop, not an initial's
                name = name[:-1]
            name = _POSSESSIVE.sub("", name)
            name = name.title() if name.isupper() and len(name) > 3 else name
            folded = set(folded_words(name))
            if not folded or alone_first or any(folded & mine for mine in own) or folded <= FUNCTION_WORDS or (
                    name in found):
                continue
            found.append(name)
            if len(found) == NAMES_BESIDE:
                return found
    return found
