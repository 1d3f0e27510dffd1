"""The search penalty swept (BENCHMARKS.md, *The search policy*): stage 1 + GRPO trained at several alpha, with
advantages divided by the group's std (GRPO as published) and centered only (the default), on the cached
episodes of a `train-search-policy` run, each scored on the run's held-out fifth (never trained on). Then
what any stop policy could save: the settled rule with a floor (stop also once P(true) falls below it), on
every episode, the floor 0 being the rule itself and 1 one search always.

python experiments/search_policy_alpha.py [--run search-policy] [--reader FOLDER] [--alpha 0 0.01 0.02 0.03 0.035 0.04 0.05]
                                          [--floor 0 0.05 0.1 0.2 0.5 1] [--seed 13 ...] [--centered-only]
                                          [--group-size 8] [--triples-per-step 64] [--beta 0.001 0.02]

Several seeds show how far one training run's outcome can be from another's at the same alpha: the seed draws
the held-out fifth, the batches and the rollouts, so each seed is a whole run of the recipe. Each run also
says, over all the episodes, on how many the trained policy searches again and on how many of those it reads
to the budget.
"""

from __future__ import annotations

import argparse
import itertools
import json
import tempfile
from pathlib import Path


def main() -> None:
    from agentkgv.reader_agent.reader_folder import ReaderFolder
    from agentkgv.reader_agent.stopping import LearnedStop, SearchState
    from agentkgv.eval.metrics import score
    from agentkgv.train.search_policy import SearchPolicySettings, read_episodes, train_search_policy

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", default="search-policy")
    parser.add_argument("--reader", type=Path, default=None, help="the reader the episodes were read with")
    parser.add_argument("--alpha", type=float, nargs="+", default=[0.0, 0.01, 0.02, 0.03, 0.035, 0.04, 0.05])
    parser.add_argument("--floor", type=float, nargs="*", default=[0.0, 0.05, 0.1, 0.2, 0.5, 1.0])
    parser.add_argument("--seed", type=int, nargs="+", default=[13])
    parser.add_argument("--centered-only", action="store_true", help="skip the std-scaled runs")
    parser.add_argument("--group-size", type=int, default=None, help="rollouts per episode (default: the recipe's)")
    parser.add_argument("--triples-per-step", type=int, default=None, help="episodes per step (default: the recipe's)")
    parser.add_argument("--beta", type=float, nargs="+", default=[None], help="KL coefficients (default: the recipe's)")
    args = parser.parse_args()
    calibration = (ReaderFolder.open(args.reader) if args.reader else ReaderFolder.shipped()).calibrated
    episodes = read_episodes(Path(".cache/train") / args.run / "episodes.jsonl")
    sizes = {k: v for k, v in (("group_size", args.group_size), ("triples_per_step", args.triples_per_step)) if v}
    for scale in (False,) if args.centered_only else (True, False):
        for alpha, beta, seed in itertools.product(args.alpha, args.beta, args.seed):
            kl = {"beta": beta} if beta is not None else {}
            with tempfile.TemporaryDirectory() as folder:
                record = train_search_policy(episodes, calibration, Path(folder),
                                             SearchPolicySettings(alpha=alpha, scale_rewards=scale, seed=seed,
                                                                  **sizes, **kl))
                policy = LearnedStop.read(Path(folder) / "stop_policy.json")
            print(f"alpha {alpha},{f' beta {beta},' if kl else ''} {'scaled' if scale else 'centered'}, seed {seed}:",
                  json.dumps(record["held_out"]["stage 1 + GRPO"]), by_source(record, "stage 1 + GRPO"),
                  again_and_budget(policy, episodes, calibration),
                  *(["(settled rule on this seed's held-out fifth:", json.dumps(record["held_out"]["settled rule"]) + ")"]
                    if len(args.seed) > 1 else []))
    if len(args.seed) == 1:  # with several seeds each line above gives the rule on its own held-out fifth
        print("settled rule:", json.dumps(record["held_out"]["settled rule"]), by_source(record, "settled rule"))
    for floor in args.floor:
        verdicts, searches = [], 0
        for episode in episodes:
            for made, evidence in enumerate(episode.history, 1):
                state = SearchState.of(calibration, evidence, made, episode.budget)
                if state.settled or state.p_true < floor:
                    break
            verdicts.append(state.settled)
            searches += made
        f1 = score([e.gold for e in episodes], verdicts).macro_f1
        print(f"settled rule, floor {floor}: macro-F1 {f1:.4f}, {searches / len(episodes):.2f} searches "
              f"({len(episodes)} episodes)")


def again_and_budget(policy, episodes, calibration) -> str:
    from agentkgv.train.search_policy import searches_made

    made = [searches_made(policy, e, calibration) for e in episodes]
    return (f"(searches again on {sum(m > 1 for m in made)} of {len(made)}, "
            f"{sum(m > 1 and m == len(e.history) for m, e in zip(made, episodes))} of them to the budget)")


def by_source(record: dict, policy: str) -> str:
    """The policy's held-out figures per kind of episode, where the run read more than one kind."""
    sources = record["held_out_by_source"]
    return "" if len(sources) < 2 else "; ".join(f"{source}: {json.dumps(figures[policy])}"
                                                for source, figures in sources.items())


if __name__ == "__main__":
    main()
