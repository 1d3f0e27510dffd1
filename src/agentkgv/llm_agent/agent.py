"""The AgentKGV agent (paper section 3.2): routing, combination-guided first query, iterative rewriting
and a running summary, with at most T turns and top-k passages per search.

Triples advance turn-synchronously: each step sends every unfinished trajectory's state to the model in
one batch, runs all their searches in one retrieval batch and all their summaries in one summarizer
batch (the rollout loop of Search-R1). A trajectory is plain data (`Trajectory`), so one triple's whole
run is a pure function of (triple, config, models) and can be shipped to a distributed worker.
"""

from __future__ import annotations

import time

from agentkgv.core.combinations import COMBINATIONS, compose_query, paraphrases_of
from agentkgv.core.trace import RULE, Action, Turn, Turns
from agentkgv.core.verdict import EvidenceRef, Verdict
from agentkgv.data.records import LabeledTriple
from agentkgv.llm.answers import verdict_confidence
from agentkgv.llm.base import LLM, GenerationConfig
from agentkgv.llm_agent.actions import parse_action
from agentkgv.llm_agent.config import AgentConfig
from agentkgv.llm_agent.policy import LLMPolicy, Policy
from agentkgv.llm_agent.prompts import action_schema, action_text, agent_state, agent_view
from agentkgv.llm_agent.rules import TurnFacts, make_rules
from agentkgv.llm_agent.summarizer import Summarizer, SummaryRequest
from agentkgv.llm_agent.trajectory import Trajectory
from agentkgv.retrieval.base import Retriever
from agentkgv.retrieval.guard import search_recorded


class AgentKGV:
    name = "agentkgv"

    def __init__(self, llm: LLM | None, retriever: Retriever, summarizer: Summarizer,
                 paraphrases: dict[str, list[str]], config: AgentConfig | None = None, policy: Policy | None = None):
        """`policy` chooses the actions; by default the LLM does, decoding under this config's settings."""
        self.retriever = retriever
        self.summarizer = summarizer
        self.paraphrases = paraphrases
        self.config = config or AgentConfig()
        if policy is None and llm is None:
            raise ValueError("the agent needs an LLM or a policy to choose its actions")
        self.policy = policy or LLMPolicy(llm, self.generation_config())
        self.rules = make_rules(self.config.rules)

    def generation_config(self) -> GenerationConfig:
        c = self.config
        return GenerationConfig(max_new_tokens=c.max_new_tokens, temperature=c.temperature, seed=c.seed)

    def start(self, item: LabeledTriple) -> Trajectory:
        return Trajectory(item, paraphrases_of(self.paraphrases, item.triple))

    def state(self, trajectory: Trajectory, student: bool = False) -> list[dict]:
        """What the model sees this turn. `student` gives the inference-time context even in a teacher run:
        the state training data is built from, without the teacher's instructions or hint."""
        c = self.config
        teacher = c.teaching and not student
        # The hint comes with the turns that may judge: a search turn needs no label, and seeing it there
        # only tempts the teacher to state the verdict before it has the evidence.
        judging = c.hinted and not student and self._may_answer(trajectory, self.facts(trajectory))
        hint = trajectory.item.label if judging else None
        if c.hinted and trajectory.item.label is None:
            raise ValueError(f"triple {trajectory.item.id} has no gold label to hint")
        return agent_state(trajectory, c.max_turns, c.max_passage_words, teacher, hint)

    def step(self, active: list[Trajectory]) -> None:
        """Advance every unfinished trajectory by one turn."""
        c = self.config
        started = time.perf_counter()
        opening: list[Trajectory] = []
        asked: list[Trajectory] = []
        asked_facts: list[TurnFacts] = []  # once per turn: the rules, the search and the answer checks all read them
        searching: list[tuple[Trajectory, Action]] = []
        for trajectory in (t for t in active if not t.done):
            facts = self.facts(trajectory)
            ruled = self._rule_action(facts)
            if ruled is None:
                asked.append(trajectory)
                asked_facts.append(facts)
            elif ruled["action"] == "answer":
                self._rule_turn(trajectory, ruled)
                # As certain as the model's own answer would have been: the rules left it no other verdict.
                trajectory.verdict, trajectory.confidence, trajectory.done = ruled["verdict"] == "true", 1.0, True
            else:
                opening.append(trajectory)
                searching.append((trajectory, self._rule_turn(trajectory, ruled)))
        prompts = [self.state(t) for t in asked]
        completions = self.policy.act(asked, prompts, list(map(self.schema, asked, asked_facts))) if asked else []
        for trajectory, messages, completion in zip(asked, prompts, completions):
            action = parse_action(completion.text)
            trajectory.charge(completion.prompt_tokens, completion.completion_tokens)
            trajectory.turns.append(Turn(
                len(trajectory.turns) + 1, messages, completion.text,
                action_ids=None if completion.token_ids is None else list(completion.token_ids), action=action,
                finish_reason=completion.finish_reason, prompt_tokens=completion.prompt_tokens,
                completion_tokens=completion.completion_tokens, latency_s=completion.latency_s,
                summary=trajectory.summary,
                # the context a deployed agent would have built, which training learns from
                state=self.state(trajectory, student=True) if c.teaching else None))
            if action.kind == "answer":
                trajectory.verdict, trajectory.done = action.verdict, True
                trajectory.confidence = verdict_confidence(completion)
                # Only passages this turn showed can be cited; a number outside them is dropped.
                trajectory.cited = [trajectory.last_hits[n - 1] for n in action.evidence
                                    if 1 <= n <= len(trajectory.last_hits)]
            elif action.kind == "invalid" or len(trajectory.turns) >= c.max_turns:
                trajectory.done = True
            else:
                searching.append((trajectory, action))
        self._search(searching)
        # A settled trajectory cost nothing this turn; the turn's time is the asked and opened ones'.
        working = asked + opening
        share = (time.perf_counter() - started) / max(1, len(working))
        for trajectory in working:
            trajectory.seconds += share

    def schema(self, trajectory: Trajectory, facts: TurnFacts) -> dict:
        """The actions open to this trajectory this turn (`facts`: `facts(trajectory)`), as the JSON schema its
        output is decoded under."""
        c = self.config
        narrowed: dict = {}
        if c.hinted:  # rationalization: the teacher writes the reasoning for the known label
            narrowed["verdicts"] = ["true" if trajectory.item.label else "false"]
        else:
            for left in filter(None, (rule.verdicts(facts) for rule in self.rules)):
                narrowed["verdicts"] = [v for v in narrowed.get("verdicts", left) if v in left]
        if self._rewriting(trajectory):
            narrowed["queries"] = self._fresh_queries(trajectory)
        return action_schema(c.reasoning_chars, c.query_chars, facts.may_search, self._may_answer(trajectory, facts),
                             passages=len(trajectory.last_hits), max_cited=c.max_cited, **narrowed)

    def facts(self, trajectory: Trajectory) -> TurnFacts:
        """What the rules see of this trajectory now."""
        searched = trajectory.last_query is not None
        return TurnFacts(trajectory.item.triple, len(trajectory.turns), searched,
                         searched and self.names_both(trajectory), self._may_search(trajectory),
                         trajectory.searches < self.config.false_needs_searches)

    def _rule_action(self, facts: TurnFacts) -> dict | None:
        """The action a rule takes this turn in the model's place, if one does."""
        return next(filter(None, (rule.action(facts) for rule in self.rules)), None)

    @staticmethod
    def _rule_turn(trajectory: Trajectory, action: dict) -> Action:
        """Record a turn the agent's rule took without a model call; its action is parsed from the text it
        records, as a model's would be."""
        text = action_text(action)
        turn = Turn(len(trajectory.turns) + 1, [], text, action_ids=[], action=parse_action(text),
                    finish_reason=RULE, summary=trajectory.summary)
        trajectory.turns.append(turn)
        return turn.action

    def _rewriting(self, trajectory: Trajectory) -> bool:
        """Whether the next query must come from the combination table: always for a table-queries teacher,
        and for every rewrite, since a 135M model left to write its second query mostly repeats its first
        (same query, same results, a wasted turn)."""
        teacher = self.config.teacher
        return (teacher is not None and teacher.table_queries) or trajectory.searches > 0

    def _fresh_queries(self, trajectory: Trajectory) -> list[str]:
        """The combination table's queries for this triple that no earlier turn asked."""
        asked = {turn.action.query for turn in trajectory.turns if turn.action is not None}
        paraphrase = next(iter(trajectory.paraphrases), None)
        table = [compose_query(trajectory.item.triple, name, paraphrase) for name in COMBINATIONS]
        return [q for q in dict.fromkeys(table) if q not in asked]

    def names_both(self, trajectory: Trajectory) -> bool:
        """Whether a shown passage names both the subject and the object in the window the agent reads."""
        t = trajectory.item.triple
        return any(view.has_subject and view.has_object for view in (
            agent_view(t, h, self.config.max_passage_words) for h in trajectory.last_hits))

    def _may_search(self, trajectory: Trajectory) -> bool:
        c = self.config
        if c.max_searches is not None and trajectory.searches >= c.max_searches:
            return False
        if self._rewriting(trajectory) and not self._fresh_queries(trajectory):
            return False
        return not (len(trajectory.turns) + 1 >= c.max_turns and c.force_answer_on_last_turn)

    def _may_answer(self, trajectory: Trajectory, facts: TurnFacts) -> bool:
        """`facts`: `facts(trajectory)`, which the caller has already computed."""
        c = self.config
        last_turn = len(trajectory.turns) + 1 >= c.max_turns
        if last_turn or not facts.may_search:
            return True
        if c.teacher is not None and trajectory.searches < c.teacher.min_searches:
            return False
        return not any(rule.holds_answer(facts) for rule in self.rules)

    def _search(self, searching: list[tuple[Trajectory, Action]]) -> None:
        if not searching:
            return
        # The summary folds in the previous turn's results only now that a newer search replaces them.
        folding = [t for t, _ in searching if t.last_query is not None]
        results = self.summarizer.summarize(
            [SummaryRequest(t.item.triple, t.summary, t.last_query, t.last_hits) for t in folding])
        for trajectory, result in zip(folding, results):
            trajectory.summary = result.summary
            trajectory.charge(result.prompt_tokens, result.completion_tokens)
        hits, withheld = search_recorded(self.retriever, [a.query for _, a in searching], self.config.top_k)
        for (trajectory, action), found, dropped in zip(searching, hits, withheld):
            trajectory.searches += 1
            trajectory.withhold(dropped)
            trajectory.last_query, trajectory.last_hits = action.query, list(found)
            trajectory.turns[-1].retrieved = [h.passage.id for h in found]

    def run(self, trajectories: list[Trajectory]) -> list[Trajectory]:
        active = [t for t in trajectories if not t.done]
        while active:
            self.step(active)
            active = [t for t in active if not t.done]
        return trajectories

    def verify(self, items: list[LabeledTriple]) -> list[Verdict]:
        return [self.to_verdict(t) for t in self.run([self.start(item) for item in items])]

    def to_verdict(self, trajectory: Trajectory) -> Verdict:
        """The verdict with the passages its answer cited: the evidence is the model's own citation."""
        return Verdict(
            id=trajectory.item.id, triple=trajectory.item.triple, verdict=trajectory.verdict, method=self.name,
            gold=trajectory.item.label, confidence=trajectory.confidence,
            evidence=[EvidenceRef.of(h.passage) for h in trajectory.cited],
            search_calls=trajectory.searches, prompt_tokens=trajectory.prompt_tokens,
            completion_tokens=trajectory.completion_tokens, seconds=trajectory.seconds,
            trace=Turns(trajectory.turns), withheld=trajectory.withheld)
