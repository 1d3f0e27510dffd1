"""An on-disk cache in front of any backend, so a rerun of an evaluation (or one resumed after a crash) does
not pay again for the generations it already has.

Only deterministic requests are cached: greedy, or sampling with a seed. The key covers everything that
decides the text: the backend's name (which carries the adapter), the messages, the decoding settings
and the schema. A hit reports the original token counts and a latency of 0, since nothing was computed.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from dataclasses import asdict
from pathlib import Path

from agentkgv.llm.base import LLM, Completion, GenerationConfig, JsonSchema, Prompt, Schemas, per_prompt

# v3 holds each token's offset and top alternatives (JSON), which verdict confidences are read from.
_SCHEMA = ("CREATE TABLE IF NOT EXISTS completions_v3 (key TEXT PRIMARY KEY, text TEXT, prompt_tokens INTEGER, "
           "completion_tokens INTEGER, finish_reason TEXT, tokens TEXT)")


def cache_key(model: str, prompt: Prompt, config: GenerationConfig, json_schema: JsonSchema | None) -> str:
    request = {"model": model, "messages": prompt, "config": asdict(config), "schema": json_schema}
    return hashlib.sha256(json.dumps(request, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


class CachedLLM:
    def __init__(self, llm: LLM, cache_path: Path):
        self.llm = llm
        self.name = llm.name
        cache_path.parent.mkdir(parents=True, exist_ok=True)
        # One connection shared by the agent's threads behind a lock; WAL and a busy timeout let several
        # processes (parallel evaluation runs) share the file.
        self._db = sqlite3.connect(cache_path, check_same_thread=False, timeout=30)
        self._lock = threading.Lock()
        with self._lock, self._db:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(_SCHEMA)

    def generate(self, prompts: list[Prompt], config: GenerationConfig,
                 json_schema: Schemas = None) -> list[Completion]:
        if not config.deterministic:
            return self.llm.generate(prompts, config, json_schema)
        schemas = per_prompt(json_schema, len(prompts))
        keys = [cache_key(self.name, prompt, config, schema) for prompt, schema in zip(prompts, schemas)]
        known = self._lookup(keys)
        # A prompt repeated within the batch is generated once.
        missing = {key: (prompt, schema) for key, prompt, schema in zip(keys, prompts, schemas, strict=True)
                   if key not in known}
        generated = self.llm.generate([p for p, _ in missing.values()], config,
                                      [s for _, s in missing.values()]) if missing else []
        fresh = dict(zip(missing, generated, strict=True))
        self._store(fresh)
        return [fresh[key] if key in fresh else known[key] for key in keys]

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _lookup(self, keys: list[str]) -> dict[str, Completion]:
        query = ("SELECT text, prompt_tokens, completion_tokens, finish_reason, tokens FROM completions_v3 "
                 "WHERE key = ?")
        with self._lock:
            rows = {key: self._db.execute(query, (key,)).fetchone() for key in keys}
        return {key: _completion(row) for key, row in rows.items() if row}

    def _store(self, completions: dict[str, Completion]) -> None:
        rows = [(key, c.text, c.prompt_tokens, c.completion_tokens, c.finish_reason,
                 json.dumps([c.token_offsets, c.top_alternatives]) if c.top_alternatives is not None else None)
                for key, c in completions.items()]
        with self._lock, self._db:
            self._db.executemany("INSERT OR REPLACE INTO completions_v3 VALUES (?, ?, ?, ?, ?, ?)", rows)


def _completion(row: tuple) -> Completion:
    if not row[4]:
        return Completion(row[0], row[1], row[2], 0.0, row[3])
    offsets, alternatives = json.loads(row[4])
    return Completion(row[0], row[1], row[2], 0.0, row[3], tuple(offsets),
                      tuple(tuple((text, value) for text, value in step) for step in alternatives))
