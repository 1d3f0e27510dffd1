"""The object's one subject: where each object of a relation has one subject of it (a book one author, a firm one
parent organisation, a country one capital), a passage that gives the object another such subject contradicts the
triple, as another value of a relation with one value contradicts its subject's.

FactBench's `author` goes from the writer to the book. The book has one author, so a page that says "Schismatrix
by Bruce Sterling" states that Eric Flint did not write it, though it never names Eric Flint. Such a triple is read
turned round, as the statement of its object (`read_from_object`: Schismatrix, author, Eric Flint), and each name a
passage gives beside the object (`names_beside`) is another value of that statement, weighed as one: the evidence
reader must read the turned statement true of it. The value reader reads no author off a page, so the names are the
proper names of the sentences that name the object, those of another kind than the subject's dropped
(reader_agent/value_kinds.py).
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
# every graph (91% of Re-DocRED's books, where a person has one birthplace in 79%), and pages state it by name
# ("a novel by Edwin A. Abbott"). Not a subsidiary's one parent, though as common: the reader takes "Conrail, whose
# primary subsidiary is Consolidated Rail Corporation" for the subsidiary's parent, and a firm sold on has had
# several; measured on FactBench-docs, it contradicted a true triple for each wrong one (BENCHMARKS.md).
FROM_THE_OBJECT: dict[tuple[str, bool], str] = {
    ("P50", True): "P50",  # the writer's book (FactBench's `author`): the book's author
    ("P800", False): "P50",  # a person's notable work: the work's author
}
TURNED_RELATIONS = frozenset(relation for relation, _ in FROM_THE_OBJECT)
# The names of a passage weighed as the object's other subjects, at most: the first, in the order written.
NAMES_BESIDE = 8
_POSSESSIVE = re.compile(r"['’]s?$")
_INITIAL = re.compile(r"(?:^|\s)[A-Z]\.$")
# A proper name as written: capitalised words and initials, joined by single spaces (not a line's end: a page's
# "Author: Edwin Abbott Abbott" line runs on into "Release Date") or a particle ("Edwin A. Abbott", "Ursula K. Le
# Guin", "Honoré de Balzac").
_NAME = re.compile(r"(?<![\w'’-])[A-Z][\w'’-]*\.?(?: (?:of|de|da|del|der|van|von|le|la|du)(?= [A-Z]))?"
                   r"(?: [A-Z][\w'’-]*\.?(?: (?:of|de|da|del|der|van|von|le|la|du)(?= [A-Z]))?)*")


def read_from_object(claim: Claim, relation: str, backwards: bool, label: str) -> Claim | None:
    """The claim read from its object's end, where the object has one value of a relation the table names (`label`:
    that relation's name); None where it has not, or the claim is not of a name."""
    mirror = FROM_THE_OBJECT.get((relation, backwards))
    if mirror is None or claim.kind is not Kind.ENTITY:
        return None
    t = claim.triple
    return Claim(Triple(subject=t.object, predicate=label, object=t.subject, predicate_id=mirror,
                        subject_id=t.object_id, object_id=t.subject_id, subject_aliases=t.object_aliases,
                        object_aliases=t.subject_aliases), Kind.ENTITY)


def names_beside(triple: Triple, text: str) -> list[str]:
    """The proper names of the sentences of `text` that name the triple's subject: not its subject's or its object's
    names, nor a sentence's first word alone ("Industry observers said"), whose capital says nothing; the first
    `NAMES_BESIDE`, as written, a possessive's ending left out."""
    own = [set(folded_words(name)) for name in (*triple.subject_names, *triple.object_names)]
    found: list[str] = []
    for sentence in split_sentences(text):
        if not reader_view(triple, sentence).has_subject:
            continue
        for match in _NAME.finditer(sentence):
            words = match.group(0).split()
            while words and words[0].lower() in FUNCTION_WORDS:  # "The Redwood Shores": the article is no name's
                words = words[1:]
            name = _POSSESSIVE.sub("", " ".join(words))
            if name.endswith(".") and not _INITIAL.search(name):  # a full stop, not an initial's
                name = name[:-1]
            folded = set(folded_words(name))
            alone_first = match.start() == 0 and len(match.group(0).split()) == 1
            if (not folded or alone_first or any(folded & mine for mine in own) or folded <= FUNCTION_WORDS
                    or name in found):
                continue
            found.append(name)
            if len(found) == NAMES_BESIDE:
                return found
    return found
