"""What every measurement file here does from the command line: list its measurements, or run one by number
(`python experiments/<file>.py N ARGS...`, the measurement reading ARGS as its own `sys.argv[1:]`)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence


def run_menu(measurements: Sequence[Callable[[], None]]) -> None:
    if len(sys.argv) < 2:
        for n, measure in enumerate(measurements, 1):
            print(n, (measure.__doc__ or "").split(". ")[0])
        return
    measurements[int(sys.argv.pop(1)) - 1]()
