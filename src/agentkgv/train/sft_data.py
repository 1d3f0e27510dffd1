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
from dataclasses import dataclass, field
from pathlib import Path

from agentkgv.core.runner import load_run
from agentkgv.core.trace import Turn
from agentkgv.core.verdict import Verdict
from agentkgv.data.benchmark import triple_key
from agentkgv.data.errors import DataError
from agentkgv.data.records import Example
from agentkgv.train.teacher import teacher_logs, teacher_policy

SFT_FILE = "sft.jsonl"

# A rationalizing teacher sometimes says where its certainty came from; such text must not be learned.
_HINT_LEAK = re.compile(r"\b(hint|note|gold|label(?:led)?|told|correct verdict)\b", re.IGNORECASE)
# A search step that already states the verdict learned it from the hint, not from evidence it has not seen.
_VERDICT_WORD = re.compile(r"\b(true|false)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class SFTExample:
    triple_id: str  # the training triple whose trajectory it comes from
    sample: int  # the teacher sample that wrote the trajectory
    turn: int
    kind: str  # "routing", "search" or "judgment"
    prompt: list[dict]
    completion: str
    predicate_id: str | None

    def to_json(self) -> dict:
        """TRL's conversational prompt-completion format, with where the pair came from beside it."""
        return {"triple_id": self.triple_id, "sample": self.sample, "turn": self.turn, "kind": self.kind,
                "predicate_id": self.predicate_id, "prompt": self.prompt,
                "completion": [{"role": "assistant", "content": self.completion}]}


@dataclass
class SFTDataStats:
    trajectories: int = 0
    correct: int = 0
    leaked: int = 0
    examples: Counter = field(default_factory=Counter)


TURNS_TAKEN = ("last", "all")


def sft_pairs(verdict: Verdict, turns_taken: str = "last", sample: int = 0) -> list[SFTExample]:
    """The state-action pairs of a correct trajectory: the paper's last-turn pairs (see the module
    docstring), or with `turns_taken="all"` every turn, for a teacher whose every step is one the student
    should copy (the privileged teacher: its rewrites and its stops are all decided from the state)."""
    if turns_taken not in TURNS_TAKEN:
        raise ValueError(f"turns_taken must be one of {TURNS_TAKEN}, not {turns_taken!r}")
    turns = [turn for turn in verdict.turns if turn.by_model]  # a rule's answer teaches nothing
    if not verdict.correct or not turns or turns[-1].action is None or turns[-1].action.kind != "answer":
        return []
    pid = verdict.triple.predicate_id

    def pair(turn: Turn, kind: str) -> SFTExample:
        return SFTExample(verdict.id, sample, turn.turn, kind, turn.student_state(), turn.action_text, pid)

    if turns_taken == "all":
        return [pair(turn, "routing" if turn.turn == 1 else "search" if turn.action.kind == "search"
                     else "judgment") for turn in turns]
    if len(turns) == 1:  # an answer at once, or a judgment after the rule's opening search
        return [pair(turns[0], "routing" if turns[0].turn == 1 else "judgment")]
    search = turns[-2]
    if search.action is None or search.action.kind != "search":
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
        if triple_key(verdict.triple) in forbidden or not verdict.id.startswith("train:"):
            raise ValueError(f"trajectory {verdict.id} is about a test triple, not a training one")


def forbidden_keys(test_examples: Iterable[Example]) -> set[tuple[str, str, str]]:
    return {triple_key(e.triple) for e in test_examples}


def build_examples(verdicts: list[tuple[int, Verdict]], stats: SFTDataStats | None = None,
                   turns_taken: str = "last", hinted: bool = True) -> list[SFTExample]:
    """`hinted`: the teacher saw the gold label, so a pair that betrays it is dropped. A teacher that never
    saw a hint (the privileged one) has nothing to leak, and its reasoning names the predicate, which can be
    a leak word ("record label")."""
    stats = stats if stats is not None else SFTDataStats()
    examples = []
    for sample, verdict in verdicts:
        stats.trajectories += 1
        stats.correct += verdict.correct
        pairs = sft_pairs(verdict, turns_taken, sample)
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


def sft_data_from_run(run_dir: Path, tests: Iterable[Example], unseen_predicates: set[str],
                      turns_taken: str = "last") -> tuple[list[SFTExample], SFTDataStats]:
    """The SFT pairs of a teacher run's correct trajectories, written to run_dir/sft.jsonl, after checking
    that no trajectory is about a test triple or an unseen predicate."""
    if turns_taken not in TURNS_TAKEN:
        raise ValueError(f"turns must be one of {', '.join(TURNS_TAKEN)}, not {turns_taken!r}")
    logs = teacher_logs(run_dir)
    if not logs:
        raise DataError(run_dir, "no teacher trajectories (teacher.s*.jsonl); run `agentkgv teacher` first")
    verdicts = [(sample, v) for sample, log in logs for v in load_run(log).values()]
    check_train_only([v for _, v in verdicts], forbidden_keys(tests), unseen_predicates)
    stats = SFTDataStats()
    examples = build_examples(verdicts, stats, turns_taken, hinted=teacher_policy(run_dir) == "llm")
    write_dataset(examples, run_dir / SFT_FILE)
    return examples, stats
