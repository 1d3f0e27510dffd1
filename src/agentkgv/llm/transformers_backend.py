"""The in-process backend: any transformers causal LM (the embedded SmolLM2 by default), optionally with a
PEFT LoRA adapter, batched (the prefix all rows share is run once), JSON-constrained through xgrammar.

xgrammar compiles a JSON schema against the tokenizer's vocabulary once and then masks, at every step
and for every row of the batch, the tokens that would break the schema; masking happens before
temperature and top-p, so sampling only ever chooses among allowed tokens.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import torch
from transformers import (AutoModelForCausalLM, AutoTokenizer, LogitsProcessorList, PreTrainedModel,
                          PreTrainedTokenizerBase)
from transformers import GenerationConfig as HFGenerationConfig

from agentkgv.cpu import native_bf16
from agentkgv.llm.base import Completion, GenerationConfig, JsonSchema, Prompt, Schemas, per_prompt
from agentkgv.llm.embedded import DEFAULT_MODEL, adapter_fingerprint, resolve_adapter, resolve_model_path

# Enough to hold every spelling of both verdicts that the schema mask leaves open at the verdict step.
TOP_ALTERNATIVES = 8
# A shorter shared prefix saves less than the extra forward call costs.
MIN_SHARED_PREFIX = 16


def torch_dtype(name: str) -> torch.dtype:
    if name == "auto":
        return torch.bfloat16 if native_bf16() else torch.float32
    return getattr(torch, name)


def load_base_model(model: str, dtype: str = "auto",
                    models: Path | None = None) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """The causal LM `model` names (`smollm2` is the embedded one, converted into `models`) in `dtype`, on the
    GPU when there is one, with its tokenizer: what inference, SFT and GRPO all start from."""
    path = resolve_model_path(model, models)
    network = AutoModelForCausalLM.from_pretrained(path, dtype=torch_dtype(dtype))
    if torch.cuda.is_available():
        network = network.to("cuda")
    return network, AutoTokenizer.from_pretrained(path)


class TransformersLLM:
    def __init__(self, model: PreTrainedModel, tokenizer, name: str):
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.name = name
        self._stop_ids = stop_token_ids(model, tokenizer)
        self._compiler = None

    @classmethod
    def load(cls, model: str = DEFAULT_MODEL, adapter: Path | None = None, dtype: str = "auto",
             models: Path | None = None) -> TransformersLLM:
        network, tokenizer = load_base_model(model, dtype, models)
        # The precision is part of the identity: bf16 and fp32 greedy decodes can diverge.
        name = f"transformers:{model}:{str(network.dtype).removeprefix('torch.')}"
        if adapter is not None:
            from peft import PeftModel

            # Merged because inference never needs the adapter separate, and merged weights cost no
            # extra matmuls per layer.
            folder = resolve_adapter(Path(adapter))
            network = PeftModel.from_pretrained(network, str(folder)).merge_and_unload()
            name = f"{name}+{folder.name}@{adapter_fingerprint(folder)}"
        return cls(network, tokenizer, name)

    def render(self, prompt: Prompt) -> str:
        """The prompt as the model sees it, ending where the assistant's answer starts."""
        return self.tokenizer.apply_chat_template(prompt, tokenize=False, add_generation_prompt=True)

    def count_tokens(self, prompt: Prompt) -> int:
        return len(self.tokenizer(self.render(prompt), add_special_tokens=False).input_ids)

    def generate(self, prompts: list[Prompt], config: GenerationConfig,
                 json_schema: Schemas = None) -> list[Completion]:
        if not prompts:
            return []
        rows = self.tokenizer([self.render(p) for p in prompts], add_special_tokens=False).input_ids
        settings = HFGenerationConfig(max_new_tokens=config.max_new_tokens, do_sample=not config.greedy,
                                      pad_token_id=self.tokenizer.pad_token_id, eos_token_id=self._stop_ids,
                                      output_scores=True, return_dict_in_generate=True)
        if not config.greedy:
            settings.temperature, settings.top_p, settings.top_k = config.temperature, config.top_p, None
        processors = LogitsProcessorList(self._constraint(per_prompt(json_schema, len(prompts))))
        start = time.perf_counter()
        # A private RNG state, so a seeded call is reproducible and leaves the caller's random stream as it was.
        with torch.random.fork_rng(devices=[]), torch.inference_mode():
            if config.seed is not None:
                torch.manual_seed(config.seed)
            batch = self._shared_prefix_batch(rows)
            output = self.model.generate(**batch, generation_config=settings, logits_processor=processors)
            # Scores are the final ones (after the schema mask and any sampling warpers): the probabilities
            # the tokens were actually chosen from, which verdict confidences are read off.
            top = torch.log_softmax(torch.stack(output.scores, dim=1).float(), dim=-1).topk(TOP_ALTERNATIVES, dim=-1)
        latency = time.perf_counter() - start
        new_tokens = output.sequences[:, batch["input_ids"].shape[1]:].tolist()
        prompt_tokens = [len(row) for row in rows]
        return [self._completion(tokens, n_prompt, latency, values, ids)
                for tokens, n_prompt, values, ids in zip(new_tokens, prompt_tokens, top.values.tolist(),
                                                         top.indices.tolist(), strict=True)]

    def _shared_prefix_batch(self, rows: list[list[int]]) -> dict:
        """generate()'s inputs for these prompts, with the prefix every row shares (the system prompt and
        chat template: ~56 of a ~150-450-token agent state) run once and its KV cache given to every row.

        Each row is laid out [prefix][padding][own tokens], so the prefix sits at the same cache positions in
        every row; positions come from the attention mask, which skips the padding, so each row is numbered
        as it would be alone. The cache lives for this call only: GRPO changes the weights between calls.
        """
        device, pad = self.model.device, self.tokenizer.pad_token_id
        # Every row keeps at least one token of its own, which generate() feeds after the cache.
        shared = min(len(os.path.commonprefix(rows)), min(map(len, rows)) - 1) if len(rows) > 1 else 0
        if shared < MIN_SHARED_PREFIX:
            shared = 0  # plain left padding
        width = max(map(len, rows)) - shared
        ids = torch.full((len(rows), shared + width), pad, dtype=torch.long)
        mask = torch.zeros_like(ids)
        for i, row in enumerate(rows):
            own = row[shared:]
            ids[i, :shared], mask[i, :shared] = torch.tensor(row[:shared]), 1
            ids[i, -len(own):], mask[i, -len(own):] = torch.tensor(own), 1
        batch = {"input_ids": ids.to(device), "attention_mask": mask.to(device)}
        if shared:
            cache = self.model(ids[:1, :shared].to(device), use_cache=True).past_key_values
            cache.batch_repeat_interleave(len(rows))
            batch["cache"] = cache
        return batch

    def _completion(self, tokens: list[int], prompt_tokens: int, latency: float,
                    top_values: list[list[float]], top_ids: list[list[int]]) -> Completion:
        # Rows that stopped early are padded to the batch's length; the answer ends at the first stop token.
        stop = next((i for i, token in enumerate(tokens) if token in self._stop_ids), None)
        answer = tokens if stop is None else tokens[:stop]
        # Offsets come from decoding each prefix (byte-level tokens only become text in context); one
        # batched call each for prefixes and alternatives keeps this off the per-token Python path.
        offsets = tuple(len(text) for text in self.tokenizer.batch_decode(
            [answer[:i] for i in range(len(answer))], skip_special_tokens=True))
        names = iter(self.tokenizer.batch_decode([[t] for step in top_ids[:len(answer)] for t in step]))
        alternatives = tuple(
            # `values` first: zip stops on it without pulling the next step's first name from `names`.
            tuple((name, value) for value, name in zip(values, names) if value > float("-inf"))
            for values in top_values[:len(answer)])
        return Completion(text=self.tokenizer.decode(answer, skip_special_tokens=True),
                          prompt_tokens=int(prompt_tokens),
                          completion_tokens=len(tokens) if stop is None else stop + 1,
                          latency_s=latency, finish_reason="length" if stop is None else "stop",
                          token_offsets=offsets, top_alternatives=alternatives,
                          token_ids=tuple(tokens if stop is None else tokens[:stop + 1]))

    def _constraint(self, schemas: list[JsonSchema | None]) -> list:
        """The logits processor for the batch: one grammar per row (none when no row is constrained)."""
        import xgrammar
        import xgrammar.contrib.hf

        if all(schema is None for schema in schemas):
            return []
        if any(schema is None for schema in schemas):
            raise ValueError("a batch is either constrained row by row or not at all; split it")

        if self._compiler is None:
            info = xgrammar.TokenizerInfo.from_huggingface(self.tokenizer, vocab_size=self.model.config.vocab_size,
                                                           stop_token_ids=self._stop_ids)
            self._compiler = xgrammar.GrammarCompiler(info)
        # No free whitespace: a weak model could otherwise spend its whole budget on spaces and newlines.
        # The compiler caches compiled schemas; the processor holds per-generation state, so one per call.
        grammars = [self._compiler.compile_json_schema(schema, any_whitespace=False) for schema in schemas]
        return [xgrammar.contrib.hf.LogitsProcessor(grammars if len(grammars) > 1 else grammars[0])]


def stop_token_ids(model: PreTrainedModel, tokenizer) -> list[int]:
    """The tokens that end an answer: the model's generation config may list more than the tokenizer's eos."""
    configured = model.generation_config.eos_token_id
    ids = [configured] if isinstance(configured, int) else list(configured or [])
    if tokenizer.eos_token_id is not None:
        ids.append(tokenizer.eos_token_id)
    return sorted(set(ids))
