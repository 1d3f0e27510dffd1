"""Reading a model's JSON answer: the object in its text, a field of it, a verdict, and the model's confidence
in that verdict from the alternatives its backend reports. Shared by every method that asks an LLM."""

from __future__ import annotations

import json
import math
import re

from agentkgv.llm.base import Completion

VERDICTS = {"true": True, "false": False, True: True, False: False}


def load_object(text: str) -> dict | str:
    """The JSON object in `text`, tolerating prose around it; an error message when there is none."""
    start = text.find("{")
    if start < 0:
        return "no JSON object"
    try:
        value, _ = json.JSONDecoder().raw_decode(text[start:])
    except json.JSONDecodeError as error:
        return f"incomplete or invalid JSON ({error.msg})"
    return value if isinstance(value, dict) else "JSON is not an object"


def parse_verdict(text: str) -> tuple[bool | None, str]:
    """(verdict, reasoning) of a reader-style answer; verdict None when unparsable."""
    value = load_object(text)
    if isinstance(value, str):
        return None, ""
    return VERDICTS.get(value.get("verdict", value.get("answer"))), str(value.get("reasoning", ""))


def parse_field(text: str, field: str) -> str | None:
    value = load_object(text)
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
