"""Parsing model output into actions. Anything that is not a complete, valid action is `invalid`.

Constrained decoding makes valid JSON the norm, but output cut off by the token limit (or a backend
without constraints) still arrives; such a turn ends the trajectory without a verdict, which the
benchmark scores as negative and GRPO rewards with -0.5.
"""

from __future__ import annotations

from agentkgv.core.combinations import COMBINATIONS
from agentkgv.core.trace import Action
from agentkgv.llm.answers import VERDICTS, load_object


def parse_action(text: str) -> Action:
    value = load_object(text)
    if isinstance(value, str):
        return Action("invalid", error=value)
    reasoning = str(value.get("reasoning", ""))
    kind = value.get("action")
    if kind == "answer" or (kind is None and "verdict" in value):
        verdict = VERDICTS.get(value.get("verdict"))
        if verdict is None:
            return Action("invalid", reasoning, error=f"verdict {value.get('verdict')!r} is not true/false")
        cited = value.get("evidence") if isinstance(value.get("evidence"), list) else []
        evidence = tuple(dict.fromkeys(n for n in cited if isinstance(n, int) and not isinstance(n, bool)))
        return Action("answer", reasoning, verdict=verdict, evidence=evidence)
    if kind == "search":
        query = str(value.get("query") or "").strip()
        combination = value.get("combination")
        if not query:
            return Action("invalid", reasoning, error="search without a query")
        return Action("search", reasoning, combination=combination if combination in COMBINATIONS else None,
                      query=query)
    return Action("invalid", reasoning, error=f"unknown action {kind!r}")
