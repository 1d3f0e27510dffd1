"""Verification on a local Ray cluster: the same log as a local run, resumable across both, and a worker
killed mid-run loses and duplicates nothing."""

from __future__ import annotations

import json
import os
import signal
from itertools import islice

import pytest
import ray

from agentkgv.config import ResolvedRun, RunConfig
from agentkgv.registry import RunSpec, build_verifier
from agentkgv.data.lama import iter_evidence_facts
from agentkgv.data.records import LabeledTriple, Triple
from agentkgv.core.ray_runner import RayOptions, RayVerifier
from agentkgv.core.runner import load_run, run_verifier
from agentkgv.retrieval.bm25 import BM25Retriever
from agentkgv.retrieval.factory import load_retriever


@pytest.fixture(scope="module")
def local_ray():
    # One small instance for the module: starting Ray costs seconds, and the machine is shared.
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def lexical_spec(small_passages, tmp_path_factory) -> RunSpec:
    root = tmp_path_factory.mktemp("index")
    BM25Retriever.build(small_passages, root / "bm25")
    return RunSpec(run=RunConfig(method="lexical"), index_root=root, paraphrases={})


@pytest.fixture(scope="module")
def items(data) -> list[LabeledTriple]:
    """True facts, and the same subjects with another fact's object."""
    facts = [fact.triple for fact in islice(iter_evidence_facts(data, "P19", "place of birth"), 13)]
    positives = [LabeledTriple(f"pos{i}", t, True) for i, t in enumerate(facts[:12])]
    negatives = [LabeledTriple(f"neg{i}", Triple(t.subject, t.predicate, facts[i + 1].object), False)
                 for i, t in enumerate(facts[:12])]
    return positives + negatives


def _outcomes(log) -> dict[str, tuple]:
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(lines) == len({r["id"] for r in lines}), "a triple was written twice"
    return {r["id"]: (r["verdict"], [e["id"] for e in r["evidence"]]) for r in lines}


@pytest.fixture(scope="module")
def local_outcomes(lexical_spec, items, tmp_path_factory) -> dict[str, tuple]:
    spec = lexical_spec
    verifier = build_verifier(ResolvedRun(spec.run), load_retriever(spec.run.retriever, spec.index_root), spec.paraphrases)
    log = tmp_path_factory.mktemp("local") / "run.jsonl"
    run_verifier(verifier, items, log, batch_size=5)
    return _outcomes(log)


def test_ray_run_writes_the_local_runs_log_and_resumes_it(local_ray, lexical_spec, items, local_outcomes, tmp_path):
    log = tmp_path / "run.jsonl"
    local = build_verifier(ResolvedRun(lexical_spec.run), load_retriever(lexical_spec.run.retriever,
                                                                         lexical_spec.index_root), {})
    run_verifier(local, items[:10], log, batch_size=5)  # a local run stopped part way
    with RayVerifier(lexical_spec, RayOptions(workers=2)) as verifier:
        assert verifier.name == "lexical" and verifier.llm_name is None
        verdicts = run_verifier(verifier, items, log, batch_size=6)
    assert [v.id for v in verdicts] == [i.id for i in items]
    assert _outcomes(log) == local_outcomes
    assert sum(v.verdict is True for v in verdicts) > 0 and sum(v.verdict is False for v in verdicts) > 0


def test_worker_killed_mid_run_loses_and_duplicates_nothing(local_ray, lexical_spec, items, local_outcomes, tmp_path):
    log = tmp_path / "run.jsonl"
    # A real run's paraphrase table makes the spec too big to travel inside the actor's creation task: Ray
    # keeps it in its object store, where the restarted actor must still find it.
    spec = lexical_spec.model_copy(update={"paraphrases": {f"P{i}": ["a paraphrase"] * 20 for i in range(2000)}})
    with RayVerifier(spec, RayOptions(workers=2)) as verifier:
        victim = verifier.actors[0]
        pids = []

        def kill_after_first_round(done: int) -> None:
            if done and not pids:  # the first call reports what the log already held
                pids.append(ray.get(victim.__ray_call__.remote(lambda actor: os.getpid())))
                os.kill(pids[0], signal.SIGKILL)

        run_verifier(verifier, items, log, 4, kill_after_first_round)
        restarted = ray.get(victim.__ray_call__.remote(lambda actor: os.getpid()))
    assert pids and restarted != pids[0], "the actor was not killed and restarted"
    assert _outcomes(log) == local_outcomes
    assert len(load_run(log)) == len(items)
