"""Pick and build the language model a run's settings name, wrapped in the on-disk cache unless switched off."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from agentkgv.data.settings import Settings
from agentkgv.llm.base import LLM
from agentkgv.llm.cache import CachedLLM
from agentkgv.llm.embedded import DEFAULT_MODEL
from agentkgv.llm.openai_backend import OpenAILLM, SchemaStyle
from agentkgv.paths import cache_dir


class LLMConfig(Settings):
    """model: `smollm2` (the embedded default), a transformers folder or hub name, a GGUF path for
    llamacpp, or the served model's name for openai. adapter: a PEFT LoRA folder (transformers) or a
    GGUF LoRA file (llamacpp)."""

    backend: Literal["transformers", "llamacpp", "openai"] = "transformers"
    model: str = DEFAULT_MODEL
    adapter: Path | None = None
    # auto: bf16 where the CPU has native bf16 units, else fp32 (emulated bf16 is several times slower).
    dtype: Literal["auto", "bfloat16", "float32", "float16"] = "auto"
    threads: int | None = Field(None, ge=1, description="CPU threads of the local backends; all cores if unset")
    n_ctx: int = Field(8192, ge=256, description="llamacpp context window")
    base_url: str | None = None
    api_key: str | None = None
    concurrency: int = Field(4, ge=1)
    timeout_s: float = Field(120.0, gt=0)
    max_retries: int = Field(3, ge=0)
    schema_style: SchemaStyle = "json_schema"
    cache: bool = True
    cache_path: Path | None = Field(None, description="sqlite file; defaults to <cache dir>/llm/completions.sqlite")
    models_dir: Path | None = Field(None, description="where the embedded model is converted; defaults to <cache dir>/models")

    def identity(self) -> dict:
        """The fields that decide what the model writes, as JSON: how it is run (cache, threads, timeouts,
        retries) and the API key are left out."""
        return self.model_dump(mode="json", exclude={"cache", "cache_path", "models_dir", "threads", "concurrency", "timeout_s",
                                                     "max_retries", "api_key"})


def build_llm(config: LLMConfig) -> LLM:
    llm = _backend(config)
    if not config.cache:
        return llm
    return CachedLLM(llm, config.cache_path or cache_dir() / "llm" / "completions.sqlite")


def _backend(config: LLMConfig) -> LLM:
    # The local backends are imported on demand: torch takes seconds to import, llama-cpp-python is optional.
    if config.backend == "transformers":
        import torch

        from agentkgv.llm.transformers_backend import TransformersLLM

        if config.threads:
            torch.set_num_threads(config.threads)
        return TransformersLLM.load(config.model, config.adapter, config.dtype, config.models_dir)
    if config.backend == "llamacpp":
        from agentkgv.llm.llamacpp_backend import LlamaCppLLM

        return LlamaCppLLM(config.model, config.adapter, config.n_ctx, config.threads)
    if config.adapter is not None:
        raise ValueError("the openai backend cannot apply an adapter; serve the adapted model instead")
    return OpenAILLM(config.model, config.base_url, config.api_key, config.concurrency, config.timeout_s,
                     config.max_retries, config.schema_style)
