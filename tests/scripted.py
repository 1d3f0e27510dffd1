"""A scripted double of the LLM for the agent-loop tests: it answers by the turn number in the prompt, so
each property of the loop is checked exactly. The real models run the same loop elsewhere."""

from __future__ import annotations

import json

from agentkgv.llm.base import Completion


def allowed_actions(json_schema: dict) -> set[str]:
    options = json_schema.get("anyOf", [json_schema])
    return {option["properties"]["action"]["const"] for option in options}


class ScriptedLLM:
    """Returns `script[turn - 1]` for agent prompts (turn read from the prompt) and numbered summaries."""

    name = "scripted"

    def __init__(self, script: list[dict]):
        self.script = script
        self.schemas: list[dict] = []
        self.prompts: list[list[dict]] = []
        self.summaries = 0

    def generate(self, prompts, config, json_schema=None):
        out = []
        for prompt in prompts:
            self.prompts.append(prompt)
            self.schemas.append(json_schema)
            user = prompt[-1]["content"]
            if "updated summary" in user:
                self.summaries += 1
                text = json.dumps({"summary": f"S{self.summaries}"})
            else:
                turn = int(user.split("Turn ")[1].split(" ")[0])
                action = self.script[min(turn, len(self.script)) - 1]
                if action["action"] not in allowed_actions(json_schema):
                    action = ({"reasoning": "forced", "action": "answer", "verdict": "false"}
                              if action["action"] == "search" else
                              {"reasoning": "forced", "action": "search", "combination": "s", "query": "forced"})
                text = json.dumps(action)
            out.append(Completion(text, 10, 5, 0.0, "stop"))
        return out


def search(query: str) -> dict:
    return {"reasoning": "need evidence", "action": "search", "combination": "s,p'", "query": query}


def answer(verdict: str) -> dict:
    return {"reasoning": "settled", "action": "answer", "verdict": verdict}
