"""Per-triple verification spread over a pool of Ray actors, each holding its own model and retriever.

The driver stays the run log's only writer: `RayVerifier` is a `Verifier`, so `run_verifier`
(core/runner.py) writes its results with the same lock, pinned settings, fsync per batch and resume as a
local run, and a run started locally can be resumed on Ray and back. Each `verify` call is one round,
cut into one equal batch per actor; the batches run at once.

A killed actor loses nothing and duplicates nothing: Ray restarts the actor (`max_restarts`), which
loads its model again, and re-runs the call that was in flight on it (`max_task_retries`). A result
reaches the log only once its call has returned, so a call cut short by the kill writes nothing.
"""

from __future__ import annotations

import math
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from agentkgv.core.verdict import Verdict, Verifier
from agentkgv.data.records import LabeledTriple


class VerifierSpec(Protocol):
    """What an actor builds its verifier from: plain data the driver ships once (agentkgv.registry.RunSpec)."""

    def for_actor(self, cpus: float) -> VerifierSpec:
        """This spec as an actor with `cpus` CPUs, in another working folder, builds it."""
        ...

    def build(self) -> tuple[Verifier, str | None]:
        """The verifier and the loaded LLM's name, if it loads one."""
        ...


class RayOptions(BaseModel):
    """Where and how wide a Ray run is."""

    model_config = ConfigDict(extra="forbid")

    address: str | None = Field(None, description="a running cluster ('auto' or host:port); None starts a "
                                                   "local one for this run")
    workers: int = Field(2, ge=1, description="actors, each with its own model and retriever")
    cpus_per_worker: float = Field(1.0, gt=0)
    gpus_per_worker: float = Field(0.0, ge=0)


class VerifierActor:
    """Runs inside a Ray worker process; built from the spec there, never pickled with a loaded model."""

    def __init__(self, spec: list):  # [the ObjectRef of a VerifierSpec]; see RayVerifier
        import ray

        self.verifier, self.llm_name = ray.get(spec[0]).build()

    def describe(self) -> tuple[str, str | None]:
        return self.verifier.name, self.llm_name

    def verify(self, items: list[LabeledTriple]) -> list[Verdict]:
        return self.verifier.verify(items)


class RayVerifier:
    """A `Verifier` whose batches run on a pool of `VerifierActor`s. Use as a context manager: leaving it
    stops the actors, and the local Ray instance if this object started one."""

    def __init__(self, spec: VerifierSpec, options: RayOptions):
        import ray
        from ray.util import ActorPool

        self._ray = ray
        self._started_ray = not ray.is_initialized()
        if self._started_ray:
            # A local instance gets just the CPUs its actors ask for, so it never claims the whole machine.
            local = options.address is None
            ray.init(address=options.address, include_dashboard=False, log_to_driver=False,
                     num_cpus=math.ceil(options.workers * options.cpus_per_worker) if local else None,
                     num_gpus=math.ceil(options.workers * options.gpus_per_worker) if local else None)
        self.options = options
        remote = ray.remote(num_cpus=options.cpus_per_worker, num_gpus=options.gpus_per_worker,
                            max_restarts=-1, max_task_retries=-1)(VerifierActor)
        # Held for the pool's life: a restarted actor is built again from this object, and Ray frees an
        # argument it stored for the first creation once nothing refers to it (ray-project/ray#53727). It
        # goes in a list so Ray passes the reference itself, which the actor reads, rather than the value.
        self._spec = ray.put(spec.for_actor(options.cpus_per_worker))
        self.actors = [remote.remote([self._spec]) for _ in range(options.workers)]
        self._pool = ActorPool(self.actors)
        # Waits for every actor to load, so a bad model path or a missing index fails here, once.
        described = ray.get([actor.describe.remote() for actor in self.actors])
        self.name, self.llm_name = described[0]

    def verify(self, items: list[LabeledTriple]) -> list[Verdict]:
        size = max(1, math.ceil(len(items) / self.options.workers))
        chunks = [items[start:start + size] for start in range(0, len(items), size)]
        return [v for verdicts in self._pool.map(lambda actor, chunk: actor.verify.remote(chunk), chunks)
                for v in verdicts]

    def close(self) -> None:
        for actor in self.actors:
            self._ray.kill(actor)
        if self._started_ray:
            self._ray.shutdown()

    def __enter__(self) -> "RayVerifier":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
