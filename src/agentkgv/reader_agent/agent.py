"""The agent with the evidence reader as its judge: search, read every shown passage, rewrite until a
passage supports the triple or the search budget is spent, then a calibrated verdict.

Each turn runs one query of the combination table (paper appendix A) that no earlier turn asked, in the
order `s,p,o`, `s`, `s,p'`, `s,p',o`, `s,p`: the full triple first, then the subject alone (the evidence
may name the predicate and object otherwise), then the subject with the words that state the relation
(`Janet Jackson was born in`), which finds the sentence giving the value the documents hold, whichever it is,
without the claimed object pulling in pages that merely name it. The reader scores every
new passage against the triple; the best score over all turns, with whether a passage named both the
subject and the object and the best score among those, is the evidence for it (reader_agent/calibration.py), and
the calibration turns it into P(true). After each search the stop policy (reader_agent/stopping.py) decides whether
to search again: by default a turn whose evidence already makes the triple true ends the search, since more
passages can only raise P(true). The later queries (the subject alone, the paraphrase) find the passages
about the subject, where the documents give the value they hold instead.

What the documents say comes of it (`Finding`): supported where the calibration calls the triple true;
contradicted where no passage supports it and a trusted passage read states another value where its object
stands (reader_agent/contradiction.py; the value reader's span or a page's key-value line,
reader_agent/form_lines.py), which is then cited first, whether the relation takes one value or several (for several,
another value speaks against the object, weighed apart, and withdraws no support); not enough evidence
otherwise (with a lower P(true), the list
cited, where a trusted card of the subject's lists the values of a relation with several in full without the object:
`Starring: …`), false only where
the run counts absence against a triple (reader_agent/absence.py); not checkable for a link or an identifier
(reader_agent/claims.py, which also reads dates and numbers as values, labels by name and categories as statements).
A passage whose words between the names state a rival relation and not this one supports nothing
(reader_agent/relation_cues.py), nor does one that gives another value of a relation with one value, stated with
the relation's words, which the reader reads at least as well as the triple's ("born in Dunholt and moved to
Marrowick" is no birth in Marrowick), or to which the relation's words lead before a second statement leads on to
the object ("born in Marrowick in 1952 and later moved to Dunholt"): it contradicts the triple instead. Passages of a distrusted source are read but their support alone decides nothing:
a triple only they support is not enough evidence, with no verdict. The evidence cited is the passages the
reader scored highest.

A relation the reader learned from few facts or none (a user's own, or one the benchmark keeps unseen) is
judged by a second reader with its own calibration (`RareRelations`): one trained with the relation's
description in every claim, which reads a relation by its meaning rather than its name. It is the better
judge of relations neither reader saw and the worse one of relations the first learned well, FactBench's
`birth place` against `death place` among them (BENCHMARKS.md, *Relation glosses*).

Triples advance turn-synchronously, as in the LLM agent: one retrieval batch a turn, and one batch for each
reader that judges a triple of it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from agentkgv.core.combinations import compose_query, paraphrases_of
from agentkgv.core.evidence_view import named_alone
from agentkgv.core.verdict import EvidenceRef, Finding, Tally, Verdict
from agentkgv.data.records import LabeledTriple, Passage, Triple
from agentkgv.reader_agent.absence import DEFAULT_PRIOR, Absence, absence
from agentkgv.reader_agent.calibration import NO_SUPPORT, Evidence, Outcome
from agentkgv.reader_agent.claims import Claim, Kind
from agentkgv.reader_agent.config import QUERY_ORDER, ReadingConfig
from agentkgv.reader_agent.contradiction import (Contradiction, Unlisted, contradicts, kin_blanked, names_nothing_of,
                                                 other_values, others_blanked, stated_as_own, stated_other,
                                                 states_value, takes_several, unlisted_in, whole_name,
                                                 writes_as_region)
from agentkgv.reader_agent.form_lines import (Line, date_keys, first_line, in_line_lists, infobox_heading, lines_of,
                                               names_key, page_heading, several_cards, stated_in_lines)
from agentkgv.reader_agent.judges import RareRelations, ReaderJudge
from agentkgv.reader_agent.object_side import FROM_THE_OBJECT, TURNED_RELATIONS, names_beside, read_from_object
from agentkgv.reader_agent.reader import judged_title, names_subject, reader_view
from agentkgv.reader_agent.relation_facts import RelationFacts, shipped_table
from agentkgv.reader_agent.trace import ReadingTrace, SearchStep
from agentkgv.reader_agent.value_kinds import Misfit, ValueKinds
from agentkgv.reader_agent.value_reader import Span, ValueReader, context
from agentkgv.retrieval.base import Hit, Retriever
from agentkgv.retrieval.guard import DistrustedSource, Withheld, search_recorded

# P(true) of a label the subject's own names settle, with nothing read: a name match, not a calibrated reading.
LABEL_BY_NAME = 0.95
# Why a claim of a thing to itself is read from no passage.
SELF_CLAIM = "its object is its subject: a passage naming it states no relation of it to itself"
# The value reader's spans of a passage weighed in turn, best first: the best may be another relation's value.
VALUE_SPANS = 3


def _every(claims: list[Triple], values: list[str]) -> list[bool]:
    """Every value kept, where no value-kind model judges them."""
    return [True] * len(values)


@dataclass
class Reading(Tally):
    """One triple's run: the queries left, the passages read and the best support found."""

    item: LabeledTriple
    judge: ReaderJudge
    queries: list[str]
    claim: Claim
    read: dict[str, tuple[Hit, float]] = field(default_factory=dict)  # passage id -> (hit, support logit)
    evidence: Evidence = field(default_factory=Evidence)  # from the passages of trusted sources
    everything: Evidence = field(default_factory=Evidence)  # from every passage, distrusted ones too
    history: list[Evidence] = field(default_factory=list)  # the evidence after each search
    steps: list[SearchStep] = field(default_factory=list)
    contradiction: Contradiction | None = None
    unlisted: Unlisted | None = None  # the first trusted page read whose list of the relation's values leaves it out
    misfit: Misfit | None = None  # a value of a kind the relation does not take: nothing is searched
    turned: Claim | None = None  # the claim read from its object's end, where the object has one subject of it

    def best(self, count: int, distrusted: Callable[[str], bool] = lambda source: False) -> list[tuple[Hit, float]]:
        """The best-supported passages, those of trusted sources first."""
        return sorted(self.read.values(), key=lambda pair: (distrusted(pair[0].passage.source), -pair[1]))[:count]


class ReadingAgent:
    name = "agentkgv"

    def __init__(self, retriever: Retriever, judge: ReaderJudge, paraphrases: dict[str, list[str]],
                 config: ReadingConfig | None = None, rare: RareRelations | None = None,
                 relations: RelationFacts | None = None, distrusted: DistrustedSource = DistrustedSource(()),
                 kinds: ValueKinds | None = None, values: ValueReader | None = None):
        """`judge`: the main reader with its calibration and stop policy; a judge without calibration reads every
        triple to the full search budget and decides nothing: what the calibration is fitted from. `rare`: the
        judge of relations the main reader rarely learned, if any. `relations`: the relations another value
        contradicts, the names their values take, the words that state them, their labels and aliases; None: the
        shipped table and the config's relations, with no names, cues or aliases (a date or a number can still
        contradict, and a key-value line whose key is the predicate as written). `distrusted`:
        the sources whose passages are read but whose support alone decides nothing (it sends the triple to
        review), recorded in the verdict. `kinds`: the model of the values each relation takes; a claim one of
        whose values its relation does not take is false unsearched (None: every claim is searched). `values`: the
        reader of the value a passage gives for the subject and relation, whose other value contradicts (None:
        only the values `relations`, the claim's kind and the pages' key-value lines find)."""
        self.config = config or ReadingConfig()
        self.distrusted = distrusted
        self.relations = relations or RelationFacts.read(shipped_table(), self.config.one_valued,
                                                                many=self.config.many_valued)
        self.absence: Absence = absence(self.config.absence or "false", self.config.coverage)
        self.retriever, self.main, self.rare = retriever, judge, rare
        self.kinds, self.values = kinds, values
        self.paraphrases = paraphrases

    def start(self, item: LabeledTriple, misfit: Misfit | None = None, turned: Claim | None = None) -> Reading:
        claim = Claim.of(item.triple)
        paraphrase = next(iter(paraphrases_of(self.paraphrases, item.triple)), None)
        queries = [compose_query(claim.triple, name, paraphrase) for name in QUERY_ORDER]
        judge = self.rare.judge if self.rare is not None and self.rare.takes(item.triple) else self.main
        # No passage can check a link or an identifier, a label the subject's own names settle needs none, and one
        # that names the subject names a claim of the thing to itself in full; a reading for a calibration to be
        # fitted reads every triple.
        searched = (claim.checkable and not claim.named_by_subject() and not claim.names_itself() and misfit is None
                    or judge.calibration is None)
        return Reading(item=item, judge=judge, claim=claim, done=not searched, misfit=misfit, turned=turned,
                       queries=list(dict.fromkeys(queries))[:self.config.max_searches] if searched else [])

    def misfits(self, items: list[LabeledTriple]) -> list[Misfit | None]:
        """The value of each claim that its relation does not take, if any: judged for names, dates and numbers,
        never for a label, a category or a link."""
        if self.kinds is None or self.main.calibration is None:  # a reading for a calibration reads every triple
            return [None] * len(items)
        claims = [Claim.of(item.triple) for item in items]
        judged = [i for i, c in enumerate(claims) if c.kind in (Kind.ENTITY, Kind.DATE, Kind.NUMBER)]
        found: list[Misfit | None] = [None] * len(items)
        for i, misfit in zip(judged, self.kinds.misfits([claims[i].triple for i in judged])):
            found[i] = misfit
        return found

    def turned_claims(self, items: list[LabeledTriple]) -> list[Claim | None]:
        """Each claim read from its object's end, where its object has one subject of its relation
        (reader_agent/object_side.py): judged where the value-kind model knows the relation, since which end the
        graph names it from is read off the kinds of its ends."""
        found: list[Claim | None] = [None] * len(items)
        if self.kinds is None or self.main.calibration is None or not self.config.other_values:
            return found
        asked = [i for i, item in enumerate(items) if self.kinds.relation(item.triple) in TURNED_RELATIONS]
        for i, end in zip(asked, self.kinds.ends([items[i].triple for i in asked])):
            if end is not None and (mirror := FROM_THE_OBJECT.get(end)) is not None:
                label = self.relations.label(Triple("", "", "", predicate_id=mirror)) or items[i].triple.predicate
                found[i] = read_from_object(Claim.of(items[i].triple), mirror, label)
        return found

    def run(self, items: list[LabeledTriple]) -> list[Reading]:
        readings = [self.start(item, misfit, turned) for item, misfit, turned
                    in zip(items, self.misfits(items), self.turned_claims(items))]
        active = [r for r in readings if not r.done]
        while active:
            self.step(active)
            active = [r for r in active if not r.done]
        return readings

    def seeks_others(self, reading: Reading) -> bool:
        """Whether another value a passage gives would contradict the triple, or speak against it as another of
        several, so is read as well."""
        return bool(self.config.other_values) and reading.judge.calibration is not None and (
            contradicts(reading.claim, self.relations) or takes_several(reading.claim, self.relations))

    def reads_others_now(self, reading: Reading) -> bool:
        """Whether the other values its passages give are read in the turn that finds them: those of a relation with
        one value, which may withdraw a passage's support. Another of several values withdraws nothing and matters only
        where nothing supports the object, so it is read once the triple's search ends, and only where it does
        (`_weigh_several`): the same verdicts at a fraction of the cost."""
        return self.seeks_others(reading) and contradicts(reading.claim, self.relations)

    def reads_lists(self, reading: Reading) -> bool:
        """Whether a list of the relation's values that leaves the object out would speak against the triple: a
        name of a relation with several values (one with one is contradicted by any other value, `seeks_others`)."""
        return bool(self.config.other_values) and reading.judge.calibration is not None and (
            reading.claim.kind is Kind.ENTITY and not contradicts(reading.claim, self.relations))

    def step(self, active: list[Reading]) -> None:
        started = time.perf_counter()
        queries = [r.queries.pop(0) for r in active]
        results, withheld = search_recorded(self.retriever, queries, self.config.top_k)
        fresh: list[tuple[Reading, Hit]] = []
        for reading, query, hits, dropped in zip(active, queries, results, withheld):
            reading.searches += 1
            reading.withhold(dropped)
            fresh += [(reading, h) for h in hits if h.passage.id not in reading.read]
            reading.steps.append(SearchStep(query, [h.passage.id for h in hits]))
        # A date or a number is named by its value: the triple each passage is read against marks the forms
        # in which that passage writes it.
        triples = [reading.claim.for_passage(hit.passage.text) for reading, hit in fresh]
        # The values a trusted passage gives in the object's place (reader_agent/contradiction.py), of a relation with
        # one value, are read in the same batch: one may withdraw the passage's support, and one batch a turn costs
        # less than a second pass. Those of a relation with several are read once the search ends (`_weigh_several`).
        read = [i for i, (reading, hit) in enumerate(fresh)
                if self.reads_others_now(reading) and not self.distrusted.covers(hit.passage.source)]
        others = self._named_others(fresh, read)
        pairs = [(triple, hit.passage.text, judged_title(hit.passage)) for triple, (_, hit) in zip(triples, fresh)] + [
            (fresh[i][0].claim.with_object(value), fresh[i][1].passage.text, judged_title(fresh[i][1].passage))
            for i, value in others]
        scores = self._score([reading for reading, _ in fresh] + [fresh[i][0] for i, _ in others], pairs)
        for (i, value), logit in zip(others, scores[len(fresh):]):
            self._weigh_other(fresh[i][0], fresh[i][1], value, float(logit))
        # Only the value reader's span or a key-value line withdraws support (below), not any name the facts files
        # know that a passage writes with the relation's words somewhere between: "the only Slovene daily ... (the
        # other two are the German-language Dolomiten ...)" gives Dolomiten no language but German.
        withdrawn = self._withdrawn(fresh, scores[:len(fresh)], *self._weigh_stated(fresh, read, {
            (i, value.lower()): float(logit) for (i, value), logit in zip(others, scores[len(fresh):])}))
        for k, ((reading, hit), triple, score) in enumerate(zip(fresh, triples, scores[:len(fresh)])):
            view = reader_view(triple, hit.passage.text)
            if k in withdrawn or self.relations.cues.denies(triple, view.text) and not self._lined_as_own(
                    reading.claim, hit.passage) or self._lined_elsewhere(reading.claim, triple, hit.passage) or (
                    view.has_object and not reader_view(triple, kin_blanked(triple, hit.passage.text)).has_object):
                # It gives another value, or its words between the names state a rival relation and not this one (but
                # for its key-value line of the relation that gives the object), or it names the object only as another
                # relation's value or another subject's, or in what a sentence tells of one of the subject's kin ("His
                # brother Tam Fell married Wenna Pollard").
                score = NO_SUPPORT
            reading.read[hit.passage.id] = (hit, float(score))
            named = view.has_subject and view.has_object
            reading.everything = reading.everything.add(float(score), named, view.has_subject)
            if self.distrusted.covers(hit.passage.source):
                reading.withhold([Withheld(hit.passage.id, hit.passage.source, self.distrusted.why)])
            else:
                reading.evidence = reading.evidence.add(float(score), named, view.has_subject)
        for (reading, hit), triple in zip(fresh, triples):
            # A list on a card of the subject's; a page that names the object in a sentence as well may add to it.
            if reading.unlisted is None and self.reads_lists(reading) and not self.distrusted.covers(
                    hit.passage.source) and not reader_view(triple, hit.passage.text).has_object:
                values = unlisted_in(reading.claim, self.relations.names_of(reading.claim.triple),
                                     self._said_of(reading.claim.triple, hit.passage))
                reading.unlisted = None if values is None else Unlisted(hit, values)
        for reading in active:
            e = reading.evidence
            reading.history.append(e)
            reading.steps[-1].note = (f"best support so far {e.support:.2f} over {len(reading.read)} passages "
                                      f"(reader {reading.judge.reader.name}); "
                                      f"a passage names both: {'yes' if e.named_both else 'no'}")
            reading.done = reading.judge.stops(e, reading.searches, self.config.max_searches) or not reading.queries
        self._weigh_several([reading for reading in active if reading.done])
        self._weigh_object_side([reading for reading in active if reading.done])
        share = (time.perf_counter() - started) / max(1, len(active))
        for reading in active:
            reading.seconds += share

    def _named_others(self, fresh: list[tuple[Reading, Hit]], read: list[int]) -> list[tuple[int, str]]:
        """The names the facts files give as the relation's values that each passage of `read` names, other than
        the claim's object; one of another kind may be the object written otherwise ("Jewish")."""
        others = [(i, value) for i in read for value in other_values(
            fresh[i][0].claim, self.relations, self._said_of(fresh[i][0].claim.triple, fresh[i][1].passage),
            self.config.other_values)]
        return self._names_kept(fresh, others, self.kinds.differs if self.kinds else _every)

    def _weigh_several(self, done: list[Reading]) -> None:
        """Read the other values that the trusted passages of each finished triple of a relation with several values
        give, where nothing supports the triple: a passage may state two such values, so they withdraw no support,
        and the verdict weighs them only where the triple is not supported."""
        late = [(reading, hit) for reading in done
                if self.seeks_others(reading) and not self.reads_others_now(reading) and not self._supported(reading)
                for hit, _ in reading.read.values() if not self.distrusted.covers(hit.passage.source)]
        if not late:
            return
        read = list(range(len(late)))
        others = self._named_others(late, read)
        logits = self._score([late[i][0] for i, _ in others], [
            (late[i][0].claim.with_object(value), late[i][1].passage.text, judged_title(late[i][1].passage))
            for i, value in others])
        for (i, value), logit in zip(others, logits):
            self._weigh_other(late[i][0], late[i][1], value, float(logit))
        self._weigh_stated(late, read, {(i, value.lower()): float(logit) for (i, value), logit in zip(others, logits)})

    def _weigh_object_side(self, done: list[Reading]) -> None:
        """Read, for each finished triple nothing supports or contradicts as its subject's one value, whose object has
        one subject of its relation (`Reading.turned`), the names its trusted passages give beside the object: one the
        evidence reader reads as the object's one subject, of the subject's kind and no rival's, contradicts the triple
        ("Schismatrix by Bruce Sterling" against Eric Flint's authorship of it)."""
        asked = [(reading, hit, name) for reading in done if reading.turned is not None and not self._supported(reading)
                 and (reading.contradiction is None or takes_several(reading.claim, self.relations))
                 for hit, _ in reading.read.values() if not self.distrusted.covers(hit.passage.source)
                 for name in names_beside(reading.turned.triple, hit.passage.text)]
        if not asked:
            return
        kept = self._could_replace([reading.turned.triple for reading, _, _ in asked], [name for _, _, name in asked])
        asked = [(reading, hit, name) for (reading, hit, name), ok in zip(asked, kept) if ok]
        pairs = [(reading.turned.with_object(name), hit.passage.text, judged_title(hit.passage))
                 for reading, hit, name in asked]
        logits = self._score([reading for reading, _, _ in asked], pairs)
        for (reading, hit, name), (triple, text, _), logit in zip(asked, pairs, logits):
            if not self.relations.cues.denies(triple, reader_view(triple, text).text):
                self._weigh_other(reading, hit, name, float(logit), reading.turned)

    @staticmethod
    def _supported(reading: Reading) -> bool:
        calibration = reading.judge.calibration
        return calibration is not None and (
            calibration.outcome(calibration.probability(reading.evidence)) is Outcome.TRUE)

    @staticmethod
    def _score(owners: list[Reading], pairs: list[tuple[Triple, str, str]]) -> np.ndarray:
        """The support logit of each (triple, text, title), by the reader of the reading that owns it: one batch
        per judge."""
        scores = np.zeros(len(pairs), dtype=np.float32)
        for judge in {id(r.judge): r.judge for r in owners}.values():
            mine = [k for k, r in enumerate(owners) if r.judge is judge]
            scores[mine] = judge.reader.score([pairs[k] for k in mine])
        return np.nan_to_num(scores, nan=NO_SUPPORT)  # a broken score never supports, nor is cited first

    def _weigh_stated(self, fresh: list[tuple[Reading, Hit]], read: list[int], seen: dict[tuple[int, str], float]
                      ) -> tuple[list[tuple[int, str, float, bool]], set[int]]:
        """The values each trusted passage of `read` about the subject gives (by the value reader and the page's
        key-value lines): where one is another value than the claim's, the triple with it is read, and weighed as a
        contradiction (`_weigh_other`). Returns each (passage, value, logit, whether read here rather than found in
        `seen`), and the passages whose key-value lines give the relation other values only. `seen`: the (passage,
        value) pairs read already, with their logits."""
        stated, lined = self._stated(fresh, read)
        found = self._names_kept(fresh, [(i, value) for (i, key), value in stated.items() if (i, key) not in seen],
                                 self._could_replace)
        logits = self._score([fresh[i][0] for i, _ in found], [
            (fresh[i][0].claim.with_object(value), fresh[i][1].passage.text, judged_title(fresh[i][1].passage))
            for i, value in found])
        for (i, value), logit in zip(found, logits):
            self._weigh_other(fresh[i][0], fresh[i][1], value, float(logit))
        return [(i, value, float(logit), True) for (i, value), logit in zip(found, logits)] + [
            (i, value, seen[i, key], False) for (i, key), value in stated.items() if (i, key) in seen], lined

    def _withdrawn(self, fresh: list[tuple[Reading, Hit]], scores: np.ndarray,
                   weighed: list[tuple[int, str, float, bool]], lined: set[int]) -> set[int]:
        """Of claims of a relation with one value, the passages that support the claim (their `scores`) yet give
        another value (`_weigh_stated`), stated with the relation's words, where the reader reads it at least as well
        as the claim's ("Fennimore Dask was born in Dunholt and moved to Marrowick" states no birth in Marrowick), or
        states the object without the relation's words ("lives in Lembrook. He was born in Dunholt"), or the relation's
        words lead to it before a second statement leads on to the object (`RelationCues.leads_first_to`: "born in
        Marrowick in 1952 and later moved to Dunholt"): so it supports none; and the pages whose key-value lines give
        the relation other values only (`lined`)."""
        withdrawn = set(lined)
        for i, value, logit, unknown in weighed:
            reading, hit = fresh[i]
            # Against a passage that supports the claim, the other value must be stated as the relation's, its
            # words between the subject and it, and not a rival's: "an American jazz drummer who played ... for
            # Motown" gives no record label "jazz". A name the facts files know was read already (not `unknown`);
            # its reading as well as the claim's withdraws nothing, since the reader takes any such name in a passage
            # for the relation's ("the only Slovene daily ... (the other two are the German-language Dolomiten ...)"
            # would take Dolomiten's German).
            if not self._states_as_own(reading.claim, value, hit.passage.text):
                continue
            own = reading.claim.for_passage(hit.passage.text)  # the object as this passage writes it
            view = reader_view(own, hit.passage.text).text
            if unknown and self._gives_instead(reading, scores[i], logit) or self._reads_true(reading, logit) and (
                    not stated_as_own(self.relations, own, view)
                    or self.relations.cues.leads_first_to(reading.claim.triple, view, value)):
                withdrawn.add(i)
        return withdrawn

    def _stated(self, fresh: list[tuple[Reading, Hit]], read: list[int]) -> tuple[dict[tuple[int, str], str], set[int]]:
        """The other values than its claim's that each passage gives, by (passage, value lower-cased); and the
        passages whose key-value lines give the relation other values only, which support the claim nowhere, whatever
        else they name the object as (`Headquarters: Quillan Cross` beside `Place of foundation: Varrowby`)."""
        found: dict[tuple[int, str], str] = {}
        lined: set[int] = set()

        def keep(i: int, other: str) -> bool:
            (reading, hit), triple = fresh[i], fresh[i][0].claim.triple
            if self.relations.may_hold(other, triple):
                return False
            # Another of several values that a line lists with others is the list's to weigh (`unlisted_in`; one that
            # trails off, none's).
            if takes_several(reading.claim, self.relations) and in_line_lists(
                    self.relations.names_of(triple), self._said_of(triple, hit.passage), other):
                return False
            found.setdefault((i, other.lower()), other)
            return True

        for i, passage, spans in self._spans(fresh, read):
            if (other := self._stated_instead(fresh[i][0].claim, passage, spans)) is not None:
                keep(i, other)
        # A key-value line states its relation by its key, so every page about the subject, and every card under a
        # heading that names it, is read for them, one whose `Birthplace` line the reader takes for a death there too:
        # its `Location of death` line gives the death's (reader_agent/form_lines.py). An infobox's fields only where
        # the page is about the subject.
        for i in read:
            reading = fresh[i][0]
            given = self._line_values(reading.claim, fresh[i][1].passage)
            kept = 0
            for value in given:
                if (other := stated_other(reading.claim, value)) is not None and keep(i, other):
                    kept += 1
            if given and kept == len(given):
                lined.add(i)
        return found, lined

    def _stated_instead(self, claim: Claim, passage: Passage, spans: list[Span]) -> str | None:
        """Of the value reader's spans of a passage, best first, the first the passage states as the relation's
        value, where that is another value than the claim's; None where one that is no other value (the claim's own,
        the subject's name) comes first, since spans after it read as readily as a former name or a stray word, unless
        it comes without the relation's words and the clause that leads to a later one holds them ("headquartered in
        Varnhold … Its largest factory is in Dunmere" gives Varnhold for the headquarters, though the model ranks
        Dunmere first; "Geneva-based … Temenos bought Odyssey Group, the Luxembourg-based business" gives nothing). A
        date or a number is in most passages about anyone: the best span only, and it must have the relation's words
        between the subject and it and no rival's alone in the clause next to it (`contradiction.stated_as_own`:
        "lived there from 1968" is no death in 1968). A name is of a kind, which says
        more of it than its words (`_names_kept`), but not one whose clause states another relation: "born in
        Kelvercombe in 1901 and died in Porthkennack" gives Porthkennack as the death's place; and one stated with the
        relation's words comes before a better span stated without them ("career in Hollywood … was born in
        Wilmette")."""
        read = context(passage.text, passage.title)
        unworded = None  # the first name stated without the relation's words, given where none is stated with them
        own_first = False  # the claim's own value came first, without the relation's words: only a worded one counts
        for span in spans if claim.kind is Kind.ENTITY else spans[:1]:
            if claim.kind is Kind.ENTITY:
                if writes_as_region(claim.triple, read[:span.start]) or names_nothing_of(claim, span.text):
                    continue  # "born in Alexandra, Victoria": the object with its region; "valley", "1992" for a town
                if self._stated_here(claim, read, span):
                    # A span inside a longer name ("at the London O2 Arena") states that name, of its own kind.
                    other = stated_other(claim, whole_name(read, span.start, span.start + len(span.text)))
                    if other is None:
                        # The claim's own value or the subject's name: stated with the relation's words, it outweighs a
                        # value stated without them before it.
                        if self._states_as_own(claim, claim.triple.object, passage.text):
                            return None
                        if unworded is not None:
                            return unworded
                        own_first = True
                        continue
                    if self._states_as_own(claim, other, passage.text) and (
                            not own_first or self.relations.cues.leads_as_own(claim.triple, read[:span.start])):
                        return other
                    if not own_first and not self._led_elsewhere(claim, other, passage.text):
                        unworded = unworded or other
                # Not stated there as the relation's value: the claim's own object given as a rival's ("born in
                # Marrowick" where the claim is a death there) says nothing of it either way.
            elif (other := stated_other(claim, span.text)) is None:
                return None
            elif self._states_as_own(claim, other, passage.text):
                return other
        return unworded

    def _line_values(self, claim: Claim, passage: Passage) -> list[str]:
        """The values the passage's key-value lines that speak of the subject give for the claim's relation."""
        names = self.relations.names_of(claim.triple)
        return stated_in_lines(date_keys(names) if claim.kind is Kind.DATE else names,
                               self._said_of(claim.triple, passage), infobox=self._about(claim.triple, passage))

    def _lined_as_own(self, claim: Claim, passage: Passage) -> bool:
        """Whether a key-value line of the passage's about the subject gives the claim's object for its relation
        (`Place of foundation: Varrowby`), whatever a rival's line beside it says (`Headquarters: Quillan Cross`)."""
        return any(reader_view(claim.for_passage(value), value).has_object
                   for value in self._line_values(claim, passage))

    def _states_as_own(self, claim: Claim, value: str, text: str) -> bool:
        return states_value(self.relations, claim, value, text)

    def _led_elsewhere(self, claim: Claim, value: str, text: str) -> bool:
        """Whether the relation's words in `text` lead to another value before a second statement leads on to `value`
        (`RelationCues.leads_elsewhere`): "born in Australia in 1990 and trained in Brisbane" gives no birthplace
        Brisbane, stated with the relation's words or without."""
        other = claim.with_object(value)
        return self.relations.cues.leads_elsewhere(other, reader_view(other, text).text)

    def _stated_here(self, claim: Claim, read: str, span: Span) -> bool:
        """Whether the words at a span's place in `read` (the passage as the value reader read it) may state the
        claim's relation: not where the clause leading to it states a rival alone, nor, written before the subject, the
        words leading from it to the subject ("Cincinnati born writer Robert Lowry" gives no place of death), unless a
        relative clause after it states the relation ("moved to Dunholt, where she died")."""
        cues, after = self.relations.cues, read[span.start + len(span.text):]
        return cues.follows_as_own(claim.triple, after) or not (
            cues.leads_to_rival(claim.triple, read[:span.start]) or cues.leads_back_to_rival(claim.triple, after))

    def _spans(self, fresh: list[tuple[Reading, Hit]], read: list[int]) -> list[tuple[int, Passage, list[Span]]]:
        """The value reader's spans of each passage of `read` that names the subject, where it finds any, best
        first, with the passage as it was read: what it tells of others blanked (`others_blanked`)."""
        if self.values is None:
            return []
        asked = []
        for i in read:
            (reading, hit), view = fresh[i], reader_view(fresh[i][0].claim.triple, fresh[i][1].passage.text)
            # A passage that names the subject only as the head of a longer name ("the Walt Whitman Bridge") gives
            # that thing's values, not the subject's. One whose words between the names state a rival relation is
            # read all the same: each span is weighed at its own place (`_stated_here`), so "born in Alexandra,
            # Victoria" gives no place of death, and "moved to Dunholt, where she died" gives one.
            if view.has_subject and named_alone(hit.passage.text, reading.claim.triple.subject_names):
                asked.append(i)
        passages = [self._as_valued(fresh[i][0].claim.triple, fresh[i][1].passage) for i in asked]
        spans = self.values.read([(fresh[i][0].claim.triple.subject, self.relations.label(fresh[i][0].claim.triple),
                                   passage.text, passage.title) for i, passage in zip(asked, passages)],
                                 count=VALUE_SPANS)
        return [(i, passage, ranked) for i, passage, ranked in zip(asked, passages, spans) if ranked]

    @staticmethod
    def _as_valued(triple: Triple, passage: Passage) -> Passage:
        """A passage as the value reader reads it for the triple's subject: what it tells of others blanked
        (`others_blanked`), and its title, or the heading its text opens with (a line of no sentence, no key-value
        line), only where that names the subject. A page's title that names another thing offers the reader a value
        that is none of the subject's: "People of the valley" gives a birthplace "valley". It is read without the
        key-value lines of cards not the subject's (`_said_of`)."""
        def named(heading: str) -> bool:
            return names_subject(triple, heading.replace("_", " "))

        title = passage.title if named(passage.title) else ""
        text = others_blanked(triple, ReadingAgent._said_of(triple, passage))
        heading = page_heading(text)
        if heading and not named(heading):
            start = text.index(heading)
            text = text[:start] + " " * len(heading) + text[start + len(heading):]
        return replace(passage, text=text, title=title)

    @staticmethod
    def _said_of(triple: Triple, passage: Passage) -> str:
        """The passage's text as what it may say of the triple's subject: without the key-value lines of cards not
        its own, which speak of their own subjects (Wenna Pollard's `Birthplace: Harrowmere` is no birthplace of Dorran
        Vess, whom her `Spouse(s)` line names), spaces for their characters."""
        text, lines = passage.text, lines_of(passage.text)
        several = several_cards(lines)
        for line in lines:
            if not ReadingAgent._line_about(triple, passage, line, several):
                text = text[:line.start] + " " * (line.end - line.start) + text[line.end:]
        return text

    @staticmethod
    def _line_about(triple: Triple, passage: Passage, line: Line, several: bool) -> bool:
        """Whether a key-value line speaks of the triple's subject: the heading above it names the subject, or the page
        is about the subject and the line is not under the heading of another of its `several` cards."""
        if line.heading and names_subject(triple, line.heading):
            return True
        return ReadingAgent._about(triple, passage) and not (several and line.heading)

    def _lined_elsewhere(self, claim: Claim, triple: Triple, passage: Passage) -> bool:
        """Whether the passage names the object (as `triple`, the claim for this passage, marks it) only as the value
        of key-value lines that state it of another: on the subject's own card, under keys that name a rival relation
        and not this one (`| Place of death | Dunmore Quay |` for her birth); on another's card, under any key (`Awards:
        Brass Compass Award` on Quillan Cross's card, for his wife's award). A key of no rival (`Language:` for a film's
        original language, `Origin:` for where a band was formed) keeps the reader's score."""
        lines = lines_of(passage.text)
        holding = [line for line in lines if reader_view(triple, line.value).has_object]
        if not holding:
            return False
        prose = list(passage.text)
        for line in holding:
            prose[line.start:line.end] = " " * (line.end - line.start)
        if reader_view(triple, "".join(prose)).has_object:
            return False  # named in a sentence too, which the reader weighs
        names = self.relations.names_of(claim.triple)
        names = date_keys(names) if claim.kind is Kind.DATE else names
        several, headed = several_cards(lines), bool(page_heading(passage.text))
        for line in holding:
            if self._line_about(claim.triple, passage, line, several):
                if names_key(line.key, names) or not self.relations.cues.names_rival(claim.triple, line.key):
                    return False
            elif not (line.heading or headed):
                return False  # whose the line is, nothing says
        return True

    @staticmethod
    def _about(triple: Triple, passage: Passage) -> bool:
        """Whether a page is about the triple's subject: its title, first line or infobox heading names it."""
        return any(reader_view(triple, text).has_subject
                   for text in (passage.title, first_line(passage.text), infobox_heading(passage.text)) if text)

    def _could_replace(self, claims: list[Triple], values: list[str]) -> list[bool]:
        """Whether each value could stand where its claim's object stands (`ValueKinds.could_replace`), or is a
        country the gazetteer puts the object outside of, of another kind but another value all the same (`Lleyton
        Hewitt … born in Australia` against a birth in Geneva)."""
        kept = self.kinds.could_replace(claims, values) if self.kinds else _every(claims, values)
        return [ok or self.relations.elsewhere(value, claim) for ok, claim, value in zip(kept, claims, values)]

    @staticmethod
    def _names_kept(fresh: list[tuple[Reading, Hit]], found: list[tuple[int, str]],
                    keeps: Callable[[list[Triple], list[str]], list[bool]]) -> list[tuple[int, str]]:
        """The (passage, value) pairs of `found` whose value `keeps` says could stand for the claim's object, where the
        claim is of a name (`ValueKinds.could_replace`: a name of another kind than the object's states nothing of it, a
        year is no network); dates and numbers pass."""
        names = [k for k, (i, _) in enumerate(found) if fresh[i][0].claim.kind is Kind.ENTITY]
        if not names:
            return found
        kept = keeps([fresh[found[k][0]][0].claim.triple for k in names], [found[k][1] for k in names])
        dropped = {k for k, ok in zip(names, kept) if not ok}
        return [pair for k, pair in enumerate(found) if k not in dropped]

    @staticmethod
    def _reads_true(reading: Reading, logit: float) -> bool:
        """Whether the reader's `logit` for a passage would settle a claim as true by itself."""
        calibration = reading.judge.calibration
        return calibration is not None and calibration.settles(Evidence().add(logit, True, True))

    def _gives_instead(self, reading: Reading, score: float, logit: float) -> bool:
        """Whether a passage that supports the claim (its `score`) reads at least as well with another value (`logit`)."""
        return logit >= score and self._reads_true(reading, float(score))

    def _weigh_other(self, reading: Reading, hit: Hit, value: str, logit: float,
                     turned: Claim | None = None) -> None:
        """Keep the passage as the triple's contradiction where the calibration would call the triple with
        `value` true, and more surely than any kept so far; one that states the value with the relation's words, or as
        the value of its key-value line, before one that does not ("was born in Wilmette" before "Heston's career in
        Hollywood"). With `turned`, the value is another subject of the object's (`Reading.turned`), which excludes the
        triple's whatever its relation takes: it outweighs another of several values, never another value of the
        subject's one."""
        calibration = reading.judge.calibration
        assert calibration is not None
        p_other = calibration.probability(Evidence().add(logit, True, True))
        best = reading.contradiction
        if p_other < calibration.true_at or turned is not None and best is not None and not best.of_object and not (
                takes_several(reading.claim, self.relations)):
            return
        claim = turned or reading.claim
        worded = (any(value in line for line in self._line_values(claim, hit.passage))
                  or self._states_as_own(claim, value, hit.passage.text))
        if best is None or (turned is not None, worded, p_other) > (best.of_object, best.worded, best.p_other):
            reading.contradiction = Contradiction(hit, value, p_other, worded, of_object=turned is not None)

    def verify(self, items: list[LabeledTriple]) -> list[Verdict]:
        if self.main.calibration is None:
            raise ValueError("a reader without calibration decides nothing: run `agentkgv train-reader`")
        return [self.to_verdict(r) for r in self.run(items)]

    def to_verdict(self, reading: Reading) -> Verdict:
        calibration = reading.judge.calibration
        assert calibration is not None
        claim, contradiction = reading.claim, reading.contradiction
        p_support = calibration.probability(reading.evidence)
        main = self.main.calibration
        prior = self.config.prior or (main.prior if main is not None else None) or DEFAULT_PRIOR
        cited: list[Hit] = []
        stated_instead, listed, several_valued = None, False, False
        if not claim.checkable:
            finding, verdict, p_true = Finding.NOT_CHECKABLE, None, None
        elif claim.named_by_subject():
            finding, verdict, p_true = Finding.SUPPORTED, True, LABEL_BY_NAME
        elif reading.misfit is not None:
            finding, verdict, p_true = Finding.WRONG_KIND, False, reading.misfit.p_fits
        elif calibration.outcome(p_support) is Outcome.TRUE:
            finding, verdict, p_true = Finding.SUPPORTED, True, p_support
        elif contradiction is not None and (contradiction.of_object or not takes_several(claim, self.relations)):
            finding, verdict, stated_instead = Finding.CONTRADICTED, False, contradiction.value
            p_true = self.absence.contradicted(calibration, reading.evidence, contradiction.p_other, prior)
            cited = [contradiction.hit]
        elif contradiction is not None:
            stated_instead, several_valued, cited = contradiction.value, True, [contradiction.hit]
            verdict, p_true = self.absence.other_of_several(calibration, reading.evidence, prior)
            finding = Finding.CONTRADICTED if verdict is False else Finding.NOT_ENOUGH_EVIDENCE
        elif reading.unlisted is not None:
            # A page may list only the values its author thought the main ones (a film's leads): a person decides.
            finding, listed, stated_instead = Finding.NOT_ENOUGH_EVIDENCE, True, ", ".join(reading.unlisted.values)
            verdict, p_true = self.absence.unlisted(calibration, reading.evidence, prior)
            cited = [reading.unlisted.hit]
        elif calibration.settles(reading.everything):
            # Only a distrusted source supports it: a person decides.
            finding, verdict, p_true = Finding.NOT_ENOUGH_EVIDENCE, None, p_support
        else:
            finding = Finding.NOT_ENOUGH_EVIDENCE
            verdict, p_true = self.absence.unsupported(calibration, reading.evidence, prior)
        # A verdict the trusted evidence decided cites it first; one sent to review shows what it would have taken.
        trusted_first = self.distrusted.covers if verdict is not None else (lambda source: False)
        cited += [hit for hit, score in reading.best(self.config.max_cited, trusted_first) if hit not in cited]
        return Verdict(
            id=reading.item.id, triple=reading.item.triple, verdict=verdict, method=self.name,
            gold=reading.item.label, confidence=None if p_true is None else round(
                p_true if verdict else 1.0 - p_true if verdict is False else max(p_true, 1.0 - p_true), 4),
            evidence=[EvidenceRef.of(h.passage) for h in cited[:self.config.max_cited]],
            search_calls=reading.searches, seconds=reading.seconds,
            trace=ReadingTrace(reading.evidence if reading.searches else None, reading.judge is not self.main, reading.steps),
            p_true=None if p_true is None else round(p_true, 4),
            undecided=verdict is None and finding is Finding.NOT_ENOUGH_EVIDENCE,
            outcome=finding.value, stated_instead=stated_instead, listed=listed, several_valued=several_valued,
            withheld=reading.withheld,
            reason=self._reason(reading, finding, stated_instead, listed, several_valued))

    def _reason(self, reading: Reading, finding: Finding, stated_instead: str | None, listed: bool,
                several_valued: bool) -> str | None:
        """Why a verdict is what it is, where its outcome and the value stated instead do not say it already."""
        claim, contradiction = reading.claim, reading.contradiction
        if reading.misfit is not None:
            return reading.misfit.reason()
        if finding is Finding.CONTRADICTED and contradiction and contradiction.of_object and reading.turned:
            label = self.relations.label(reading.turned.triple)
            return f"{claim.triple.object} has one {label}, and a passage gives {stated_instead!r} as its {label}"
        if claim.names_itself():
            return SELF_CLAIM
        if listed:
            return f"a page lists its values in full without it: {stated_instead}"
        if several_valued:
            return (f"{self.relations.label(claim.triple)!r} takes several values, and a passage gives "
                    f"{stated_instead!r} as {claim.triple.subject}'s where none gives {claim.triple.object!r}")
        return None
