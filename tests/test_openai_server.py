"""The openai backend against a real OpenAI-compatible server: llama-cpp-python's, serving the embedded
SmolLM2 GGUF on loopback."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import jsonschema
import pytest

from agentkgv.llm import GenerationConfig, gguf_path
from agentkgv.llm.openai_backend import OpenAILLM

# `make test` installs the llamacpp extra, whose server this test runs: missing, it fails at import.
import llama_cpp  # noqa: E402,F401

SCHEMA = {
    "type": "object",
    "properties": {
        "reasoning": {"type": "string", "maxLength": 80},
        "action": {"enum": ["search", "answer"]},
        "verdict": {"enum": ["true", "false"]},
    },
    "required": ["reasoning", "action"],
}
PROMPTS = [[{"role": "system", "content": "You verify knowledge-graph triples. Reply with a JSON action."},
            {"role": "user", "content": f"Triple: {triple}. Is it true?"}]
           for triple in ["(Paris, capital of, France)", "(Berlin, located in, Spain)", "(Rome, founded by, Romulus)"]]
STARTUP_S = 120


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until_ready(url: str, server: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited with {server.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.5)
    raise TimeoutError(f"the server did not answer {url} within {STARTUP_S} s")


@pytest.fixture(scope="module")
def base_url(tmp_path_factory):
    port = free_port()
    # Logged to a file, not a pipe: nobody reads a pipe while the tests run, and a full one blocks the server.
    log = tmp_path_factory.mktemp("server") / "server.log"
    with log.open("w") as output:
        server = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf_path()), "--host", "127.0.0.1",
             "--port", str(port), "--n_ctx", "2048", "--n_threads", "2", "--model_alias", "smollm2"],
            stdout=output, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}/v1"
        wait_until_ready(f"{url}/models", server, log)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def test_plain_batch(base_url):
    llm = OpenAILLM("smollm2", base_url=base_url, concurrency=2, timeout_s=60)
    completions = llm.generate(PROMPTS, GenerationConfig(max_new_tokens=12))
    assert len(completions) == 3
    for completion in completions:
        assert completion.text.strip()
        assert completion.prompt_tokens > 0 and 0 < completion.completion_tokens <= 12
        assert completion.latency_s > 0


def test_json_schema_batch(base_url):
    # llama-cpp-python's server takes the schema in the json_object form.
    llm = OpenAILLM("smollm2", base_url=base_url, concurrency=2, timeout_s=60, schema_style="json_object")
    completions = llm.generate(PROMPTS, GenerationConfig(max_new_tokens=96, seed=1), SCHEMA)
    assert len(completions) == 3
    for completion in completions:
        assert completion.finish_reason == "stop", completion
        jsonschema.validate(json.loads(completion.text), SCHEMA)
        assert completion.prompt_tokens > 0 and completion.completion_tokens > 0
