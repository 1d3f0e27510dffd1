"""Which triples the searches after the first decide on the test splits, and which of them a stop policy
keeps (BENCHMARKS.md, *The search policy*: "The same bound on the test splits"). Measured, never used to
choose a policy or α.

python experiments/stop_frontier.py [RULE ONE POLICY]   (seconds; the runs default to `routed`, `one-search`
    and `routed-grpo4`: the default with the rule, with `max_searches = 1`, and with the stop policies)

For each T-REx split: the triples whose verdict differs between the rule and one search ("decided later"),
how many the later searches set right, the P(true) band they lie in after the first search, how many
unsettled triples share that band, how many the policy searches again on, and which of the decided-later
triples end with the rule's verdict under the policy.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

RUNS = Path(".cache/runs")
SPLITS = ("test_long_tail", "test_unseen")


def records(run: str, split: str) -> dict[str, dict]:
    with open(RUNS / run / f"agentkgv.{split}.jsonl") as lines:
        return {record["id"]: record for record in map(json.loads, lines)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="*", default=["routed", "one-search", "routed-grpo4"], metavar="RUN")
    rule_run, one_run, policy_run = parser.parse_args().runs
    for split in SPLITS:
        rule, one, policy = (records(run, split) for run in (rule_run, one_run, policy_run))
        later = [k for k in rule if rule[k]["verdict"] != one[k]["verdict"]]
        right = [k for k in later if rule[k]["verdict"] == rule[k]["gold"]]
        wrong = [k for k in later if k not in right]
        low, high = min(one[k]["p_true"] for k in later), max(one[k]["p_true"] for k in later)
        band = [r for r in one.values() if not r["verdict"] and low <= r["p_true"] <= high]
        again = sum(r["search_calls"] > 1 for r in policy.values())
        kept = lambda keys: sum(policy[k]["verdict"] == rule[k]["verdict"] for k in keys)  # noqa: E731
        print(f"{split}: {len(later)} decided after the first search ({len(right)} rightly), "
              f"{sum(not one[k]['reading']['named_both'] for k in later)} of them with no passage naming both then; "
              f"P(true) after one search {low:.3f}-{high:.3f}, a band of {len(band)} unsettled triples; "
              f"{policy_run} searches again on {again} and keeps {kept(right)} of {len(right)} set right, "
              f"{kept(wrong)} of {len(wrong)} set wrong")


if __name__ == "__main__":
    main()
