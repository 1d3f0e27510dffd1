"""What the CPU can do, for the choices that depend on it (the LLM's dtype, a bf16-trained reader's reading)."""

from __future__ import annotations

from functools import cache
from pathlib import Path


@cache
def native_bf16() -> bool:
    """Whether the CPU multiplies bf16 in hardware (avx512_bf16 or AMX), where bf16 is ~3x faster than fp32.
    Elsewhere bf16 is emulated: on an AVX2-only EPYC its matmuls ran 9x slower than fp32."""
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags
