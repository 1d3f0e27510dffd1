"""A scripted double of the LLM for the agent-loop tests: it answers by the turn number in the prompt, so
each property of the loop is checked exactly. The real models run the same loop elsewhere."""

from __future__ import annotations

import json

from agentkgv.llm.base import Completion, per_prompt


def options(json_schema: dict) -> dict[str, dict]:
    """The schema's allowed actions, by name, with their properties."""
    return {o["properties"]["action"]["const"]: o["properties"] for o in json_schema.get("anyOf", [json_schema])}


def constrained(action: dict, json_schema: dict) -> dict:
    """What constrained decoding would let the scripted action become: a refused kind is swapped for the
    other, and a verdict or query outside the schema's enum becomes its first allowed value."""
    allowed = options(json_schema)
    if action["action"] not in allowed:
        action = ({"reasoning": "forced", "action": "answer", "evidence": [], "verdict": "false"}
                  if action["action"] == "search"
                  else {"reasoning": "forced", "action": "search", "combination": "s", "query": "forced"})
    fields = allowed[action["action"]]
    for name in ("verdict", "query"):
        enum = fields.get(name, {}).get("enum")
        if enum and action[name] not in enum:
            action = {**action, name: enum[0]}
    return action


class ScriptedLLM:
    """Returns `script[turn - 1]` for agent prompts (turn read from the prompt) and numbered summaries."""

    name = "scripted"

    def __init__(self, script: list[dict], tokenizer=None):
        self.script = script
        # With a tokenizer it reports token ids like a local backend, split one character per token: a
        # sequence a sampler can draw but that is not the canonical tokenization of the text.
        self.tokenizer = tokenizer
        self.schemas: list[dict] = []
        self.prompts: list[list[dict]] = []
        self.summaries = 0

    def generate(self, prompts, config, json_schema=None):
        out = []
        for prompt, schema in zip(prompts, per_prompt(json_schema, len(prompts))):
            self.prompts.append(prompt)
            self.schemas.append(schema)
            user = prompt[-1]["content"]
            if "updated summary" in user:
                self.summaries += 1
                text = json.dumps({"summary": f"S{self.summaries}"})
            else:
                turn = int(user.split("Turn ")[1].split(" ")[0])
                text = json.dumps(constrained(self.script[min(turn, len(self.script)) - 1], schema))
            out.append(Completion(text, 10, 5, 0.0, "stop", token_ids=self._ids(text)))
        return out

    def _ids(self, text: str) -> tuple[int, ...] | None:
        if self.tokenizer is None:
            return None
        ids = [i for char in text for i in self.tokenizer(char, add_special_tokens=False).input_ids]
        return (*ids, self.tokenizer.eos_token_id)


def search(query: str) -> dict:
    return {"reasoning": "need evidence", "action": "search", "combination": "s,p'", "query": query}


def answer(verdict: str, evidence: list[int] | None = None) -> dict:
    return {"reasoning": "settled", "action": "answer", "evidence": evidence or [], "verdict": verdict}
