"""Triples per second of a verifier, one batch size at a time, after a warm-up call."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import ClassVar

from agentkgv.core.verdict import Verifier
from agentkgv.data.records import LabeledTriple


@dataclass(frozen=True)
class ThroughputRow:
    batch_size: int
    triples: int
    seconds: float
    prompt_tokens: float  # per triple, as are the two below
    completion_tokens: float
    searches: float

    HEADERS: ClassVar = ("Batch", "Triples", "Triples/s", "s/triple", "Prompt tok", "Compl. tok", "Searches")

    def cells(self) -> list[str]:
        return [str(self.batch_size), str(self.triples), f"{self.triples / self.seconds:.3f}",
                f"{self.seconds / self.triples:.2f}", f"{self.prompt_tokens:.0f}", f"{self.completion_tokens:.0f}",
                f"{self.searches:.2f}"]


def measure_throughput(verifier: Verifier, items: list[LabeledTriple], batch_sizes: list[int],
                       parallel: int = 1) -> list[ThroughputRow]:
    """Each batch size over all `items`. Meant for an uncached LLM, so every call is real. A verifier that
    runs `parallel` batches at once (Ray actors) gets that many per call."""
    # Warm-up, a triple per worker: first-call compilation and allocation are not throughput.
    verifier.verify(items[:parallel])
    rows = []
    for size in batch_sizes:
        step = size * parallel
        started = time.perf_counter()
        verdicts = [v for offset in range(0, len(items), step) for v in verifier.verify(items[offset:offset + step])]
        elapsed = time.perf_counter() - started
        n = len(verdicts)
        rows.append(ThroughputRow(size, n, elapsed, sum(v.prompt_tokens for v in verdicts) / n,
                                  sum(v.completion_tokens for v in verdicts) / n,
                                  sum(v.search_calls for v in verdicts) / n))
    return rows
