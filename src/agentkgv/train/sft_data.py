"""From teacher trajectories to SFT examples, by the paper's recipe (section 3.3.1).

Only trajectories whose final judgment matches the gold label are kept. From each, the last turn gives
two state-action pairs: the search step whose results the judgment read, and the judgment itself; a
trajectory that answered at once gives its routing pair. The state is the student's inference-time
context at that step (the text the agent builds, never the teacher's hint) and the action is the model's
own output, so the loss, which covers only the completion, never touches retrieved text or summaries.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from dataclasses import dataclass, field

from agentkgv.agent.base import Verdict
from agentkgv.data.benchmark import triple_key
from agentkgv.data.records import Example
from agentkgv.train.teacher import triple_id

# A rationalizing teacher sometimes says where its certainty came from; such text must not be learned.
_HINT_LEAK = re.compile(r"\b(hint|note|gold|label(?:led)?|told|correct verdict)\b", re.IGNORECASE)
# A search step that already states the verdict learned it from the hint, not from evidence it has not seen.
_VERDICT_WORD = re.compile(r"\b(true|false)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class SFTExample:
    id: str
    kind: str  # "routing", "search" or "judgment"
    prompt: list[dict]
    completion: str
    predicate_id: str | None

    def to_json(self) -> dict:
        """TRL's conversational prompt-completion format."""
        return {"id": self.id, "kind": self.kind, "predicate_id": self.predicate_id, "prompt": self.prompt,
                "completion": [{"role": "assistant", "content": self.completion}]}


@dataclass
class SFTDataStats:
    trajectories: int = 0
    correct: int = 0
    leaked: int = 0
    examples: Counter = field(default_factory=Counter)


def is_correct(verdict: Verdict) -> bool:
    return verdict.verdict is not None and verdict.gold is not None and verdict.verdict == verdict.gold


def state_of(turn: dict) -> list[dict]:
    """The student's context at this turn: the recorded `state` of a teacher run, else what the model saw."""
    return turn.get("state", turn["messages"])


TURNS_TAKEN = ("last", "all")


def sft_pairs(verdict: Verdict, turns_taken: str = "last") -> list[SFTExample]:
    """The state-action pairs of a correct trajectory: the paper's last-turn pairs (see the module
    docstring), or with `turns_taken="all"` every turn, for a teacher whose every step is one the student
    should copy (the privileged teacher: its rewrites and its stops are all decided from the state)."""
    if turns_taken not in TURNS_TAKEN:
        raise ValueError(f"turns_taken must be one of {TURNS_TAKEN}, not {turns_taken!r}")
    turns = verdict.trajectory
    if not is_correct(verdict) or not turns or turns[-1]["action"]["kind"] != "answer":
        return []
    pid = verdict.triple.predicate_id

    def pair(turn: dict, kind: str) -> SFTExample:
        return SFTExample(f"{verdict.id}:t{turn['turn']}", kind, state_of(turn), turn["action_text"], pid)

    if turns_taken == "all":
        return [pair(turn, "routing" if turn["turn"] == 1 else "search" if turn["action"]["kind"] == "search"
                     else "judgment") for turn in turns]
    if len(turns) == 1:
        return [pair(turns[0], "routing")]
    search = turns[-2]
    if search["action"]["kind"] != "search":
        return []
    return [pair(search, "search"), pair(turns[-1], "judgment")]


def leaks_hint(example: SFTExample) -> bool:
    if _HINT_LEAK.search(example.completion):
        return True
    return example.kind == "search" and bool(_VERDICT_WORD.search(json.loads(example.completion).get("reasoning", "")))


def check_train_only(verdicts: Iterable[Verdict], forbidden: set[tuple[str, str, str]],
                     unseen_predicates: set[str]) -> None:
    """Fail on any trajectory about a test triple or an unseen predicate: they must never be trained on."""
    for verdict in verdicts:
        pid = verdict.triple.predicate_id
        if pid in unseen_predicates:
            raise ValueError(f"trajectory {verdict.id} is about unseen predicate {pid}")
        if triple_key(verdict.triple) in forbidden or not triple_id(verdict.id).startswith("train:"):
            raise ValueError(f"trajectory {verdict.id} is about a test triple, not a training one")


def forbidden_keys(test_examples: Iterable[Example]) -> set[tuple[str, str, str]]:
    return {triple_key(e.triple) for e in test_examples}


def build_examples(verdicts: list[Verdict], stats: SFTDataStats | None = None, turns_taken: str = "last",
                   hinted: bool = True) -> list[SFTExample]:
    """`hinted`: the teacher saw the gold label, so a pair that betrays it is dropped. A teacher that never
    saw a hint (the privileged one) has nothing to leak, and its reasoning names the predicate, which can be
    a leak word ("record label")."""
    stats = stats if stats is not None else SFTDataStats()
    examples = []
    for verdict in verdicts:
        stats.trajectories += 1
        stats.correct += is_correct(verdict)
        pairs = sft_pairs(verdict, turns_taken)
        if hinted and any(leaks_hint(p) for p in pairs):
            stats.leaked += 1
            continue
        for example in pairs:
            stats.examples[example.kind] += 1
        examples += pairs
    return examples


def write_dataset(examples: list[SFTExample], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for example in examples:
            handle.write(json.dumps(example.to_json(), ensure_ascii=False) + "\n")
