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

import random
from collections import defaultdict

from pydantic import BaseModel, Field

from agentkgv.agent.agentkgv import AgentConfig
from agentkgv.data.records import Example, LabeledTriple
from agentkgv.eval.subsets import hard_negative_pairs


class TeacherConfig(BaseModel):
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


def teacher_agent_config(agent: AgentConfig, teacher: TeacherConfig, sample: int) -> AgentConfig:
    """The student's agent settings with the teacher's prompt, aids and sampling seed for one sample."""
    return agent.model_copy(update={"teacher_prompt": True, "gold_hint": teacher.gold_hint,
                                    "min_searches": teacher.min_searches, "table_queries": teacher.table_queries,
                                    "max_searches": teacher.max_searches,
                                    "temperature": teacher.temperature,
                                    "seed": teacher.seed + sample})


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
    chosen: list[Example] = []
    while len(chosen) + 2 <= count and any(queues):
        for queue in queues:
            if queue and len(chosen) + 2 <= count:
                chosen += queue.pop()
    return chosen


def sample_items(examples: list[Example], sample: int) -> list[LabeledTriple]:
    """The triples of one teacher sample, with ids that keep samples of the same triple apart."""
    return [LabeledTriple(f"{e.id}#s{sample}", e.triple, e.label, source=f"benchmark:{e.split}") for e in examples]


def triple_id(sample_id: str) -> str:
    return sample_id.split("#s")[0]
