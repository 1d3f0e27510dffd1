"""Whether two eval runs of the same methods decided the same: every triple's verdict, P(true), confidence,
outcome, cited passages and searches, and each search's query and retrieved passages (for the LLM methods,
every model turn's text). It reads the run logs as raw JSON, so a run written before a change to the log's
format (the trace that replaced `trajectory`) compares with one written after.

    python experiments/same_verdicts.py .cache/runs/<before> .cache/runs/<after>
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

DECIDED = ("verdict", "p_true", "confidence", "outcome", "stated_instead", "undecided", "search_calls")


def steps(record: dict, kind: str | None) -> list[tuple]:
    """Each search (`kind` "reading") or model turn ("turns") as (query or text, retrieved ids), whichever format
    the log was written in: before the trace, the reader agent logged each search as a model turn's action."""
    trace = record.get("trace")
    if trace is None:
        turns = record.get("trajectory", [])
        if kind == "reading":
            return [((t.get("action") or {}).get("query"), tuple(t.get("retrieved", []))) for t in turns]
        return [(t["action_text"], tuple(t.get("retrieved", []))) for t in turns]
    if trace["kind"] == "reading":
        return [(s["query"], tuple(s["retrieved"])) for s in trace["steps"]]
    return [(t["action_text"], tuple(t.get("retrieved", []))) for t in trace["turns"]]


def decided(record: dict, kind: str | None) -> tuple:
    return (*(record.get(k) for k in DECIDED), tuple(e["id"] for e in record.get("evidence", [])),
            tuple(steps(record, kind)))


def kind_of(record: dict) -> str | None:
    return (record.get("trace") or {}).get("kind")


def main(before: Path, after: Path) -> int:
    differ = total = 0
    for log in sorted(before.glob("*.jsonl")):
        other = after / log.name
        if not other.exists():
            print(f"{log.name}: missing in {after}")
            return 1
        first = {r["id"]: r for r in map(json.loads, log.read_text().splitlines())}
        second = {r["id"]: r for r in map(json.loads, other.read_text().splitlines())}
        changed = [i for i in first if i not in second
                   or decided(first[i], kind_of(second[i])) != decided(second[i], kind_of(second[i]))]
        total, differ = total + len(first), differ + len(changed)
        print(f"{log.name}: {len(first)} triples, {len(changed)} differ" + (f" (first: {changed[0]})" if changed else ""))
    print(f"all: {total} triples, {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
