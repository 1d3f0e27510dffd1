"""The LLM agent's rules: small named objects that take a turn in the model's place, or narrow what it may
decode. `AgentConfig.rules` names those a run uses; all three by default. A teacher writing training data
keeps only the grounding rule (train/teacher.py), so its data has the turns the other two would take.

- `open_with_triple`: the first turn searches the `s,p,o` combination without a model call. The shipped
  adapter was distilled from a teacher that always opens so: on the full eval splits it wrote this very
  query on 2,377 of 2,400 first turns, the rest being copying slips (BENCHMARKS.md: "the first turn by
  rule"). The first turn's reasoning reaches no later state, so the rule leaves the rest of the run as it
  was and saves a model call per triple. Without it the model routes and writes the first query (the
  paper's agent).
- `ground_true`: after a search, "true" may be decoded only when a shown passage names both the subject
  and the object (in the window the agent reads), so a true verdict always has a passage to cite; "false"
  and another search stay open, and whether such a passage states this relation is the model's call. While
  fewer than `AgentConfig.false_needs_searches` searches are done, such a turn may not answer at all: it
  rewrites first.
- `settle_unfounded`: once `ground_true` leaves only "false" and no rewrite is owed, the agent answers it
  itself. The model's only other move there is another search, which the shipped adapter took in 0 of the
  unfounded turns measured (BENCHMARKS.md: "two cuts in work per triple"); the rule saves the judging turn,
  the longest state, for about half the triples.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from agentkgv.core.combinations import compose_query
from agentkgv.data.records import Triple

RuleName = Literal["open_with_triple", "ground_true", "settle_unfounded"]
RULES: tuple[RuleName, ...] = ("open_with_triple", "ground_true", "settle_unfounded")

UNFOUNDED_REASON = "No shown passage names both the subject and the object."
OPENING_COMBINATION = "s,p,o"
OPENING_REASON = "First search: the subject, predicate and object together."


@dataclass(frozen=True, slots=True)
class TurnFacts:
    """What the rules decide from, as the agent sees one trajectory at the start of a turn."""

    triple: Triple
    turns: int  # turns taken so far
    searched: bool  # a search ran, and its passages are the ones shown
    names_both: bool  # a shown passage names both the subject and the object
    may_search: bool
    rewrite_owed: bool  # fewer searches than `false_needs_searches` so far

    @property
    def unfounded(self) -> bool:
        return self.searched and not self.names_both


class AgentRule(Protocol):
    name: RuleName

    def action(self, facts: TurnFacts) -> dict | None:
        """The action the rule takes this turn instead of the model, or None."""
        ...

    def verdicts(self, facts: TurnFacts) -> list[str] | None:
        """The verdicts the model may still decode this turn; None leaves both."""
        ...

    def holds_answer(self, facts: TurnFacts) -> bool:
        """Whether the model may not answer this turn."""
        ...


class OpenWithTriple:
    name: RuleName = "open_with_triple"

    def action(self, facts: TurnFacts) -> dict | None:
        if facts.turns or not facts.may_search:
            return None
        return {"reasoning": OPENING_REASON, "action": "search", "combination": OPENING_COMBINATION,
                "query": compose_query(facts.triple, OPENING_COMBINATION)}

    def verdicts(self, facts: TurnFacts) -> list[str] | None:
        return None

    def holds_answer(self, facts: TurnFacts) -> bool:
        return False


class GroundTrue:
    name: RuleName = "ground_true"

    def action(self, facts: TurnFacts) -> dict | None:
        return None

    def verdicts(self, facts: TurnFacts) -> list[str] | None:
        return ["false"] if facts.unfounded else None

    def holds_answer(self, facts: TurnFacts) -> bool:
        return facts.rewrite_owed and facts.unfounded


class SettleUnfounded:
    name: RuleName = "settle_unfounded"

    def action(self, facts: TurnFacts) -> dict | None:
        if not facts.unfounded or facts.rewrite_owed:
            return None
        return {"reasoning": UNFOUNDED_REASON, "action": "answer", "evidence": [], "verdict": "false"}

    def verdicts(self, facts: TurnFacts) -> list[str] | None:
        return None

    def holds_answer(self, facts: TurnFacts) -> bool:
        return False


BY_NAME: dict[RuleName, type] = {"open_with_triple": OpenWithTriple, "ground_true": GroundTrue,
                                 "settle_unfounded": SettleUnfounded}


def make_rules(names: tuple[RuleName, ...]) -> list[AgentRule]:
    """The rules in the order their actions are tried (an opening and a settling never fall on one turn)."""
    return [BY_NAME[name]() for name in RULES if name in names]
