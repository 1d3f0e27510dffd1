"""The embedded SmolLM2 through the default backend (converted from its GGUF on first use) answers a
triple-verification prompt with schema-valid JSON."""

from __future__ import annotations

import json

import jsonschema
import pytest

from agentkgv.llm import GenerationConfig, LLMConfig, build_llm

SCHEMA = {
    "type": "object",
    "properties": {
        "reasoning": {"type": "string", "maxLength": 200},
        "action": {"enum": ["search", "answer"]},
        "query": {"type": "string", "maxLength": 120},
        "verdict": {"enum": ["true", "false"]},
    },
    "required": ["reasoning", "action"],
}
SYSTEM = ("You verify knowledge-graph triples against evidence. Reply with one JSON object: "
          '"reasoning", then "action" ("search" to look for more evidence with a "query", or "answer" '
          'with a "verdict" of "true" or "false").')


@pytest.mark.slow
def test_smollm2_verifies_a_triple_with_schema_valid_json(tmp_path):
    llm = build_llm(LLMConfig(cache_path=tmp_path / "cache.sqlite"))
    prompts = [[{"role": "system", "content": SYSTEM},
                {"role": "user", "content": f"Triple: {triple}\nEvidence: {evidence}"}]
               for triple, evidence in [
                   ("(Paris, capital of, France)", "Paris is the capital and most populous city of France."),
                   ("(Berlin, capital of, Spain)", "Madrid is the capital of Spain."),
               ]]
    completions = llm.generate(prompts, GenerationConfig(max_new_tokens=160), SCHEMA)
    for completion in completions:
        assert completion.finish_reason == "stop", completion
        jsonschema.validate(json.loads(completion.text), SCHEMA)
        assert completion.prompt_tokens > 50 and completion.completion_tokens > 5


@pytest.mark.slow
def test_shipped_trained_adapter_searches_before_judging(small_bm25, tmp_path):
    """The adapter `verify` and `demo` run by default loads by name onto the embedded model, and it has
    learned the framework's first move, which the untrained model skips: search, then judge."""
    from pathlib import Path

    from agentkgv.llm_agent.agent import AgentKGV
    from agentkgv.llm_agent.config import AgentConfig
    from agentkgv.llm_agent.summarizer import ExtractiveSummarizer
    from agentkgv.data.records import LabeledTriple, Triple
    from agentkgv.llm.embedded import TRAINED_ADAPTER

    llm = build_llm(LLMConfig(adapter=Path(TRAINED_ADAPTER), cache_path=tmp_path / "cache.sqlite"))
    assert f"+{TRAINED_ADAPTER}@" in llm.name
    agent = AgentKGV(llm, small_bm25, ExtractiveSummarizer(), {"P19": ["birthplace", "was born in"]},
                     AgentConfig(max_turns=3))  # the last turn must judge: bounds the cost on a CPU
    triple = LabeledTriple("t", Triple("Allan Peiper", "place of birth", "Alexandra", "P19"), True)
    [verdict] = agent.verify([triple])
    actions = [turn.action.kind for turn in verdict.turns]
    assert actions[0] == "search" and actions[-1] == "answer", actions
    assert verdict.verdict is not None and verdict.search_calls >= 1
