"""Stage-1 data (paper section 3.3.1): a teacher runs the same agent loop over training triples.

The paper's teacher is gpt-oss-120b. Any backend can be the teacher here (a served model through
`--backend openai`); offline, the strongest model we have is the 135M student itself, which left alone
writes queries such as "answer" and says "true" to nearly everything. Three aids make its trajectories
worth learning from, each a setting: it sees the gold label as a hint and its verdict is held to it while
it writes the reasoning (rationalization); it may not answer before it has searched once; and its queries
are picked from the combination table's example queries. None of them reaches the student: the training
pairs are built from the student's own state text, recorded next to the teacher's.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Literal

from pydantic import Field

from agentkgv.config import ResolvedRun, RunConfig
from agentkgv.core.runner import Bar, no_bar, run_verifier
from agentkgv.core.verdict import Verifier
from agentkgv.data.hard_negatives import round_robin
from agentkgv.data.records import Example
from agentkgv.data.settings import Settings
from agentkgv.eval.metrics import score
from agentkgv.eval.subsets import hard_negative_pairs
from agentkgv.llm.base import LLM
from agentkgv.llm_agent.config import AgentConfig, TeacherAids
from agentkgv.registry import build_verifier
from agentkgv.retrieval.base import Retriever
from agentkgv.train.privileged import PrivilegedTeacher, privileges

TeacherPolicy = Literal["privileged", "llm"]
INFO_FILE = "teacher.json"


class TeacherConfig(Settings):
    triples: int = Field(480, ge=2, description="training triples, half positives, half their hard negatives")
    samples: int = Field(1, ge=1, description="trajectories per triple, each with its own seed")
    temperature: float = Field(0.5, ge=0)
    seed: int = 13
    gold_hint: bool = True
    min_searches: int = Field(1, ge=0)
    table_queries: bool = True
    # A small teacher that has not settled in three searches seldom will; T stays the student's, so the
    # states it records say "Turn t of T" as the student's will.
    max_searches: int = Field(3, ge=1)


def every_turn_taught(agent: AgentConfig) -> AgentConfig:
    """The agent settings with the rules that take turns without a model off, for any teacher: it judges every
    state, so its data has the unfounded judgments and the rewrites before them, and writes the first turn,
    so a student that routes learns it."""
    return agent.model_copy(update={"rules": tuple(r for r in agent.rules if r == "ground_true")})


def teacher_agent_config(agent: AgentConfig, teacher: TeacherConfig, sample: int) -> AgentConfig:
    """The student's agent settings with the LLM teacher's prompt, aids and sampling seed for one sample."""
    return every_turn_taught(agent).model_copy(update={
        "teacher": TeacherAids(gold_hint=teacher.gold_hint, min_searches=teacher.min_searches,
                               table_queries=teacher.table_queries),
        "max_searches": teacher.max_searches,
        "temperature": teacher.temperature, "seed": teacher.seed + sample})


def training_draw(examples: list[Example], count: int, seed: int) -> list[Example]:
    """`count` training triples as (positive, its hard negative) pairs, drawn round-robin over predicates.

    Round-robin keeps the rare long-tail predicates (at most 10 training triples each) in the draw next to
    the head ones; pairs keep it balanced. Within a predicate, pairs whose negative is a co-mention negative
    come first: they are the few that need reading (agentkgv.data.co_mention), so a draw of a few thousand
    holds nearly all of them. Only the train split is accepted.
    """
    wrong = next((e for e in examples if e.split != "train"), None)
    if wrong is not None:
        raise ValueError(f"teacher data must come from the train split; {wrong.id} is from {wrong.split}")
    by_predicate: dict[str, list[tuple[Example, Example]]] = defaultdict(list)
    for positive, negative in hard_negative_pairs(examples):
        by_predicate[positive.triple.predicate_id or positive.triple.predicate].append((positive, negative))
    rng = random.Random(seed)
    queues = []
    for predicate in sorted(by_predicate):
        pairs = by_predicate[predicate][:]
        rng.shuffle(pairs)
        # Stable sort, popped from the end: co-mention pairs last in the list, so first out.
        pairs.sort(key=lambda pair: pair[1].extra.get("negative") == "co_mention")
        queues.append(pairs)
    return [example for pair in round_robin(queues, count // 2) for example in pair]


def teacher_log(run_dir: Path, sample: int) -> Path:
    return run_dir / f"teacher.s{sample}.jsonl"


def teacher_logs(run_dir: Path) -> list[tuple[int, Path]]:
    """(sample, log) of each sample a teacher run has logged, by the sample count its info file records."""
    info = run_dir / INFO_FILE
    samples = json.loads(info.read_text())["teacher"]["samples"] if info.exists() else 0
    return [(s, teacher_log(run_dir, s)) for s in range(samples) if teacher_log(run_dir, s).exists()]


def teacher_policy(run_dir: Path) -> TeacherPolicy:
    """The policy that wrote a run's trajectories; runs written before the privileged teacher existed came
    from the LLM teacher."""
    info = run_dir / INFO_FILE
    return json.loads(info.read_text()).get("policy", "llm") if info.exists() else "llm"


def teacher_verifier(run: RunConfig, plan: TeacherConfig, policy: TeacherPolicy, sample: int, train: list[Example],
                     retriever: Retriever, paraphrases: dict[str, list[str]], llm: LLM | None) -> Verifier:
    """The run's agent, acting through the teacher: the privileged policy inside the student's loop, or the
    LLM under the teacher's prompt, aids and per-sample seed."""
    if policy == "privileged":
        a = run.agent
        teacher = PrivilegedTeacher(privileges(train), plan.max_searches, a.reasoning_chars, a.max_cited,
                                    a.max_passage_words)
        return build_verifier(ResolvedRun(run.model_copy(update={"agent": every_turn_taught(a)})), retriever,
                              paraphrases, policy=teacher)
    sampled = run.model_copy(update={"agent": teacher_agent_config(run.agent, plan, sample)})
    return build_verifier(ResolvedRun(sampled), retriever, paraphrases, llm)


@dataclass(frozen=True)
class TeacherSample:
    sample: int
    triples: int
    correct: float
    macro_f1: float
    searches: float

    HEADERS: ClassVar = ("Sample", "Triples", "Correct", "Macro-F1", "Searches")

    def cells(self) -> list[str]:
        return [str(self.sample), str(self.triples), f"{self.correct:.3f}", f"{self.macro_f1:.3f}",
                f"{self.searches:.2f}"]


def run_teacher(run: RunConfig, plan: TeacherConfig, policy: TeacherPolicy, train: list[Example],
                retriever: Retriever, paraphrases: dict[str, list[str]], llm: LLM | None, run_dir: Path,
                batch_size: int = 16, bar: Bar = no_bar) -> list[TeacherSample]:
    """Every sample of the plan's training draw through the teacher, logged under run_dir (resumable)."""
    if policy not in ("privileged", "llm"):
        raise ValueError(f"the teacher policy must be 'privileged' or 'llm', not {policy!r}")
    if policy == "privileged":
        plan = plan.model_copy(update={"samples": 1})  # it is deterministic: a second sample repeats the first
    examples = training_draw(train, plan.triples, plan.seed)
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / INFO_FILE).write_text(json.dumps({"policy": policy, "teacher": plan.model_dump(),
                                                 "run": run.model_dump(mode="json")}, indent=2))
    results = []
    for sample in range(plan.samples):
        agent = teacher_verifier(run, plan, policy, sample, train, retriever, paraphrases, llm)
        items = [e.as_labeled() for e in examples]  # each sample logs to its own file, so ids stay the triples'
        with bar(f"teacher sample {sample}", len(items)) as advance:
            verdicts = run_verifier(agent, items, teacher_log(run_dir, sample), batch_size, advance)
        n = len(verdicts)
        results.append(TeacherSample(sample, n, sum(v.correct for v in verdicts) / n,
                                     score([v.gold for v in verdicts], [v.verdict for v in verdicts]).macro_f1,
                                     sum(v.search_calls for v in verdicts) / n))
    return results
