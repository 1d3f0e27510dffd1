"""Reader pairs of a paragraph about one subject that states several of its relations, each of another value.

A page about a firm says where it was founded, where it is headquartered and who founded it, each in its own
sentence. Every name of the page then stands in a passage that names the subject, and a reader that keys on the
names supports the firm's headquarters in the town it was founded in, or in its founder (a new user's trial page:
BENCHMARKS.md, *Finding the wrong triples*). The other pairs mostly hold one statement a passage; these teach that
the relation between the names decides, where several values stand side by side:
- `paragraph_evidence`: the evidence sentences of two to four true facts of one subject, each of another relation
  and value, joined into one paragraph; each fact's triple against it (1);
- `paragraph_other_value`: a fact's triple with the object another sentence of the paragraph states for another
  relation (0): the paragraph names both, and states another relation between them.
Few subjects have evidence of several relations, so most paragraphs are composed: a fact's sentence beside another
fact's sentence of another relation, that one's subject written as this fact's subject (`composed_evidence`,
`composed_other_value`: the fact's triple, and the triple with the other sentence's value), half the time a value
the fact's own relation takes elsewhere (a city that is someone's birthplace, stated as a death place), which only
the relation's words tell apart. No claim is made of the composed sentence: it states a value that is not its new
subject's. Nor is one made of a sentence that holds the fact's relation's own words ("born and died in Varnholm" is
no other value of a birth), that names its subject twice (a second mention would still be the other's), or of a
value that may hold another place (a country, a region: "born in Switzerland" is true of a Genevan).

The facts are the reader's own true training facts (`evidence` pairs, which carry the pair set's exclusions); a
negative pairs a subject with another fact's value, which `check_reader_pairs` checks as it checks every pair.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace

from agentkgv.data.records import Triple
from agentkgv.data.text import label_key, mentions_any
from agentkgv.reader_agent.relation_cues import stems
from agentkgv.train.reader_data import ReaderPair, synonyms
from agentkgv.train.web_forms import Fact, fact_key, first_of_each

# How many facts a paragraph joins, at most: a page's opening paragraph, not a whole article.
MOST_FACTS = 4
# Sentences run on within a paragraph more often than they break lines.
SEPARATORS = (" ", " ", "\n")
# How many facts are drawn to find a composed paragraph's other fact, and to find one whose value the fact's relation
# takes elsewhere, before the fact goes without one.
DRAWS = 8
# Relations whose values may hold a place of any other relation: a country, a citizenship, a continent, a region.
CONTAINING = frozenset({"P17", "P27", "P30", "P131", "P495"})


def paragraph_pairs(facts: Sequence[Fact], rng: random.Random, composed_share: float = 1.0,
                    cues: Mapping[str, frozenset[str]] | None = None) -> list[ReaderPair]:
    """For each subject with facts of two or more relations (each relation and value once, no value named by another
    fact's sentence), one paragraph of their sentences, with each fact's triple (1) and each triple with another
    sentence's value (0); and for a `composed_share` of the facts (each triple once), a composed paragraph. `cues`:
    each relation's cue stems (`relation_cues.cue_stems`) by id, to pass over a sentence that holds them."""
    facts = first_of_each(facts)
    known = {fact_key(f.triple) for f in facts}
    by_subject: dict[str, list[Fact]] = defaultdict(list)
    for fact in facts:
        by_subject[label_key(fact.triple.subject)].append(fact)
    pairs: list[ReaderPair] = []
    for subject in sorted(by_subject):
        group = _distinct(by_subject[subject], rng)
        if len(group) < 2:
            continue
        text = _joined([f.text for f in group], rng)
        title = next((f.title for f in group if f.title), "")
        for fact in group:
            pairs.append(ReaderPair(fact.triple, text, title, 1.0, "paragraph_evidence", "paragraph"))
            pairs += [ReaderPair(swapped, text, title, 0.0, "paragraph_other_value", "paragraph")
                      for other in group if other is not fact and other.triple.predicate_id not in CONTAINING
                      and fact_key(swapped := _with_object(fact.triple, other.triple)) not in known]
    if composed_share:
        pairs += _composed_pairs(facts, known, rng, composed_share, cues or {})
    return pairs


def _composed_pairs(facts: Sequence[Fact], known: set[tuple[str, str, str]], rng: random.Random, share: float,
                    cues: Mapping[str, frozenset[str]]) -> list[ReaderPair]:
    values: dict[str, set[str]] = defaultdict(set)
    for fact in facts:
        values[fact.triple.predicate_id or ""].add(label_key(fact.triple.object))
    pairs: list[ReaderPair] = []
    for fact in facts:
        if rng.random() >= share:
            continue
        t = fact.triple
        own = cues.get(t.predicate_id or "", frozenset())
        for _ in range(DRAWS):
            other = rng.choice(facts)
            if rng.random() < 0.5:  # a value this relation takes elsewhere: a birthplace stated as a death place
                same_kind = [f for f in (rng.choice(facts) for _ in range(DRAWS))
                             if label_key(f.triple.object) in values[t.predicate_id or ""]]
                other = same_kind[0] if same_kind else other
            sentence = _about(other, t)
            if (sentence is None or not _apart(fact, other) or other.triple.predicate_id in CONTAINING
                    or stems([other.text]) & own):
                continue
            text = _joined(rng.sample([fact.text, sentence], 2), rng)
            pairs.append(ReaderPair(t, text, fact.title, 1.0, "composed_evidence", "paragraph"))
            if fact_key(swapped := _with_object(t, other.triple)) not in known:
                pairs.append(ReaderPair(swapped, text, fact.title, 0.0, "composed_other_value", "paragraph"))
            break
    return pairs


def _about(other: Fact, triple: Triple) -> str | None:
    """`other`'s sentence with its subject written as `triple`'s subject, or None where the sentence does not name its
    subject once by one name (a second mention would stay the other's), or names it as part of a longer name ("the
    University of Paris", "Paris Saint-Germain")."""
    found = sorted((m for name in other.triple.subject_names
                    for m in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", other.text)),
                   key=lambda m: m.start() - m.end())
    mentions = []  # longest first, a name inside a longer mention ("Marsh" in "Edwin Marsh") no mention of its own
    for m in found:
        if not any(k.start() <= m.start() and m.end() <= k.end() for k in mentions):
            mentions.append(m)
    if len(mentions) != 1:
        return None
    mention = mentions[0]
    if re.match(r"\s*[A-Z]", other.text[mention.end():]) or re.search(r"\bof\s*$", other.text[:mention.start()]):
        return None
    return other.text[:mention.start()] + triple.subject + other.text[mention.end():]


def _apart(fact: Fact, other: Fact) -> bool:
    """Whether `other` may stand beside `fact` in a paragraph: another relation (no near synonym), another subject,
    and neither sentence names the other's value or subject."""
    a, b = fact.triple, other.triple
    if not a.predicate_id or not b.predicate_id or a.predicate_id == b.predicate_id:
        return False
    if synonyms(a.predicate_id, b.predicate_id) or label_key(a.subject) == label_key(b.subject):
        return False
    return not (mentions_any(fact.text, (*b.object_names, *b.subject_names))
                or mentions_any(other.text, (*a.object_names, *a.subject_names)))


def _joined(texts: Sequence[str], rng: random.Random) -> str:
    text = texts[0]
    for more in texts[1:]:
        text += rng.choice(SEPARATORS) + more
    return text


def _with_object(triple: Triple, other: Triple) -> Triple:
    return replace(triple, object=other.object, object_aliases=other.object_aliases)


def _distinct(facts: list[Fact], rng: random.Random) -> list[Fact]:
    """Up to `MOST_FACTS` of a subject's facts, drawn in random order, each of another relation (no near synonym of
    one kept) and whose value no kept fact's sentence names, nor its sentence a kept value: a sentence that names
    two of the values may state both relations ("born and died in Paris")."""
    kept: list[Fact] = []
    for fact in rng.sample(facts, len(facts)):
        pid = fact.triple.predicate_id or ""
        if not pid or any(pid == (k.triple.predicate_id or "") or synonyms(pid, k.triple.predicate_id or "")
                          for k in kept):
            continue
        if any(mentions_any(k.text, fact.triple.object_names) or mentions_any(fact.text, k.triple.object_names)
               for k in kept):
            continue
        kept.append(fact)
        if len(kept) == MOST_FACTS:
            break
    return kept
