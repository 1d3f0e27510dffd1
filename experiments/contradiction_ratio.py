"""How much a contradiction and a silence say, fitted on training triples the readers never saw (BENCHMARKS.md,
*Not stated*): the evidence-withheld test on the held-out training draw the calibration was fitted on (2,000
triples, half of them with their gold passages taken out of the corpus), read with absence unknown.
- Among the triples no passage supported, P(contradicted | true) / P(contradicted | false) for each judge, and
  the contradictions by relation (how many hit a true triple); apart, the same among the triples of relations with
  several values, where another value stated speaks against the object (`Calibration.several_ratio`, pooled over
  the judges).
- The share of true and false triples left with nothing supporting or contradicting them, in the half whose
  evidence was withheld and in the other, by whether a passage naming the subject was read
  (`Calibration.silence`).
With --write, all three go into each shipped reader's calibration.json, which a run with absence unknown reads.

python experiments/contradiction_ratio.py [--write] [--run-name NAME]   (4 minutes on 2 cores, index included)
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path


def main() -> None:
    from agentkgv.core.verdict import Finding
    from agentkgv.reader_agent.calibration import Calibration
    from agentkgv.reader_agent.reader_folder import SHIPPED_GLOSS_READER, SHIPPED_READER, ReaderFolder, shipped_reader_dir
    from agentkgv.reader_agent.trace import by_rare_reader
    from agentkgv.config import RunConfig
    from agentkgv.commands.bench import HELD_OUT_TRAIN, HELD_OUT_TRIPLES, bench_withheld
    from agentkgv.commands.build import relation_facts
    from agentkgv.reader_agent.claims import Claim
    from agentkgv.reader_agent.contradiction import takes_several
    from agentkgv.core.runner import load_run
    from agentkgv.eval.withheld import halves
    from agentkgv.paths import Workspace
    from agentkgv.train.calibrate import fit_contradiction_ratio, fit_silence
    from agentkgv.commands.train_reader import held_out_training_examples, reader_held_out_share

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--run-name", default="contradiction-ratio")
    parser.add_argument("--write", action="store_true", help="write the fitted ratios into the shipped readers")
    args = parser.parse_args()
    ws = Workspace(args.data)
    for row in bench_withheld(ws, RunConfig(), [HELD_OUT_TRAIN], ["unknown"], args.run_name):
        print(" | ".join(row.cells()))
    verdicts = list(load_run(ws.runs / args.run_name / f"{HELD_OUT_TRAIN}-unknown.jsonl").values())
    by_relation = Counter((v.triple.predicate, bool(v.gold)) for v in verdicts if v.outcome == Finding.CONTRADICTED.value)
    print("contradictions by relation (false triples, true triples):")
    for relation in sorted({r for r, _ in by_relation}, key=lambda r: -by_relation[(r, False)] - by_relation[(r, True)]):
        print(f"  {relation}: {by_relation[(relation, False)]}, {by_relation[(relation, True)]}")
    relations = relation_facts(ws, RunConfig())
    several = [v for v in verdicts if takes_several(Claim.of(v.triple), relations)]
    several_ratio = fit_contradiction_ratio(several)
    excluding = [v for v in verdicts if not takes_several(Claim.of(v.triple), relations)]
    print(f"several values: {len(several)} triples of relations with several values, "
          f"{sum(v.outcome == Finding.CONTRADICTED.value for v in several)} with another value stated, "
          f"ratio {several_ratio}")
    pooled = fit_contradiction_ratio(excluding)
    part = halves(held_out_training_examples(ws, reader_held_out_share(ReaderFolder.shipped()), HELD_OUT_TRIPLES))
    withheld = {e.id for e in part.withheld}
    silence = fit_silence([v for v in verdicts if v.id in withheld], [v for v in verdicts if v.id not in withheld])
    print("silence (true lacking, true holding, false lacking, false holding): no passage naming the subject "
          f"read {silence[0]}, one read {silence[1]}")
    for name, rare in ((SHIPPED_READER, False), (SHIPPED_GLOSS_READER, True)):
        judged = [v for v in excluding if by_rare_reader(v) == rare]
        contradicted = sum(v.outcome == Finding.CONTRADICTED.value for v in judged)
        # A judge with few contradictions of its own takes the pooled ratio.
        ratio = fit_contradiction_ratio(judged) if contradicted >= 20 else pooled
        print(f"{name}: {len(judged)} triples, {contradicted} contradicted, ratio {ratio} (pooled {pooled})")
        if args.write and ratio is not None:
            folder = shipped_reader_dir(name)
            Calibration.model_validate({**Calibration.read(folder).model_dump(), "contradiction_ratio": ratio,
                                        "several_ratio": several_ratio, "silence": silence}).save(folder)


if __name__ == "__main__":
    main()
