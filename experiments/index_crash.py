"""`agentkgv index` under failure (BENCHMARKS.md, *Under attack and failure*): updates SIGKILLed at 20 points
spread over their run, each followed by `verify --index` on what is left and a rerun; two and three `index` runs
on one index at once; and `verify` and `search` while an update builds a new generation.

The kill points: a BM25 index of 22 documents (2 of them in a distrusted folder) gets 3,000 more; 14 kills
are spread evenly over the uninterrupted update's time, 6 over that of the same update of a hybrid index
(BM25 plus a dense build with MiniLM). The phase each kill landed in is the last step the update announced.

python experiments/index_crash.py [--out FOLDER] [--part kills|writers|readers]   (about 10 minutes on 2 cores)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path


def main() -> None:
    sys.path.insert(0, str(Path(__file__).parents[1]))
    from tests.index_crash import Stage

    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=Path(".cache/experiments/index-crash"))
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--part", choices=["kills", "writers", "readers"], action="append",
                        help="Run only these parts (default: all three).")
    args = parser.parse_args()
    parts = set(args.part or ["kills", "writers", "readers"])
    if args.out.exists():
        raise SystemExit(f"{args.out} exists: remove it or give another --out")
    data, cache = args.data.resolve(), args.out / "cache"
    stage = Stage.make(args.out / "bm25", added=3000)
    small = Stage.make(args.out / "hybrid", added=300)
    if "kills" in parts:
        kills(stage, small, cache, data)
    if "writers" in parts:
        writers(args.out, cache, data)
    if "readers" in parts:
        readers(stage, args.out, cache, data)


def kills(stage, small, cache: Path, data: Path) -> None:
    from tests.index_crash import crash_point, update_seconds

    seconds = update_seconds(stage, cache, data)
    # (stage, kind, step announced or None for time from the start, seconds after it)
    points = [(stage, "bm25", None, seconds * share) for share in (0.2, 0.4, 0.6, 0.8)]
    points += [(stage, "bm25", step, delay) for step, delay in (
        ("reading", 0.0), ("reading", 0.3), ("writing passages", 0.0), ("building", 0.0), ("building", 0.2),
        ("building", 0.5), ("writing the manifest", 0.0), ("switching", 0.0))]
    points += [(small, "hybrid", step, delay) for step, delay in (
        ("reading", 0.0), ("writing passages", 0.0), ("building", 0.0), ("building", 1.0), ("building", 3.0),
        ("building", 6.0), ("writing the manifest", 0.0), ("switching", 0.0))]
    print(f"uninterrupted BM25 update: {seconds:.2f} s\n")
    print("| # | kind | killed | phase it was in | verify --index between | documents | lost | passages duplicated | "
          "trust marks lost | leftovers after rerun |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for point, (where, kind, step, delay) in enumerate(points, 1):
        r = crash_point(where, f"crash-{point}", cache, data, delay, kind, step)
        killed = f"{delay:.2f} s after start" if step is None else f"{delay:.1f} s after '{step}…'"
        print(f"| {point} | {kind} | {killed} | {r.phase} | {'yes' if r.verify_between else 'NO'} | {r.documents} | "
              f"{r.documents_lost} | {r.passages_duplicated} | {r.trust_marks_lost} | {r.leftovers} |", flush=True)


def writers(out: Path, cache: Path, data: Path) -> None:
    from tests.index_crash import cli, environment, write_documents

    print("\n| writers at once | seconds | exit codes | tracebacks | documents listed | expected | passages | distinct ids |")
    print("|---|---|---|---|---|---|---|---|")
    for writers in (2, 3):
        name = f"concurrent-{writers}"
        sets = [write_documents(out / name / f"set{k}", 500, offset=500 * k) for k in range(writers)]
        started = time.perf_counter()
        runs = [subprocess.Popen(cli("index", str(out / name / f"set{k}"), "--name", name, cache=cache, data=data),
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=environment())
                for k in range(writers)]
        outputs = [p.communicate()[0] for p in runs]
        seconds = time.perf_counter() - started
        generation = cache / "indexes" / name / (cache / "indexes" / name / "CURRENT").read_text().strip()
        manifest = json.loads((generation / "manifest.json").read_text())
        ids = [json.loads(line)["id"] for line in (generation / "passages.jsonl").read_text().splitlines()]
        print(f"| {writers} | {seconds:.1f} | {' '.join(str(p.returncode) for p in runs)} | "
              f"{sum('Traceback' in o for o in outputs)} | {len(manifest['files'])} | {sum(len(s) for s in sets)} | "
              f"{len(ids)} | {len(set(ids))} |")



def readers(stage, out: Path, cache: Path, data: Path) -> None:
    from tests.index_crash import build_first, cli, environment, run, update_args

    print("\n| while a hybrid update of 3,000 documents runs | seconds | update still running | exit code | "
          "read the generation before the update |")
    print("|---|---|---|---|---|")
    name = "during"
    build_first(stage, name, cache, data, "hybrid")  # 3,000 documents to embed: the update runs for minutes
    folder = cache / "indexes" / name
    before = json.loads((folder / (folder / "CURRENT").read_text().strip() / "manifest.json").read_text())
    update = subprocess.Popen(cli(*update_args(stage, name), cache=cache, data=data), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, env=environment())
    time.sleep(4)
    verdicts = out / "during.jsonl"
    for label, command in (("search --index", ("search", "Zebulon Quartermaine", "--index", name, "--k", "3")),
                           ("verify --index (lexical)", ("verify", str(stage.triples), "-o", str(verdicts),
                                                         "--method", "lexical", "--index", name))):
        started = time.perf_counter()
        done = run(*command, cache=cache, data=data)
        seconds, running = time.perf_counter() - started, update.poll() is None
        if label.startswith("verify"):
            pinned = json.loads(verdicts.with_name(verdicts.name + ".settings.json").read_text())["pins"]["index"]["fingerprint"]
            same = pinned == before["fingerprint"]
        else:  # every hit is a passage of the first set: the added documents are not in the old generation
            same = "quartermaine" in done.stdout and "person-" in done.stdout and "/added/" not in done.stdout
        print(f"| {label} | {seconds:.1f} | {'yes' if running else 'no'} | {done.returncode} | {'yes' if same else 'NO'} |")
    update.wait()
    after = json.loads((folder / (folder / "CURRENT").read_text().strip() / "manifest.json").read_text())
    print(f"\nafter the update: {len(before['files'])} -> {len(after['files'])} documents")


if __name__ == "__main__":
    main()
