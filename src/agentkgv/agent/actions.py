"""Parsing model output into actions. Anything that is not a complete, valid action is `invalid`.

Constrained decoding makes valid JSON the norm, but output cut off by the token limit (or a backend
without constraints) still arrives; such a turn ends the trajectory without a verdict, which the
benchmark scores as negative and GRPO rewards with -0.5.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Literal

from agentkgv.agent.combinations import COMBINATIONS
from agentkgv.llm.base import Completion

_VERDICTS = {"true": True, "false": False, True: True, False: False}


@dataclass(frozen=True, slots=True)
class Action:
    kind: Literal["answer", "search", "invalid"]
    reasoning: str = ""
    verdict: bool | None = None
    combination: str | None = None
    query: str | None = None
    # The 1-based numbers of the shown passages an answer cites.
    evidence: tuple[int, ...] = ()
    error: str | None = None


def _load_object(text: str) -> dict | str:
    """The JSON object in `text`, tolerating prose around it; an error message when there is none."""
    start = text.find("{")
    if start < 0:
        return "no JSON object"
    try:
        value, _ = json.JSONDecoder().raw_decode(text[start:])
    except json.JSONDecodeError as error:
        return f"incomplete or invalid JSON ({error.msg})"
    return value if isinstance(value, dict) else "JSON is not an object"


def parse_action(text: str) -> Action:
    value = _load_object(text)
    if isinstance(value, str):
        return Action("invalid", error=value)
    reasoning = str(value.get("reasoning", ""))
    kind = value.get("action")
    if kind == "answer" or (kind is None and "verdict" in value):
        verdict = _VERDICTS.get(value.get("verdict"))
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


def parse_verdict(text: str) -> tuple[bool | None, str]:
    """(verdict, reasoning) of a reader-style answer; verdict None when unparsable."""
    value = _load_object(text)
    if isinstance(value, str):
        return None, ""
    return _VERDICTS.get(value.get("verdict", value.get("answer"))), str(value.get("reasoning", ""))


def parse_field(text: str, field: str) -> str | None:
    value = _load_object(text)
    return None if isinstance(value, str) or field not in value else str(value[field])


def verdict_confidence(completion: Completion, field: str = "verdict") -> float | None:
    """P(the verdict the model gave), from the alternatives at the step that wrote it.

    A verdict can be spelled by several tokens (`t`, `tr`, `true`), so each alternative counts toward the
    verdict whose word it begins, and the chosen verdict's share of the two is the confidence.
    None when the backend reports no alternatives or there is no verdict.
    """
    match = re.search(rf'"{field}"\s*:\s*"(true|false)', completion.text)
    if match is None:
        return None
    alternatives = completion.alternatives_at(match.start(1))
    if not alternatives:
        return None
    mass = {"true": 0.0, "false": 0.0}
    for text, logprob in alternatives:
        word = text.lstrip('" ')
        for verdict in mass:
            if word and verdict.startswith(word) or word.startswith(verdict):
                mass[verdict] += math.exp(logprob)
    total = mass["true"] + mass["false"]
    return mass[match.group(1)] / total if total > 0 else None
