"""The search penalty swept (BENCHMARKS.md, *The search policy*): stage 1 + GRPO trained at several alpha on the
cached episodes of a `train-search-policy` run, each scored on the run's held-out fifth (never trained on).

python experiments/search_policy_alpha.py [--run search-policy] [--reader FOLDER] [--alpha 0 0.005 0.01 0.02 0.05]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path


def main() -> None:
    from agentkgv.agent.calibration import Calibration, Evidence
    from agentkgv.agent.reader import reader_folder
    from agentkgv.data.jsonl import read_jsonl
    from agentkgv.train.search_policy import Episode, SearchPolicySettings, train_search_policy

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", default="search-policy")
    parser.add_argument("--reader", type=Path, default=None, help="the reader the episodes were read with")
    parser.add_argument("--alpha", type=float, nargs="*", default=[0.0, 0.005, 0.01, 0.02, 0.05])
    args = parser.parse_args()
    calibration = Calibration.read(reader_folder(args.reader))
    episodes = [Episode(tuple(Evidence(**h) for h in r["history"]), r["gold"], r["budget"])
                for _, r in read_jsonl(Path(".cache/train") / args.run / "episodes.jsonl")]
    for alpha in args.alpha:
        with tempfile.TemporaryDirectory() as folder:
            record = train_search_policy(episodes, calibration, Path(folder), SearchPolicySettings(alpha=alpha))
        print(f"alpha {alpha}:", json.dumps(record["held_out"]))


if __name__ == "__main__":
    main()
