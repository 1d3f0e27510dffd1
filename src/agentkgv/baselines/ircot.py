"""IRCoT (Trivedi et al., 2022) as its authors coded it, adapted to a triple as the question.

Retrieve k paragraphs with the question; then repeat: generate one chain-of-thought sentence over all
paragraphs collected so far, stop if it carries the answer, else retrieve k more with that sentence as
the query and add the new ones to the pool (capped). If the sentence cap is reached without an answer,
a reader call over the pool gives the verdict, as IRCoT's separate QA reader does.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from agentkgv.baselines.prompts import ircot_prompt, ircot_schema, rag_prompt
from agentkgv.baselines.single_pass import read_verdicts
from agentkgv.core.trace import Turn, Turns
from agentkgv.core.verdict import EvidenceRef, Tally, Verdict
from agentkgv.data.records import LabeledTriple
from agentkgv.llm.answers import parse_field, parse_verdict, verdict_confidence
from agentkgv.llm.base import LLM, GenerationConfig
from agentkgv.retrieval.base import Hit, Retriever
from agentkgv.retrieval.guard import search_recorded


@dataclass
class _Chain(Tally):
    item: LabeledTriple
    pool: list[Hit] = field(default_factory=list)
    thoughts: list[str] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)

    def add(self, hits: list[Hit], cap: int) -> None:
        seen = {h.passage.id for h in self.pool}
        self.pool += [h for h in hits if h.passage.id not in seen][: max(0, cap - len(self.pool))]


class IRCoT:
    name = "ircot"

    def __init__(self, llm: LLM, retriever: Retriever, config: GenerationConfig, top_k: int = 5,
                 max_sentences: int = 7, max_paragraphs: int = 10, max_passage_words: int = 60,
                 sentence_chars: int = 160, reasoning_chars: int = 150):
        self.llm, self.retriever, self.config = llm, retriever, config
        self.top_k, self.max_sentences, self.max_paragraphs = top_k, max_sentences, max_paragraphs
        self.max_passage_words, self.sentence_chars, self.reasoning_chars = max_passage_words, sentence_chars, reasoning_chars

    def _retrieve(self, chains: list[_Chain], queries: list[str]) -> None:
        for chain, hits, dropped in zip(chains, *search_recorded(self.retriever, queries, self.top_k)):
            chain.searches += 1
            chain.withhold(dropped)
            chain.add(list(hits), self.max_paragraphs)

    def verify(self, items: list[LabeledTriple]) -> list[Verdict]:
        chains = [_Chain(item) for item in items]
        started = time.perf_counter()
        self._retrieve(chains, [c.item.triple.verbalize() for c in chains])
        for chain in chains:
            chain.seconds += (time.perf_counter() - started) / len(chains)
        active = chains
        while active:
            started = time.perf_counter()
            prompts = [ircot_prompt(c.item.triple, c.pool, c.thoughts, self.max_passage_words) for c in active]
            completions = self.llm.generate(prompts, self.config, ircot_schema(self.sentence_chars))
            continuing, queries = [], []
            for chain, messages, completion in zip(active, prompts, completions):
                sentence = parse_field(completion.text, "sentence")
                verdict, _ = parse_verdict(completion.text)
                chain.charge(completion.prompt_tokens, completion.completion_tokens)
                chain.turns.append(Turn(len(chain.turns) + 1, messages, completion.text,
                                        finish_reason=completion.finish_reason, prompt_tokens=completion.prompt_tokens,
                                        completion_tokens=completion.completion_tokens,
                                        latency_s=completion.latency_s, retrieved=[h.passage.id for h in chain.pool]))
                if verdict is not None:
                    chain.verdict, chain.done = verdict, True
                    chain.confidence = verdict_confidence(completion, "answer")
                elif sentence is None or len(chain.thoughts) + 1 >= self.max_sentences:
                    chain.done = True  # unparsable step or sentence cap: the reader decides below
                    if sentence:
                        chain.thoughts.append(sentence)
                else:
                    chain.thoughts.append(sentence)
                    continuing.append(chain)
                    queries.append(sentence)
            if continuing:
                self._retrieve(continuing, queries)
            share = (time.perf_counter() - started) / len(active)
            for chain in active:
                chain.seconds += share
            active = continuing
        return self._finish(chains)

    def _finish(self, chains: list[_Chain]) -> list[Verdict]:
        undecided = [c for c in chains if c.verdict is None]
        read = {}
        if undecided:
            prompts = [rag_prompt(c.item.triple, c.pool, self.max_passage_words) for c in undecided]
            for chain, verdict in zip(undecided, read_verdicts(
                    self.llm, self.name, [c.item for c in undecided], prompts, [c.pool for c in undecided],
                    self.config, self.reasoning_chars, search_calls=0)):
                read[chain.item.id] = verdict
        verdicts = []
        for chain in chains:
            reader = read.get(chain.item.id)
            verdicts.append(Verdict(
                id=chain.item.id, triple=chain.item.triple,
                verdict=reader.verdict if reader else chain.verdict, method=self.name, gold=chain.item.label,
                confidence=reader.confidence if reader else chain.confidence,
                evidence=[EvidenceRef.of(h.passage) for h in chain.pool],
                search_calls=chain.searches,
                prompt_tokens=chain.prompt_tokens + (reader.prompt_tokens if reader else 0),
                completion_tokens=chain.completion_tokens + (reader.completion_tokens if reader else 0),
                seconds=chain.seconds + (reader.seconds if reader else 0.0),
                trace=Turns(chain.turns + (reader.trace.turns if reader else [])), withheld=chain.withheld))
        return verdicts
