"""Any OpenAI-compatible chat server: vLLM, SGLang, Ollama, llama.cpp's server, hosted APIs.

A batch becomes concurrent requests (servers batch them on their side). Servers disagree on how a JSON
schema is asked for, so that is a setting:
- "json_schema": the OpenAI standard response_format; OpenAI, vLLM, SGLang, Ollama, llama.cpp's llama-server.
- "json_object": response_format {"type": "json_object", "schema": ...}; llama-cpp-python's server, which
  rejects the standard form.
- "guided_json": vLLM's older extra_body field.
"""

from __future__ import annotations

import itertools
import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal

from agentkgv.llm.base import Completion, GenerationConfig, JsonSchema, LLMError, Prompt, Schemas, per_prompt

SchemaStyle = Literal["json_schema", "json_object", "guided_json"]


def schema_request(json_schema: JsonSchema, style: SchemaStyle) -> dict[str, Any]:
    """The keyword arguments of chat.completions.create that ask the server for the schema."""
    if style == "json_schema":
        return {"response_format": {"type": "json_schema",
                                    "json_schema": {"name": "response", "schema": json_schema, "strict": True}}}
    if style == "json_object":
        return {"response_format": {"type": "json_object", "schema": json_schema}}
    return {"extra_body": {"guided_json": json_schema}}


class OpenAILLM:
    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None, concurrency: int = 4,
                 timeout_s: float = 120.0, max_retries: int = 3, schema_style: SchemaStyle = "json_schema"):
        from openai import OpenAI

        # Local servers ignore the key, but the client refuses to start without one.
        key = api_key or os.environ.get("OPENAI_API_KEY") or "not-needed"
        # The client retries connection errors, timeouts, 408/409/429 and 5xx with exponential backoff and
        # honours Retry-After; a 200 whose body is not a completion it hands back as is, so _one retries those.
        self._client = OpenAI(base_url=base_url, api_key=key, timeout=timeout_s, max_retries=max_retries)
        self._max_retries = max_retries
        self._concurrency = concurrency
        self._schema_style = schema_style
        self.model = model
        self.name = f"openai:{model}@{base_url}" if base_url else f"openai:{model}"

    def generate(self, prompts: list[Prompt], config: GenerationConfig,
                 json_schema: Schemas = None) -> list[Completion]:
        seed = {} if config.seed is None else {"seed": config.seed}  # omitted, not null: some servers reject null
        extras = [{**seed, **({} if schema is None else schema_request(schema, self._schema_style))}
                  for schema in per_prompt(json_schema, len(prompts))]
        with ThreadPoolExecutor(max_workers=self._concurrency) as pool:
            return list(pool.map(lambda request: self._one(request[0], config, request[1]), zip(prompts, extras)))

    def _one(self, prompt: Prompt, config: GenerationConfig, extra: dict[str, Any]) -> Completion:
        import openai

        for attempt in itertools.count():
            start = time.perf_counter()
            try:
                response = self._client.chat.completions.create(
                    model=self.model, messages=prompt, max_tokens=config.max_new_tokens,
                    temperature=config.temperature, top_p=config.top_p, **extra)
                choice, usage = response.choices[0], response.usage
                text = choice.message.content
            except openai.APIStatusError as error:  # the client's retries are spent, or a 4xx no retry fixes
                raise LLMError(f"{self.name}: HTTP {error.status_code}: {error.message}") from error
            except openai.APIError as error:  # connection dropped or timed out on every try
                raise LLMError(f"{self.name}: {type(error).__name__}: {error}") from error
            except (ValueError, TypeError, AttributeError, IndexError) as error:
                # A 200 whose body is not JSON (ValueError) or not a completion (missing fields).
                if attempt == self._max_retries:
                    raise LLMError(f"{self.name}: malformed response after {attempt + 1} tries: {error!r}") from error
                time.sleep(min(8.0, 0.5 * 2 ** attempt))
                continue
            return Completion(text=text or "", prompt_tokens=usage.prompt_tokens if usage else 0,
                              completion_tokens=usage.completion_tokens if usage else 0,
                              latency_s=time.perf_counter() - start,
                              finish_reason="length" if choice.finish_reason == "length" else "stop")
