"""The LLM layer on a tiny random Llama with SmolLM2's tokenizer: its output is noise, so whatever parses as
schema-valid JSON does so because decoding was constrained."""

from __future__ import annotations

import json

import jsonschema
import pytest
import torch
from transformers import LlamaForCausalLM

from agentkgv.llm import CachedLLM, Completion, GenerationConfig, LLMConfig, Prompt, build_llm
from agentkgv.llm.transformers_backend import TransformersLLM, stop_token_ids

SCHEMA = {
    "type": "object",
    "properties": {
        "reasoning": {"type": "string", "maxLength": 40},
        "action": {"enum": ["search", "answer"]},
        "query": {"type": "string", "maxLength": 30},
        "verdict": {"enum": ["true", "false"]},
    },
    "required": ["reasoning", "action"],
}
# Room for the longest JSON the schema allows, even written with multi-token escapes.
ROOM = GenerationConfig(max_new_tokens=256)


def chat(claim: str) -> Prompt:
    return [{"role": "system", "content": "Verify the triple. Reply with one JSON action."},
            {"role": "user", "content": claim}]


PROMPTS = [chat("(Paris, capital of, France)"), chat("(Berlin, located in, Spain)"),
           chat("(Marie Curie, award received, Nobel Prize in Physics) -- a longer claim to vary padding")]


@pytest.fixture(scope="module")
def tiny(tiny_model_dir) -> TransformersLLM:
    return TransformersLLM.load(str(tiny_model_dir), dtype="float32")


def assert_schema_valid(completions: list[Completion], count: int) -> None:
    assert len(completions) == count
    for completion in completions:
        assert completion.finish_reason == "stop", completion
        jsonschema.validate(json.loads(completion.text), SCHEMA)
        assert completion.prompt_tokens > 0 and completion.completion_tokens > 0


def assert_ids_are_the_generated_tokens(llm: TransformersLLM, completions: list[Completion]) -> None:
    """The recorded ids spell the text and end with the stop token the model drew, whatever padding the
    batch added after it."""
    stops = stop_token_ids(llm.model, llm.tokenizer)
    for completion in completions:
        ids = completion.token_ids
        assert len(ids) == completion.completion_tokens
        assert ids[-1] in stops and all(i not in stops for i in ids[:-1])
        assert llm.tokenizer.decode(ids[:-1]) == completion.text


def test_greedy_constrained_batch_is_schema_valid(tiny):
    first = tiny.generate(PROMPTS, ROOM, SCHEMA)
    assert_schema_valid(first, 3)
    assert_ids_are_the_generated_tokens(tiny, first)
    assert [c.text for c in tiny.generate(PROMPTS, ROOM, SCHEMA)] == [c.text for c in first]


def test_seeded_sampling_is_schema_valid_and_reproducible(tiny):
    config = GenerationConfig(max_new_tokens=256, temperature=1.0, top_p=0.95, seed=7)
    first = tiny.generate(PROMPTS, config, SCHEMA)
    assert_schema_valid(first, 3)
    assert_ids_are_the_generated_tokens(tiny, first)
    assert [c.text for c in tiny.generate(PROMPTS, config, SCHEMA)] == [c.text for c in first]
    other = tiny.generate(PROMPTS, GenerationConfig(max_new_tokens=256, temperature=1.0, seed=8), SCHEMA)
    assert_schema_valid(other, 3)
    assert [c.text for c in other] != [c.text for c in first]


def test_unconstrained_generation_counts_tokens(tiny):
    completions = tiny.generate(PROMPTS, GenerationConfig(max_new_tokens=5))
    assert [c.prompt_tokens for c in completions] == [tiny.count_tokens(p) for p in PROMPTS]
    assert all(1 <= c.completion_tokens <= 5 for c in completions)
    assert tiny.generate([], ROOM) == []


def test_a_batch_runs_its_shared_prefix_once_and_decodes_as_each_prompt_alone(tiny):
    """The rows share the system prompt and chat template: that prefix is run once and its KV cache given to
    every row, which must not change what any row decodes, nor the prompt length it reports."""
    rows = tiny.tokenizer([tiny.render(p) for p in PROMPTS], add_special_tokens=False).input_ids
    batch = tiny._shared_prefix_batch(rows)
    shared = batch["cache"].get_seq_length()
    assert shared >= 16 and all(row[:shared] == rows[0][:shared] for row in rows)
    together = tiny.generate(PROMPTS, ROOM, SCHEMA)
    alone = [tiny.generate([prompt], ROOM, SCHEMA)[0] for prompt in PROMPTS]
    assert [c.text for c in together] == [c.text for c in alone]
    assert [c.prompt_tokens for c in together] == [len(row) for row in rows]


class CountingLLM:
    def __init__(self, llm):
        self.llm, self.name, self.prompts_seen = llm, llm.name, 0

    def generate(self, prompts, config, json_schema=None):
        self.prompts_seen += len(prompts)
        return self.llm.generate(prompts, config, json_schema)


def test_cache_serves_repeats_without_the_model(tiny, tmp_path):
    counting = CountingLLM(tiny)
    cached = CachedLLM(counting, tmp_path / "cache.sqlite")
    first = cached.generate(PROMPTS[:2], ROOM, SCHEMA)
    again = cached.generate(PROMPTS, ROOM, SCHEMA)
    assert counting.prompts_seen == 3  # only the third prompt was new
    assert [c.text for c in again[:2]] == [c.text for c in first]
    assert [(c.prompt_tokens, c.completion_tokens) for c in again[:2]] == \
        [(c.prompt_tokens, c.completion_tokens) for c in first]
    assert all(c.latency_s == 0 for c in again[:2]) and again[2].latency_s > 0

    reopened = CachedLLM(counting, tmp_path / "cache.sqlite")
    assert [c.text for c in reopened.generate(PROMPTS, ROOM, SCHEMA)] == [c.text for c in again]
    assert counting.prompts_seen == 3
    reopened.generate(PROMPTS[:1], GenerationConfig(max_new_tokens=256), None)  # another key: no schema
    assert counting.prompts_seen == 4
    unseeded = GenerationConfig(max_new_tokens=4, temperature=1.0)
    reopened.generate(PROMPTS[:1], unseeded)
    reopened.generate(PROMPTS[:1], unseeded)
    assert counting.prompts_seen == 6  # unseeded sampling is never cached


def test_each_prompt_of_a_batch_can_have_its_own_schema(tiny):
    verdict_only = {"type": "object", "properties": {"verdict": {"enum": ["false"]}}, "required": ["verdict"],
                    "additionalProperties": False}
    completions = tiny.generate(PROMPTS, ROOM, [SCHEMA, verdict_only, SCHEMA])
    assert json.loads(completions[1].text) == {"verdict": "false"}
    for completion in (completions[0], completions[2]):
        jsonschema.validate(json.loads(completion.text), SCHEMA)
    with pytest.raises(ValueError, match="2 schemas for 3 prompts"):
        tiny.generate(PROMPTS, ROOM, [SCHEMA, SCHEMA])


def test_lora_adapter_loads_through_factory(tiny_model_dir, tmp_path):
    from peft import LoraConfig, get_peft_model

    base = LlamaForCausalLM.from_pretrained(tiny_model_dir)
    # Random B (the default init is zero) so the adapter actually changes the model.
    lora = LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], init_lora_weights=False)
    get_peft_model(base, lora).save_pretrained(tmp_path / "adapter")

    adapted = build_llm(LLMConfig(model=str(tiny_model_dir), adapter=tmp_path / "adapter", dtype="float32",
                                  cache_path=tmp_path / "cache.sqlite"))
    assert isinstance(adapted, CachedLLM)
    assert adapted.name.startswith(f"transformers:{tiny_model_dir}:float32+adapter@")
    assert_schema_valid(adapted.generate(PROMPTS, ROOM, SCHEMA), 3)

    plain = build_llm(LLMConfig(model=str(tiny_model_dir), dtype="float32", cache=False))
    batch = plain.tokenizer(["(Paris, capital of, France)"], return_tensors="pt")
    with torch.inference_mode():
        assert not torch.allclose(plain.model(**batch).logits, adapted.llm.model(**batch).logits)


def test_adapter_fingerprint_follows_the_weights_not_the_files_beside_them(tiny_model_dir, tmp_path):
    from peft import LoraConfig, get_peft_model

    from agentkgv.llm.embedded import adapter_fingerprint

    folder = tmp_path / "adapter"
    lora = LoraConfig(r=4, target_modules=["q_proj"], init_lora_weights=False)
    torch.manual_seed(0)
    get_peft_model(LlamaForCausalLM.from_pretrained(tiny_model_dir), lora).save_pretrained(folder)
    first = adapter_fingerprint(folder)
    (folder / "README.md").write_text("an edited model card")
    assert adapter_fingerprint(folder) == first
    torch.manual_seed(1)  # retrained into the same folder
    get_peft_model(LlamaForCausalLM.from_pretrained(tiny_model_dir), lora).save_pretrained(folder)
    assert adapter_fingerprint(folder) != first


def test_llamacpp_backend_constrained_batch():
    # `make test` installs the llamacpp extra: a missing llama_cpp is a broken install, so it fails here.
    import llama_cpp  # noqa: F401
    llm = build_llm(LLMConfig(backend="llamacpp", threads=2, n_ctx=1024, cache=False))
    assert llm.name == "llamacpp:smollm2"
    assert_schema_valid(llm.generate(PROMPTS, GenerationConfig(max_new_tokens=96), SCHEMA), 3)
    seeded = GenerationConfig(max_new_tokens=96, temperature=0.8, seed=3)
    assert [c.text for c in llm.generate(PROMPTS[:1], seeded, SCHEMA)] == \
        [c.text for c in llm.generate(PROMPTS[:1], seeded, SCHEMA)]


def test_verdict_confidence_is_the_constrained_token_probability(tiny):
    """Under a schema that allows only true/false at the verdict, the two probabilities sum to one."""
    from agentkgv.llm.answers import verdict_confidence
    from agentkgv.baselines.prompts import verdict_schema

    prompts = [[{"role": "user", "content": f"Is claim {i} true?"}] for i in range(3)]
    for seed in (1, 2):
        out = tiny.generate(prompts, GenerationConfig(max_new_tokens=120, temperature=1.0, seed=seed),
                                verdict_schema(20))
        for completion in out:
            assert completion.top_alternatives is not None
            assert len(completion.top_alternatives) == len(completion.token_offsets)
            assert all(lp <= 1e-6 for step in completion.top_alternatives for _, lp in step)
            confidence = verdict_confidence(completion)
            if completion.finish_reason == "stop":
                # The greedy-or-sampled verdict is one of two; its share can be anything in (0, 1].
                assert confidence is not None and 0.0 < confidence <= 1.0
