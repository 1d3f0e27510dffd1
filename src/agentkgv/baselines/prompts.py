"""The LLM baselines' prompts: Direct LLM, single-turn RAG and IRCoT, and the schemas of their answers."""

from __future__ import annotations

from collections.abc import Sequence

from agentkgv.core.prompt_parts import UNTRUSTED_NOTE, json_string, show_passages, show_triple
from agentkgv.data.records import Triple
from agentkgv.llm.base import Prompt
from agentkgv.retrieval.base import Hit

VERIFIER_SYSTEM = ("You check whether a knowledge-graph triple (subject, predicate, object) is true. "
                 + UNTRUSTED_NOTE + " Reply with one JSON object.")

def verdict_schema(reasoning_chars: int) -> dict:
    return {"type": "object",
            "properties": {"reasoning": json_string(reasoning_chars), "verdict": {"enum": ["true", "false"]}},
            "required": ["reasoning", "verdict"], "additionalProperties": False}


def ircot_schema(sentence_chars: int) -> dict:
    """One chain-of-thought sentence; adding `answer` is the structured form of IRCoT's answer pattern."""
    sentence = {"sentence": json_string(sentence_chars)}
    return {"anyOf": [
        {"type": "object", "properties": sentence, "required": ["sentence"], "additionalProperties": False},
        {"type": "object", "properties": {**sentence, "answer": {"enum": ["true", "false"]}},
         "required": ["sentence", "answer"], "additionalProperties": False},
    ]}


def direct_prompt(triple: Triple) -> Prompt:
    user = (f"Triple: {show_triple(triple)}\nUsing only what you know, is this triple true? "
            "Give short reasoning and a verdict.")
    return [{"role": "system", "content": VERIFIER_SYSTEM}, {"role": "user", "content": user}]


def rag_prompt(triple: Triple, hits: Sequence[Hit], max_passage_words: int) -> Prompt:
    user = "\n".join([f"Triple: {show_triple(triple)}", "Passages:", show_passages(hits, max_passage_words),
                      "Based on the passages, is this triple true? A passage giving the subject a different value "
                      "for this predicate is evidence against it. Give short reasoning and a verdict."])
    return [{"role": "system", "content": VERIFIER_SYSTEM}, {"role": "user", "content": user}]


def ircot_prompt(triple: Triple, hits: Sequence[Hit], thoughts: Sequence[str], max_passage_words: int) -> Prompt:
    user = "\n".join([*(["Passages:", show_passages(hits, max_passage_words)] if hits else []),
                      f"Question: is the triple {show_triple(triple)} true?",
                      "Reasoning so far: " + (" ".join(thoughts) if thoughts else "(none)"),
                      "Write the next reasoning sentence. When you can conclude, also give the answer."])
    return [{"role": "system", "content": VERIFIER_SYSTEM}, {"role": "user", "content": user}]
