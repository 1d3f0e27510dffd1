"""llama.cpp in process through llama-cpp-python: reads a GGUF directly (the embedded SmolLM2 by default) and
decodes about four times faster than transformers on CPU, at the cost of no batching and no PEFT adapters.

llama-cpp-python is an optional extra (`pip install agentkgv[llamacpp]`, a ~6 minute compile), so it is
imported only when this backend is built.
"""

from __future__ import annotations

import json
import os
import time
import weakref
from pathlib import Path

from agentkgv.llm.base import Completion, GenerationConfig, Prompt, Schemas, per_prompt
from agentkgv.llm.embedded import DEFAULT_MODEL, gguf_path


def import_llama_cpp():
    try:
        import llama_cpp
    except ImportError as error:
        raise RuntimeError("the llamacpp backend needs llama-cpp-python: pip install 'agentkgv[llamacpp]' "
                           "(it compiles llama.cpp, about 6 minutes on 2 cores)") from error
    return llama_cpp


class LlamaCppLLM:
    def __init__(self, model: str = DEFAULT_MODEL, lora: Path | None = None, n_ctx: int = 8192,
                 threads: int | None = None):
        llama_cpp = import_llama_cpp()
        path = gguf_path() if model == DEFAULT_MODEL else Path(model)
        # llama.cpp takes LoRA adapters as GGUF files (convert a PEFT adapter with llama.cpp's
        # convert_lora_to_gguf.py); the chat template comes from the GGUF's metadata.
        self._llama = llama_cpp.Llama(model_path=str(path), n_ctx=n_ctx, n_threads=threads or os.cpu_count(),
                                      lora_path=str(lora) if lora else None, verbose=False)
        # Freed when this object goes or at exit, while llama_cpp is still intact: left to Llama.__del__ at
        # interpreter teardown, freeing raises "'NoneType' object is not callable".
        weakref.finalize(self, self._llama.close)
        self._grammar_type = llama_cpp.LlamaGrammar
        self.name = f"llamacpp:{model}+{Path(lora).name}" if lora else f"llamacpp:{model}"

    def generate(self, prompts: list[Prompt], config: GenerationConfig,
                 json_schema: Schemas = None) -> list[Completion]:
        # Built here rather than through response_format, which silently falls back to unconstrained JSON
        # when a schema cannot be converted.
        grammars: dict[str, object] = {}
        completions = []
        for prompt, schema in zip(prompts, per_prompt(json_schema, len(prompts))):
            text = json.dumps(schema)
            if schema is not None and text not in grammars:
                grammars[text] = self._grammar_type.from_json_schema(text, verbose=False)
            completions.append(self._one(prompt, config, grammars.get(text)))
        return completions

    def _one(self, prompt: Prompt, config: GenerationConfig, grammar) -> Completion:
        start = time.perf_counter()
        # top_k, min_p and the repeat penalty are switched off so the settings mean what they do elsewhere.
        response = self._llama.create_chat_completion(
            messages=prompt, max_tokens=config.max_new_tokens, temperature=config.temperature, top_p=config.top_p,
            top_k=0, min_p=0.0, repeat_penalty=1.0, seed=config.seed, grammar=grammar)
        choice, usage = response["choices"][0], response["usage"]
        return Completion(text=choice["message"]["content"] or "", prompt_tokens=usage["prompt_tokens"],
                          completion_tokens=usage["completion_tokens"], latency_s=time.perf_counter() - start,
                          finish_reason="length" if choice["finish_reason"] == "length" else "stop")
