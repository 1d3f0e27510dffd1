"""A privileged teacher: writes successful agent trajectories at scale without any LLM.

Offline there is no large teacher (the paper's gpt-oss-120b), and the embedded 135M model as its own
teacher wrote 138 usable pairs in 25 minutes. This teacher instead knows, for a training triple, its gold
label and, for a hard negative, the true object it replaced, and plays the agent's exact action protocol
inside the agent's own loop (`AgentKGV(policy=...)`):

- route: it always searches (it has no parametric knowledge to answer from);
- query: the first query is the `s,p,o` combination; while nothing shown settles the triple it rewrites
  along the combination table (`s,p',o`, `s,p`, `s,p'`, `s`), never repeating a query;
- judge: once a shown passage settles the triple it answers with the gold verdict and cites it; with the
  budget spent and nothing found it answers false, as a reader of those results would.

Every decision depends only on what the student's state shows, the windowed passages with their marks: a
passage naming both [S:..] and [O:..] (true, or for a co-mention negative false), one naming [S:..] with
the true object (false), or nothing that settles it. Trajectories where that disagrees with the gold label
(a true triple whose evidence never came into a window with both names) end with a wrong verdict, and the
SFT data keeps only correct trajectories, as the paper does. The reasoning it writes names what it saw.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from agentkgv.core.combinations import compose_query
from agentkgv.data.records import Example
from agentkgv.data.text import mentions_any
from agentkgv.llm.base import Completion, Prompt
from agentkgv.llm_agent.prompts import action_text, agent_view
from agentkgv.llm_agent.trajectory import Trajectory

QUERY_ORDER = ("s,p,o", "s,p',o", "s,p", "s,p'", "s")


@dataclass(frozen=True, slots=True)
class Privilege:
    """What the teacher knows of one training triple beyond what the student sees."""

    label: bool
    co_mention: bool = False
    # A hard negative's true object; a co-mention negative's stated relation (either may be unknown).
    true_object: str | None = None
    stated_relation: str | None = None
    # Other names of the true object, which a passage giving it may use instead.
    true_object_aliases: tuple[str, ...] = ()


def privileges(examples: Iterable[Example]) -> dict[str, Privilege]:
    """Privileges by example id; only the train split may be given (the teacher never reads a test split)."""
    examples = list(examples)
    wrong = next((e for e in examples if e.split != "train"), None)
    if wrong is not None:
        raise ValueError(f"the privileged teacher reads only the train split; {wrong.id} is from {wrong.split}")
    by_id = {e.id: e for e in examples}
    table = {}
    for e in examples:
        positive = by_id.get(e.negative_of) if e.negative_of else None
        co_mention = e.extra.get("negative") == "co_mention"
        replaced = positive is not None and not co_mention
        table[e.id] = Privilege(e.label, co_mention, positive.triple.object if replaced else None,
                                (e.extra.get("stated_relation") or None) if co_mention else None,
                                positive.triple.object_aliases if replaced else ())
    return table


class PrivilegedTeacher:
    """A `Policy` (agentkgv.llm_agent.policy) that acts from privileged knowledge; see the module docstring."""

    def __init__(self, table: dict[str, Privilege], max_searches: int = 3, reasoning_chars: int = 120,
                 max_cited: int = 2, passage_words: int = 26):
        self.table = table
        self.passage_words = passage_words
        self.max_searches = max_searches
        self.reasoning_chars = reasoning_chars
        self.max_cited = max_cited

    def act(self, trajectories: list[Trajectory], states: list[Prompt], schemas: list[dict]) -> list[Completion]:
        return [self._completion(self._action(t, s)) for t, s in zip(trajectories, schemas, strict=True)]

    def _action(self, trajectory: Trajectory, schema: dict) -> dict:
        privilege = self.table.get(trajectory.item.id)
        if privilege is None:
            raise KeyError(f"no privileged knowledge for triple {trajectory.item.id}")
        may_search, may_answer = _allowed(schema)
        settled = self._settling(trajectory, privilege)
        if may_answer and (settled or not may_search or trajectory.searches >= self.max_searches):
            return self._answer(trajectory, privilege, settled)
        query = self._next_query(trajectory)
        if query is None or not may_search:
            return self._answer(trajectory, privilege, settled)
        combination, text = query
        t = trajectory.item.triple
        reasoning = (f"Find a passage on {t.subject} and its {t.predicate}." if trajectory.last_query is None
                     else f"No shown passage settles it; try {combination}.")
        return {"reasoning": self._cut(reasoning), "action": "search", "combination": combination, "query": text}

    def _settling(self, trajectory: Trajectory, privilege: Privilege) -> list[int]:
        """Numbers of the shown passages that settle the triple the gold way, judged on the window the
        student reads: a gold passage whose subject mention falls outside the window (or is an alias the
        marks miss) settles nothing for the student, so the teacher may not rely on it either."""
        t = trajectory.item.triple
        numbers = []
        for number, hit in enumerate(trajectory.last_hits, start=1):
            view = agent_view(t, hit, self.passage_words)
            if privilege.label or privilege.co_mention:
                # The fact's statement, or the co-mention: both names in what the student reads.
                gold = view.has_subject and view.has_object
            else:
                gold = (privilege.true_object is not None and view.has_subject
                        and mentions_any(view.text, (privilege.true_object, *privilege.true_object_aliases)))
            if gold:
                numbers.append(number)
        return numbers

    def _answer(self, trajectory: Trajectory, privilege: Privilege, settled: list[int]) -> dict:
        t = trajectory.item.triple
        cited = settled[: self.max_cited]
        if not cited:
            verdict, reasoning = False, f"No shown passage states {t.subject} {t.predicate} {t.object}."
        elif privilege.label:
            verdict, reasoning = True, f"Passage {cited[0]} states {t.subject} {t.predicate} {t.object}."
        elif privilege.stated_relation:
            verdict = False
            reasoning = f"Passage {cited[0]} links {t.object} to {t.subject} as {privilege.stated_relation}, not {t.predicate}."
        elif privilege.true_object:
            verdict = False
            reasoning = f"Passage {cited[0]} gives {t.subject} another {t.predicate}: {privilege.true_object}."
        else:
            verdict, reasoning = False, f"Passage {cited[0]} names {t.object} but not as {t.subject}'s {t.predicate}."
        return {"reasoning": self._cut(reasoning), "action": "answer", "evidence": cited,
                "verdict": "true" if verdict else "false"}

    def _next_query(self, trajectory: Trajectory) -> tuple[str, str] | None:
        asked = {turn.action.query for turn in trajectory.turns if turn.action.kind == "search"}
        paraphrase = trajectory.paraphrases[0] if trajectory.paraphrases else None
        for combination in QUERY_ORDER:
            if "p'" in combination and paraphrase is None:
                continue
            query = compose_query(trajectory.item.triple, combination, paraphrase)
            if query not in asked:
                return combination, query
        return None

    def _cut(self, text: str) -> str:
        return text if len(text) <= self.reasoning_chars else text[: self.reasoning_chars - 1] + "…"

    @staticmethod
    def _completion(action: dict) -> Completion:
        return Completion(text=action_text(action), prompt_tokens=0, completion_tokens=0, latency_s=0.0,
                          finish_reason="stop")


def _allowed(schema: dict) -> tuple[bool, bool]:
    """(may search, may answer) under the turn's action schema."""
    if "anyOf" in schema:
        return True, True
    return "query" in schema["properties"], "verdict" in schema["properties"]
