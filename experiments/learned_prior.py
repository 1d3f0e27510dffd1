"""What reviews buy the confidence of "not enough evidence" on a user's documents (BENCHMARKS.md, *Not stated*):
k-fold over a logged run with absence unknown (the evidence-withheld test's, or the shaped graph's), the prior
`agentkgv learn` fits from N reviewed triples of the other folds (`train.learn.learned_prior`), and each fold's
P(true) of its silent and contradicted triples recomputed under that prior; the calibration error before and
after, the mean over folds and seeds. No triple is scored with its own review.

python experiments/learned_prior.py LOG [--reviews 50 --reviews 100] [--folds 4] [--seeds 5]   (seconds)
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from statistics import fmean


def main() -> None:
    from agentkgv.reader_agent.absence import DEFAULT_COVERAGE, DEFAULT_PRIOR, AbsenceIsUnknown
    from agentkgv.core.verdict import Finding
    from agentkgv.reader_agent.calibration import Calibration
    from agentkgv.reader_agent.reader_folder import SHIPPED_GLOSS_READER, SHIPPED_READER, shipped_reader_dir
    from agentkgv.reader_agent.trace import by_rare_reader, reading_of
    from agentkgv.eval.metrics import expected_calibration_error
    from agentkgv.core.runner import load_run, settings_path
    from agentkgv.train.learn import learned_prior

    parser = argparse.ArgumentParser()
    parser.add_argument("log", type=Path)
    parser.add_argument("--reviews", type=int, action="append")
    parser.add_argument("--folds", type=int, default=4)
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    prior = json.loads(settings_path(args.log).read_text())["reading"].get("prior") or DEFAULT_PRIOR
    verdicts = [v for v in load_run(args.log).values() if v.p_true is not None and v.gold is not None]
    calibrations = {rare: Calibration.read(shipped_reader_dir(SHIPPED_GLOSS_READER if rare else SHIPPED_READER))
                    for rare in (False, True)}
    absence = AbsenceIsUnknown(DEFAULT_COVERAGE)

    def silent(verdict) -> bool:
        return (verdict.outcome == Finding.NOT_ENOUGH_EVIDENCE.value and reading_of(verdict) is not None
                and verdict.verdict is None)

    def p_true(verdict, prior: float) -> float:
        calibration = calibrations[by_rare_reader(verdict)]
        if silent(verdict):
            return absence.unsupported(calibration, reading_of(verdict), prior)[1]
        if verdict.outcome == Finding.CONTRADICTED.value and calibration.contradiction_ratio is not None:
            # The fitted ratio is what moves it; the other value's P(true) is read only where none is fitted.
            return absence.contradicted(calibration, reading_of(verdict), 0.0, prior)
        return verdict.p_true

    drift = max(abs(p_true(v, prior) - v.p_true) for v in verdicts)  # the logged P(true), recomputed
    print(f"{args.log}: {len(verdicts)} triples with P(true), {sum(v.gold for v in verdicts)} true, prior {prior}; "
          f"logged P(true) recomputed within {drift:.4f}")
    print("| reviews | folds x seeds | learned prior (mean, range) | ECE before | ECE after | ECE after, share true "
          "by group |")
    print("|---|---|---|---|---|---|")
    for reviews in args.reviews or [50, 100]:
        before, after, grouped, priors = [], [], [], []
        for seed in range(args.seeds):
            order = list(verdicts)
            random.Random(seed).shuffle(order)
            for k in range(args.folds):
                scored = order[k::args.folds]
                pool = [v for i, v in enumerate(order) if i % args.folds != k]
                reviewed = random.Random(1000 * seed + k).sample(pool, min(reviews, len(pool)))
                current = calibrations[False].model_copy(update={"prior": prior})
                learned = learned_prior(reviewed, [v.gold for v in reviewed], current) or prior
                priors.append(learned)
                gold = [v.gold for v in scored]
                before.append(expected_calibration_error([v.p_true for v in scored], gold))
                after.append(expected_calibration_error([p_true(v, learned) for v in scored], gold))
                # The alternative: the share true among reviewed silent triples, apart for those whose subject's
                # passages were read and those whose were not (one true and one false pseudo-review each).
                share = {}
                for read in (False, True):
                    group = [v.gold for v in reviewed if silent(v) and reading_of(v).named_subject == read]
                    share[read] = (sum(group) + 1) / (len(group) + 2)
                grouped.append(expected_calibration_error(
                    [share[reading_of(v).named_subject] if silent(v) else v.p_true for v in scored], gold))
        print(f"| {reviews} | {args.folds} x {args.seeds} | {fmean(priors):.2f} ({min(priors):.2f}-{max(priors):.2f}) | "
              f"{fmean(before):.3f} | {fmean(after):.3f} | {fmean(grouped):.3f} |")


if __name__ == "__main__":
    main()
