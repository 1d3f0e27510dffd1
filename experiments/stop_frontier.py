"""Which triples the searches after the first decide on the test splits, and which of them a stop policy
keeps (BENCHMARKS.md, *The search policy*: "The same bound on the test splits"). Measured, never used to
choose a policy or α.

python experiments/stop_frontier.py [RULE ONE POLICY]   (seconds; the runs default to `routed`, `one-search`
    and `routed-grpo6`: the default with the rule, with `max_searches = 1`, and with the stop policies)
python experiments/stop_frontier.py --episodes [RUN ...]   (the same question on held-out training episodes of
    `train-search-policy` runs, by the reader they were read with; default `search-policy search-policy-gloss`)

For each T-REx split: the triples whose verdict differs between the rule and one search ("decided later"),
how many the later searches set right, the P(true) band they lie in after the first search, how many
unsettled triples share that band, how many the policy searches again on, and which of the decided-later
triples end with the rule's verdict under the policy. With `--episodes`: of the held-out training triples the
rule's later searches decide, how many had read no passage naming the subject after the first search.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

RUNS = Path(".cache/runs")
TRAIN = Path(".cache/train")
CORPUS = Path(".cache/corpus/passages.jsonl")
SPLITS = ("test_long_tail", "test_unseen")


def records(run: str, split: str) -> dict[str, dict]:
    with open(RUNS / run / f"agentkgv.{split}.jsonl") as lines:
        return {record["id"]: record for record in map(json.loads, lines)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="*", default=[], metavar="RUN")
    parser.add_argument("--episodes", action="store_true")
    args = parser.parse_args()
    if args.episodes:
        return episodes(args.runs or ["search-policy", "search-policy-gloss"])
    rule_run, one_run, policy_run = args.runs or ["routed", "one-search", "routed-grpo6"]
    for split in SPLITS:
        rule, one, policy = (records(run, split) for run in (rule_run, one_run, policy_run))
        later = [k for k in rule if rule[k]["verdict"] != one[k]["verdict"]]
        if not later:
            print(f"{split}: the later searches decide no verdict")
            continue
        right = [k for k in later if rule[k]["verdict"] == rule[k]["gold"]]
        wrong = [k for k in later if k not in right]
        low, high = min(one[k]["p_true"] for k in later), max(one[k]["p_true"] for k in later)
        band = [r for r in one.values() if not r["verdict"] and low <= r["p_true"] <= high]
        again = sum(r["search_calls"] > 1 for r in policy.values())
        kept = lambda keys: sum(policy[k]["verdict"] == rule[k]["verdict"] for k in keys)  # noqa: E731
        first = _first_search_texts(one, later)
        names = lambda k, side: sum(one[k]["triple"][side].lower() in t.lower() for t in first[k])  # noqa: E731
        about = sum(names(k, "subject") == 0 and names(k, "object") >= 2 for k in right)
        print(f"{split}: {len(later)} decided after the first search ({len(right)} rightly), "
              f"{sum(not one[k]['trace']['evidence']['named_both'] for k in later)} of them with no passage naming both then; "
              f"P(true) after one search {low:.3f}-{high:.3f}, a band of {len(band)} unsettled triples; "
              f"{policy_run} searches again on {again} and keeps {kept(right)} of {len(right)} set right, "
              f"{kept(wrong)} of {len(wrong)} set wrong; of those set right, {about} had a first search whose five "
              "passages name the object (two or more) and none the subject (its exact name)")


def _first_search_texts(run: dict[str, dict], ids: list[str]) -> dict[str, list[str]]:
    wanted = {k: run[k]["trace"]["steps"][0]["retrieved"] for k in ids}
    texts: dict[str, str] = {}
    needed = {p for passages in wanted.values() for p in passages}
    with open(CORPUS) as lines:
        for passage in map(json.loads, lines):
            if passage["id"] in needed:
                texts[passage["id"]] = passage["text"]
    return {k: [texts[p] for p in passages] for k, passages in wanted.items()}


def episodes(runs: list[str]) -> None:
    from collections import Counter

    from agentkgv.reader_agent.calibration import Outcome
    from agentkgv.reader_agent.reader_folder import SHIPPED_GLOSS_READER, ReaderFolder
    from agentkgv.train.search_policy import read_episodes

    shipped = (ReaderFolder.shipped(), ReaderFolder.shipped(SHIPPED_GLOSS_READER))
    for run in runs:
        record = json.loads((TRAIN / run / "stop_policy.json").read_text())
        folder = next((f for f in shipped if f.support_fingerprint == record["reader"]), None)
        if folder is None:
            raise SystemExit(f"{run}: its policy was trained for reader {record['reader']}, neither shipped reader")
        calibration = folder.calibrated
        tally: Counter = Counter()
        for episode in read_episodes(TRAIN / run / "episodes.jsonl"):
            true = [calibration.outcome(calibration.probability(h)) is Outcome.TRUE for h in episode.history]
            if not true[0]:
                later = any(true[1:])
                tally[(episode.history[0].named_subject, later, later == episode.gold)] += 1
        for subject in (False, True):
            decided = tally[(subject, True, True)] + tally[(subject, True, False)]
            unsettled = decided + tally[(subject, False, True)] + tally[(subject, False, False)]
            print(f"{run} ({folder.path.name}): subject {'named' if subject else 'not named'} after the first search: "
                  f"{unsettled} unsettled, {decided} decided later ({tally[(subject, True, True)]} rightly)")


if __name__ == "__main__":
    main()
