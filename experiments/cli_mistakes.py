"""A user's mistakes at the command line, each run as the real command (the cases of tests/cli_cases.py, which
the test suite asserts): the exit code and the first line of the message, for BENCHMARKS.md (*Under attack and
failure*).

python experiments/cli_mistakes.py [--out FOLDER]   (about 30 seconds)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def main() -> None:
    sys.path.insert(0, str(Path(__file__).parents[1]))
    from tests.cli_cases import CASES, message, run_case, stage

    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=Path(".cache/experiments/cli-mistakes"))
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    args = parser.parse_args()
    if args.out.exists():
        raise SystemExit(f"{args.out} exists: remove it or give another --out")
    root = args.out.resolve()
    stage(root, args.data.resolve())
    print("| command | mistake | exit code | seconds | traceback | message (first line) |")
    print("|---|---|---|---|---|---|")
    for case in CASES:
        started = time.perf_counter()
        result = run_case(case, root, args.data.resolve())
        seconds = time.perf_counter() - started
        said = message(result).replace(str(root), "…").replace("|", "\\|")
        print(f"| {case.command} | {case.name} | {result.returncode} | {seconds:.1f} | "
              f"{'YES' if 'Traceback' in result.stderr + result.stdout else 'no'} | {said} |", flush=True)


if __name__ == "__main__":
    main()
