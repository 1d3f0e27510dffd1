"""The component combinations a query is written from (paper appendix A, Table 3).

s: subject; p: predicate label; p': a paraphrase of the predicate; o: object. The agent picks one per
query; the retrieval benchmark measures recall of each.
"""

from __future__ import annotations

from agentkgv.data.predicates import by_predicate
from agentkgv.data.records import Triple

COMBINATIONS: dict[str, tuple[str, ...]] = {
    "s": ("s",),
    "s,p": ("s", "p"),
    "s,p,o": ("s", "p", "o"),
    "s,p'": ("s", "p'"),
    "s,p',o": ("s", "p'", "o"),
}


def paraphrases_of(table: dict[str, list[str]], triple: Triple) -> list[str]:
    """p' candidates for a triple: by predicate id, else by its lower-cased words or their "N of M" form
    (`Triple.predicate_keys`; a user's graph often carries words only, or ids of its own: FactBench's `birthPlace`,
    read as `birth place`)."""
    return list(by_predicate(table, triple, []))


def compose_query(triple: Triple, combination: str, paraphrase: str | None = None) -> str:
    """The plain query of a combination: its parts joined by spaces (`Hamlet author Shakespeare`)."""
    parts = {"s": triple.subject, "p": triple.predicate, "p'": paraphrase or triple.predicate, "o": triple.object}
    return " ".join(parts[name] for name in COMBINATIONS[combination])
