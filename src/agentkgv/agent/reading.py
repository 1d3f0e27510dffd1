"""The agent with the evidence reader as its judge: search, read every shown passage, rewrite until a
passage supports the triple or the search budget is spent, then a calibrated verdict.

Each turn runs one query of the combination table (paper appendix A) that no earlier turn asked, in the
order `s,p,o`, `s`, `s,p',o`, `s,p'`, `s,p`: the full triple first, then the subject alone (the evidence
may name the predicate and object otherwise), then the predicate's paraphrase. The reader scores every
new passage against the triple; the best score over all turns, with whether a passage named both the
subject and the object and the best score among those, is the evidence for it (agent/calibration.py), and
the calibration turns it into P(true) and one of true / false / not enough evidence. After each search the
stop policy (agent/stopping.py) decides whether to search again: by default a turn whose evidence already
makes the triple true ends the search, since more passages can only raise P(true); a triple that no
rewrite finds support for is false or undecided by how little support was found. Passages of a distrusted
source are read but their support alone decides nothing: a triple only they support is undecided. The
evidence cited is the passages the reader scored highest.

A relation the reader learned from few facts or none (a user's own, or one the benchmark keeps unseen) is
judged by a second reader with its own calibration (`RareRelations`): one trained with the relation's
description in every claim, which reads a relation by its meaning rather than its name. It is the better
judge of relations neither reader saw and the worse one of relations the first learned well, FactBench's
`birth place` against `death place` among them (BENCHMARKS.md, *Relation glosses*).

Triples advance turn-synchronously, as in the LLM agent: one retrieval batch a turn, and one batch for each
reader that judges a triple of it.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from pydantic import Field, model_validator

from agentkgv.agent.actions import parse_action
from agentkgv.agent.base import RULE, EvidenceRef, Tally, Turn, Verdict
from agentkgv.agent.calibration import NO_SUPPORT, Calibration, Evidence, Outcome
from agentkgv.agent.combinations import compose_query, paraphrases_of
from agentkgv.agent.prompts import action_text
from agentkgv.agent.reader import (SHIPPED_GLOSS_READER, Reader, by_predicate, read_relations, reader_fingerprint,
                                   reader_folder, reader_view)
from agentkgv.agent.stopping import LearnedStop, SearchState, SettledRule, StopPolicy
from agentkgv.data.records import LabeledTriple, Triple
from agentkgv.data.settings import Settings
from agentkgv.retrieval.base import Hit, Retriever

QUERY_ORDER = ("s,p,o", "s", "s,p',o", "s,p'", "s,p")


class ReadingConfig(Settings):
    # A reader folder written by `agentkgv train-reader` (weights, card, calibration); None: the shipped one.
    reader: Path | None = None
    # Searches per triple at most: each one a query of the table not asked yet.
    max_searches: int = Field(3, ge=1, le=len(QUERY_ORDER))
    top_k: int = Field(5, ge=1)
    # Passages cited with a verdict: the best-supported ones.
    max_cited: int = Field(2, ge=1)
    # Sources whose passages alone never decide a verdict, by prefix: a corpus (`poison:`), or a file or folder
    # of a document index as it was indexed (`index --distrust`). Their support sends a triple to review.
    distrust: tuple[str, ...] = ()
    # A stop policy trained by `agentkgv train-search-policy` on `reader`'s episodes; None: stop once the triple
    # is settled true.
    stop_policy: Path | None = None
    # Relations `reader` learned from fewer than this many facts go to `rare_reader`; 0: `reader` judges all.
    # Chosen on pairs no reader trained on, where the gloss reader ranked relations of 10 or more facts worse.
    rare_below: int = Field(10, ge=0)
    # The judge of those relations, with its own calibration; None: the shipped reader trained with glosses.
    rare_reader: Path | None = None
    # A stop policy trained on `rare_reader`'s episodes (`train-search-policy --reader`); None: the settled rule.
    # A policy reads its own reader's scores, so each judge stops by its own.
    rare_stop_policy: Path | None = None

    @model_validator(mode="after")
    def _routed(self) -> ReadingConfig:
        if not self.rare_below and (self.rare_reader is not None or self.rare_stop_policy is not None):
            raise ValueError("rare_reader and rare_stop_policy judge the relations under rare_below, which is 0")
        return self

    def weights(self) -> str:
        """The content of the readers this config judges with, which a run log pins: the reader's, and when
        rare relations go to another reader, that reader's and the relation counts that route them."""
        main = reader_fingerprint(self.reader)
        if not self.rare_below:
            return main
        rare = reader_fingerprint(self.rare_folder())
        counts = json.dumps(read_relations(reader_folder(self.reader)), sort_keys=True)
        return hashlib.sha256(f"{main} {rare} {counts}".encode()).hexdigest()[:16]

    def rare_folder(self) -> Path:
        return reader_folder(self.rare_reader, SHIPPED_GLOSS_READER)

    def distrusts(self, source: str) -> bool:
        """A corpus prefix (`poison:`) matches by prefix; a path matches itself and what lies below it."""
        path = source.removeprefix("doc:")
        return any(source.startswith(p) if p.endswith(":") else path == p or path.startswith(p.rstrip("/") + "/")
                   for p in self.distrust)


@dataclass(frozen=True)
class Judge:
    """A reader, the calibration fitted on its scores (None: reading only, to fit one), and the stop policy
    trained on them (None: the settled rule)."""

    reader: Reader
    calibration: Calibration | None
    stop_policy: StopPolicy | None = None

    def stops(self, evidence: Evidence, searches: int, max_searches: int) -> bool:
        if self.calibration is None:
            return False
        return (self.stop_policy or SettledRule()).stop(SearchState.of(self.calibration, evidence, searches, max_searches))


@dataclass(frozen=True)
class RareRelations:
    """The judge of relations the main reader learned from fewer than `below` facts (`counts`, its
    relations.json)."""

    judge: Judge
    counts: dict[str, int]
    below: int

    def takes(self, triple: Triple) -> bool:
        return by_predicate(self.counts, triple, 0) < self.below


@dataclass
class Reading(Tally):
    """One triple's run: the queries left, the passages read and the best support found."""

    item: LabeledTriple
    judge: Judge
    queries: list[str]
    read: dict[str, tuple[Hit, float]] = field(default_factory=dict)  # passage id -> (hit, support logit)
    evidence: Evidence = field(default_factory=Evidence)  # from the passages of trusted sources
    everything: Evidence = field(default_factory=Evidence)  # from every passage, distrusted ones too
    history: list[Evidence] = field(default_factory=list)  # the evidence after each search
    turns: list[Turn] = field(default_factory=list)

    def best(self, count: int, distrusted: Callable[[str], bool] = lambda source: False) -> list[tuple[Hit, float]]:
        """The best-supported passages, those of trusted sources first."""
        return sorted(self.read.values(), key=lambda pair: (distrusted(pair[0].passage.source), -pair[1]))[:count]


class ReadingAgent:
    name = "agentkgv"

    def __init__(self, retriever: Retriever, reader: Reader, calibration: Calibration | None,
                 paraphrases: dict[str, list[str]], config: ReadingConfig | None = None,
                 rare: RareRelations | None = None):
        """`calibration` None reads every triple to the full search budget and decides nothing: what the
        calibration is fitted from. `rare`: the judge of relations `reader` rarely learned, if any."""
        self.config = config or ReadingConfig()
        learned = None
        if calibration is not None and self.config.stop_policy is not None:
            learned = LearnedStop.read(self.config.stop_policy).check(
                self.config.stop_policy, reader_fingerprint(self.config.reader), self.config.max_searches)
        self.retriever, self.main, self.rare = retriever, Judge(reader, calibration, learned), rare
        self.paraphrases = paraphrases

    def start(self, item: LabeledTriple) -> Reading:
        paraphrase = next(iter(paraphrases_of(self.paraphrases, item.triple)), None)
        queries = [compose_query(item.triple, name, paraphrase) for name in QUERY_ORDER]
        judge = self.rare.judge if self.rare is not None and self.rare.takes(item.triple) else self.main
        return Reading(item=item, judge=judge, queries=list(dict.fromkeys(queries))[:self.config.max_searches])


    def run(self, items: list[LabeledTriple]) -> list[Reading]:
        readings = [self.start(item) for item in items]
        active = list(readings)
        while active:
            self.step(active)
            active = [r for r in active if not r.done]
        return readings

    def step(self, active: list[Reading]) -> None:
        started = time.perf_counter()
        queries = [r.queries.pop(0) for r in active]
        results = self.retriever.search(queries, self.config.top_k)
        fresh: list[tuple[Reading, Hit]] = []
        for reading, query, hits in zip(active, queries, results):
            reading.searches += 1
            fresh += [(reading, h) for h in hits if h.passage.id not in reading.read]
            reading.turns.append(self._turn(reading, query, hits))
        scores = np.zeros(len(fresh), dtype=np.float32)
        for judge in {id(r.judge): r.judge for r, _ in fresh}.values():  # one reader batch per judge
            mine = [i for i, (r, _) in enumerate(fresh) if r.judge is judge]
            scores[mine] = judge.reader.score([(fresh[i][0].item.triple, fresh[i][1].passage.text,
                                                fresh[i][1].passage.title) for i in mine])
        scores = np.nan_to_num(scores, nan=NO_SUPPORT)  # a broken score never supports, nor is cited first
        for (reading, hit), score in zip(fresh, scores):
            reading.read[hit.passage.id] = (hit, float(score))
            view = reader_view(reading.item.triple, hit.passage.text)
            named = view.has_subject and view.has_object
            reading.everything = reading.everything.add(float(score), named, view.has_subject)
            if not self.config.distrusts(hit.passage.source):
                reading.evidence = reading.evidence.add(float(score), named, view.has_subject)
        for reading in active:
            e = reading.evidence
            reading.history.append(e)
            reading.turns[-1].reasoning = (f"best support so far {e.support:.2f} over {len(reading.read)} passages "
                                           f"(reader {reading.judge.reader.name}); "
                                           f"a passage names both: {'yes' if e.named_both else 'no'}")
            reading.done = reading.judge.stops(e, reading.searches, self.config.max_searches) or not reading.queries
        share = (time.perf_counter() - started) / max(1, len(active))
        for reading in active:
            reading.seconds += share

    @staticmethod
    def _turn(reading: Reading, query: str, hits: list[Hit]) -> Turn:
        text = action_text({"reasoning": "", "action": "search", "query": query})
        return Turn(len(reading.turns) + 1, [], text, action_ids=[], action=parse_action(text), finish_reason=RULE,
                    retrieved=[h.passage.id for h in hits])

    def verify(self, items: list[LabeledTriple]) -> list[Verdict]:
        if self.main.calibration is None:
            raise ValueError("a reader without calibration decides nothing: run `agentkgv train-reader`")
        return [self.to_verdict(r) for r in self.run(items)]

    def to_verdict(self, reading: Reading) -> Verdict:
        calibration = reading.judge.calibration
        assert calibration is not None
        p_true = calibration.probability(reading.evidence)
        outcome = calibration.outcome(p_true)
        if outcome is not Outcome.TRUE and calibration.settles(reading.everything):
            outcome = Outcome.UNDECIDED  # only a distrusted source supports it: a person decides
        verdict = {Outcome.TRUE: True, Outcome.FALSE: False, Outcome.UNDECIDED: None}[outcome]
        # A verdict the trusted evidence decided cites it first; one sent to review shows what it would have taken.
        trusted_first = self.config.distrusts if outcome is not Outcome.UNDECIDED else (lambda source: False)
        cited = [hit for hit, score in reading.best(self.config.max_cited, trusted_first)]
        return Verdict(
            id=reading.item.id, triple=reading.item.triple, verdict=verdict, method=self.name,
            gold=reading.item.label, confidence=round(p_true if verdict else 1.0 - p_true if verdict is False
                                                       else max(p_true, 1.0 - p_true), 4),
            evidence=[EvidenceRef.of(h.passage) for h in cited],
            search_calls=reading.searches, seconds=reading.seconds, trajectory=reading.turns,
            p_true=round(p_true, 4), undecided=outcome is Outcome.UNDECIDED, reading=reading.evidence,
            rare_relation=reading.judge is not self.main)
