"""The language-model layer: one protocol (`LLM.generate` over a batch of chats, optionally constrained to a
JSON schema) and backends picked by `LLMConfig.backend`: in-process transformers (the default, with the
embedded SmolLM2 and PEFT adapters), llama.cpp, or any OpenAI-compatible server.

Backends are imported from their own modules on demand, so importing this package stays cheap.
"""

from agentkgv.llm.base import LLM, Completion, GenerationConfig, JsonSchema, Message, Prompt
from agentkgv.llm.cache import CachedLLM
from agentkgv.llm.embedded import DEFAULT_MODEL, gguf_path, resolve_model_path
from agentkgv.llm.factory import LLMConfig, build_llm

__all__ = ["DEFAULT_MODEL", "LLM", "CachedLLM", "Completion", "GenerationConfig", "JsonSchema", "LLMConfig",
           "Message", "Prompt", "build_llm", "gguf_path", "resolve_model_path"]
