"""A user's mistakes at the command line, each run as the real command: what `test_cli_mistakes.py` asserts
and `experiments/cli_mistakes.py` tabulates for BENCHMARKS.md (*Under attack and failure*).

Every case must end with a message, not a traceback: the exit code a pipeline can act on (2 for a mistake,
refused before any work; 0 with a warning for an input that held nothing) and the words that say which path
or option is wrong and what to do.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import agentkgv

GOOD_ROW = "subject,predicate,object\nAllan Peiper,place of birth,Alexandra\n"


@dataclass(frozen=True)
class Case:
    command: str
    name: str
    args: tuple[str, ...]  # with {root} for the stage's folder
    code: int
    words: str  # in the message, case-folded


def corpus_cache(root: Path, passages) -> Path:
    """A cache under `root` holding `passages` as the built-in corpus, with its BM25 index."""
    from agentkgv.data.jsonl import write_jsonl
    from agentkgv.retrieval.bm25 import BM25Retriever

    cache = root / "cache"
    write_jsonl(cache / "corpus" / "passages.jsonl",
                ({"id": p.id, "text": p.text, "title": p.title, "source": p.source} for p in passages))
    BM25Retriever.build(passages, cache / "index" / "bm25")
    return cache


def run_cli(*args: str, cache: Path, data: Path, timeout: int = 300) -> subprocess.CompletedProcess:
    # PYTHONPATH: the subprocess runs the package under test, not whichever copy the venv installed.
    env = {"AGENTKGV_CACHE": str(cache), "AGENTKGV_DATA": str(data), "PATH": "/usr/bin:/bin",
           "PYTHONPATH": str(Path(agentkgv.__file__).parents[1])}
    return subprocess.run([sys.executable, "-m", "agentkgv", *args], capture_output=True, text=True, env=env,
                          timeout=timeout)


def stage(root: Path, data: Path) -> None:
    """What the cases run against: documents, an index of them (`mine`, BM25), a verdicts file written by a
    lexical run over it, its review queue, and files broken in the ways the cases need."""
    docs = root / "docs"
    docs.mkdir(parents=True)
    (docs / "peiper.txt").write_text("Allan Peiper was born in Alexandra, Victoria, Australia.")
    (docs / "empty.txt").write_text("")
    (root / "graph.csv").write_text(GOOD_ROW)
    (root / "empty.csv").write_text("subject,predicate,object\n")
    (root / "missing-object.csv").write_text("subject,predicate,object\nAllan Peiper,place of birth\n")
    (root / "graph.xlsx").write_bytes(b"PK\x03\x04")
    (root / "folder.jsonl").mkdir()
    (root / "outdir").mkdir()
    (root / "outdir.trig").mkdir()
    (root / "unknown-key.toml").write_text("[reading]\nreaders = 3\n")
    (root / "broken.jsonl").write_text('{"id": "a", "triple":\n')
    (root / "review-empty.csv").write_text("id,subject,predicate,object,verdict,confidence,reviewer_verdict\n")
    (root / "old-index").mkdir()
    (root / "old-index" / "manifest.json").write_text(json.dumps({"name": "old-index"}))
    cache = root / "cache"
    # An eval run of the lexical check on BM25, as its log and pinned settings stand after a first batch.
    from agentkgv.config import RunConfig, resolve
    from agentkgv.paths import Workspace

    log = cache / "runs" / "mistake" / "lexical.test_unseen.jsonl"
    log.parent.mkdir(parents=True)
    log.write_text("{}\n")
    pinned = resolve(RunConfig(method="lexical"), Workspace(data, cache)).identity()
    log.with_name(log.name + ".settings.json").write_text(json.dumps(pinned))
    for args in (("index", str(docs / "peiper.txt"), "--name", "mine"),
                 ("verify", str(root / "graph.csv"), "-o", str(root / "verdicts.jsonl"), "--method", "lexical",
                  "--index", "mine"),
                 ("report", str(root / "verdicts.jsonl"), "-o", str(root / "report.html"))):
        done = run_cli(*args, cache=cache, data=data)
        assert done.returncode == 0, done.stderr


CASES = [
    # verify: the triples
    Case("verify", "triples file missing", ("verify", "{root}/nope.csv", "-o", "{root}/o1.jsonl"), 2, "file not found"),
    Case("verify", "triples path is a folder named like a file",
         ("verify", "{root}/folder.jsonl", "-o", "{root}/o2.jsonl"), 2, "a folder"),
    Case("verify", "triples in an unknown format", ("verify", "{root}/graph.xlsx", "-o", "{root}/o3.jsonl"), 2,
         "unknown format"),
    Case("verify", "a row without its object", ("verify", "{root}/missing-object.csv", "-o", "{root}/o4.jsonl"), 2,
         "missing-object.csv:2"),
    Case("verify", "no triple in the file", ("verify", "{root}/empty.csv", "-o", "{root}/o5.jsonl", "--method",
                                             "lexical"), 0, "holds no triple"),
    Case("verify", "a file and --sparql both", ("verify", "{root}/graph.csv", "--sparql", "http://localhost:9/q"), 2,
         "one of them"),
    # verify: the output
    Case("verify", "output is a folder", ("verify", "{root}/graph.csv", "-o", "{root}/outdir"), 2, "a folder"),
    Case("verify", "output under /proc", ("verify", "{root}/graph.csv", "-o", "/proc/verdicts.jsonl"), 2,
         "cannot be written"),
    Case("verify", "output under a file", ("verify", "{root}/graph.csv", "-o", "{root}/graph.csv/v.jsonl"), 2,
         "cannot be written"),
    Case("verify", "resume with another method",
         ("verify", "{root}/graph.csv", "-o", "{root}/verdicts.jsonl", "--method", "single_rag", "--index", "mine"),
         2, "another output file (-o)"),
    # verify: the settings
    Case("verify", "an index that does not exist", ("verify", "{root}/graph.csv", "-o", "{root}/o6.jsonl", "--index",
                                                    "nope"), 2, "no index named 'nope'"),
    Case("verify", "--retriever dense on a BM25 index",
         ("verify", "{root}/graph.csv", "-o", "{root}/o7.jsonl", "--index", "mine", "--retriever", "dense"), 2,
         "a bm25 index"),
    Case("verify", "a reader folder that does not exist",
         ("verify", "{root}/graph.csv", "-o", "{root}/o8.jsonl", "--reader", "{root}/no-reader"), 2, "missing"),
    Case("verify", "an adapter that does not exist",
         ("verify", "{root}/graph.csv", "-o", "{root}/o9.jsonl", "--method", "direct", "--adapter", "{root}/no-adapter"),
         2, "no adapter here"),
    Case("verify", "a model folder that does not exist",
         ("verify", "{root}/graph.csv", "-o", "{root}/o15.jsonl", "--method", "direct", "--model", "{root}/no-model"),
         2, "no model here"),
    Case("verify", "a GGUF file that does not exist",
         ("verify", "{root}/graph.csv", "-o", "{root}/o16.jsonl", "--method", "direct", "--backend", "llamacpp",
          "--model", "{root}/no-model.gguf"), 2, "no model here"),
    Case("verify", "an OpenAI-compatible backend with no server",
         ("verify", "{root}/graph.csv", "-o", "{root}/o17.jsonl", "--method", "direct", "--backend", "openai"), 2,
         "needs --base-url"),
    Case("verify", "a method that does not exist", ("verify", "{root}/graph.csv", "-o", "{root}/o10.jsonl",
                                                    "--method", "oracle"), 2, "--method"),
    Case("verify", "a prior out of range", ("verify", "{root}/graph.csv", "-o", "{root}/o11.jsonl", "--prior", "2"), 2,
         "--prior"),
    Case("verify", "a config with an unknown key", ("verify", "{root}/graph.csv", "-o", "{root}/o12.jsonl",
                                                    "--config", "{root}/unknown-key.toml"), 2, "readers"),
    Case("verify", "a config file that does not exist", ("verify", "{root}/graph.csv", "-o", "{root}/o13.jsonl",
                                                         "--config", "{root}/nope.toml"), 2, "nope.toml"),
    Case("verify", "an alias table that does not exist",
         ("verify", "{root}/graph.csv", "-o", "{root}/o14.jsonl", "--method", "lexical", "--aliases", "{root}/nope.jsonl"),
         2, "nope.jsonl"),
    # index
    Case("index", "documents that do not exist", ("index", "{root}/no-docs", "--name", "other"), 2,
         "no such file or folder"),
    Case("index", "nothing to do", ("index", "--name", "mine"), 2, "nothing to do"),
    Case("index", "distrust a path that does not exist", ("index", "--name", "mine", "--distrust", "{root}/no-blog"), 2,
         "no such file or folder"),
    Case("index", "an index name with a space", ("index", "{root}/docs", "--name", "my docs"), 2, "index name"),
    Case("index", "other passage sizes for an existing index", ("index", "{root}/docs", "--name", "mine", "--words",
                                                                "50"), 2, "build a new index"),
    Case("index", "only empty documents", ("index", "{root}/docs/empty.txt", "--name", "hollow"), 2, "no passages"),
    Case("index", "a folder in an earlier layout", ("index", "{root}/docs", "--name", "{root}/old-index"), 2,
         "earlier agentkgv version"),
    # eval
    Case("eval", "resume a run with another retriever", ("eval", "--method", "lexical", "--limit", "4", "--split",
                                                         "test_unseen", "--run-name", "mistake", "--retriever",
                                                         "hybrid"), 2, "another --run-name"),
    # export
    Case("export", "verdicts file missing", ("export", "{root}/nope.jsonl", "-o", "{root}/v.trig"), 2, "nope.jsonl"),
    Case("export", "a format without named graphs", ("export", "{root}/verdicts.jsonl", "-o", "{root}/v.ttl"), 2,
         ".trig or .nq"),
    Case("export", "neither a file nor an endpoint", ("export", "{root}/verdicts.jsonl"), 2, "one of them"),
    Case("export", "a verdicts file with a broken line", ("export", "{root}/broken.jsonl", "-o", "{root}/v.trig"), 2,
         "broken.jsonl:1"),
    Case("export", "output is a folder", ("export", "{root}/verdicts.jsonl", "-o", "{root}/outdir.trig"), 2,
         "outdir.trig"),
    # learn
    Case("learn", "review file missing", ("learn", "{root}/nope.csv", "--verdicts", "{root}/verdicts.jsonl", "--name",
                                          "mine"), 2, "nope.csv"),
    Case("learn", "no review filled in", ("learn", "{root}/review-empty.csv", "--verdicts", "{root}/verdicts.jsonl",
                                          "--name", "mine"), 2, "review-empty.csv"),
    Case("learn", "verdicts file missing", ("learn", "{root}/report.review.csv", "--verdicts", "{root}/nope.jsonl",
                                            "--name", "mine"), 2, "nope.jsonl"),
    # report
    Case("report", "verdicts file missing", ("report", "{root}/nope.jsonl", "-o", "{root}/r.html"), 2, "nope.jsonl"),
    Case("report", "output is a folder", ("report", "{root}/verdicts.jsonl", "-o", "{root}/outdir"), 2, "outdir"),
    Case("report", "a verdicts file with a broken line", ("report", "{root}/broken.jsonl", "-o", "{root}/r2.html"), 2,
         "broken.jsonl:1"),
]


def run_case(case: Case, root: Path, data: Path) -> subprocess.CompletedProcess:
    return run_cli(*(arg.format(root=root) for arg in case.args), cache=root / "cache", data=data)


def message(result: subprocess.CompletedProcess) -> str:
    """The first line the command printed about the mistake."""
    lines = [line.strip(" │╭╮╰╯─") for line in (result.stderr + result.stdout).splitlines()]
    lines = [line for line in lines if line]
    at = next((i for i, line in enumerate(lines) if any(w in line.lower() for w in ("error", "warning"))), 0)
    # The command line library's usage errors come in a box titled "Error": the message is the line below.
    return lines[at + 1] if lines[at:at + 1] == ["Error"] and at + 1 < len(lines) else lines[at] if lines else ""
