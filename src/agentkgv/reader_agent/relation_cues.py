"""The words that say which relation a passage states between two names: "died in London" says nothing of a
birth there.

The shipped reader keys on the marked names more than on the words between them: it scores Holst's "died
in London" as stating his birth in London. So a rule stands beside it, for relations a rival shares objects
with (a place of birth and a place of death take the same cities): a passage whose words between the
subject's and the object's marks hold a cue of a rival relation and none of the triple's own does not
support the triple, whatever its score. The cues are the content words of each relation's label, aliases
and ParaRel templates (`was born in`, `passed away in`), stemmed; the rivals, the relations whose objects in
the facts files overlap. A passage that writes both ("born and died in London") or neither keeps its score.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import Stemmer

from agentkgv.data.predicates import PredicateInfo, template_phrase
from agentkgv.data.records import Triple
from agentkgv.data.text import folded_words

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


def stems(phrases: list[str]) -> frozenset[str]:
    """The content words of `phrases`, stemmed, less the words any relation's name may hold."""
    words = {w for phrase in phrases for w in folded_words(phrase) if w not in _STOP and not w.isdigit() and len(w) > 2}
    return frozenset(_STEMMER.stemWords(sorted(words))) - _GENERIC


def cue_stems(info: PredicateInfo) -> frozenset[str]:
    return stems([info.label, *info.aliases, *(template_phrase(t) for t in info.templates)])


# "The population of [S:Marrowick] was 19,450": a relation's noun may lead the subject, joined to it by "of".
_LEADS = re.compile(r"((?:[\w'-]+\s+){1,3})of\s*$")


def between_marks(view: str, leading: bool = False) -> str | None:
    """The words between the nearest subject and object marks of a passage view, None without both. `leading`:
    with the words that lead the subject where it comes first and follows "of" ("the population of")."""
    marks = [(m.group(1), m.start(), m.end()) for m in _MARKS.finditer(view)]
    pairs = [(a, b) for a in marks for b in marks if a[0] == "S" and b[0] == "O"]
    if not pairs:
        return None
    a, b = min(pairs, key=lambda pair: abs(pair[0][1] - pair[1][1]))
    first, second = sorted((a, b), key=lambda mark: mark[1])
    words = view[first[2]:second[1]]
    lead = _LEADS.search(view[max(0, first[1] - 60):first[1]]) if leading and first[0] == "S" else None
    return f"{lead.group(1)} {words}" if lead else words


@dataclass(frozen=True)
class RelationCues:
    # Cue stems and rivals by relation key (id, label, alias, lower-cased, as `by_name` keys them).
    cues: Mapping[str, frozenset[str]]
    rivals: Mapping[str, tuple[frozenset[str], ...]]

    def _key(self, triple: Triple) -> str | None:
        return next((k for k in (triple.predicate_id, triple.predicate.lower()) if k in self.cues), None)

    def own(self, triple: Triple) -> frozenset[str]:
        """The relation's cues: those its label, aliases and templates give where it is known, else its own
        name's words."""
        key = self._key(triple)
        return self.cues[key] if key is not None else stems([triple.predicate.rsplit("/", 1)[-1]])

    def states(self, triple: Triple, view: str) -> bool:
        """Whether the words between the marked names (or leading the subject: "the population of") hold a cue of
        the triple's relation: what a passage that gives another value must show before it contradicts."""
        words = between_marks(view, leading=True)
        return words is not None and bool(set(_STEMMER.stemWords(folded_words(words))) & self.own(triple))

    def denies(self, triple: Triple, view: str) -> bool:
        """Whether the passage view states a rival relation between the marked names and not this one."""
        key = self._key(triple)
        words = between_marks(view) if key is not None else None
        if key is None or words is None:
            return False
        stems = set(_STEMMER.stemWords(folded_words(words)))
        return not stems & self.cues[key] and any(stems & rival for rival in self.rivals.get(key, ()))

    @staticmethod
    def build(predicates: Mapping[str, PredicateInfo], objects: Mapping[str, set[str]]) -> dict[str, tuple]:
        """(cues, rivals) by relation id: the cues of every relation known, and for each relation with one value
        per subject that the facts files give objects of, its rivals among those; a rival's cues that are also
        the relation's own are left out of it. A many-valued relation has no rival: "written in Norwegian" may
        state a play's language while a spoken language's cue stands beside it."""
        cues = {pid: cue_stems(info) for pid, info in predicates.items()}
        table: dict[str, tuple] = {pid: (own, ()) for pid, own in cues.items()}
        single = [pid for pid in objects if pid in predicates and predicates[pid].single_valued]
        for pid in single:
            own, rivals = cues[pid], []
            for other in single:
                theirs = cues[other]
                shared = len(objects[pid] & objects[other]) / max(1, len(objects[pid] | objects[other]))
                if other != pid and RIVAL_OVERLAP[0] <= shared < RIVAL_OVERLAP[1] and theirs - own:
                    rivals.append(frozenset(theirs - own))
            table[pid] = (own, tuple(rivals))
        return table
