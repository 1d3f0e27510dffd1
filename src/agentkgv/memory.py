"""The process's peak memory, reported by index builds and training runs."""

from __future__ import annotations

import resource


def peak_memory_gib() -> float:
    """Peak resident memory of this process so far, in GiB (ru_maxrss is in KiB on Linux)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2)
