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


def _direct(url: str, max_retries: int):
    from agentkgv.baselines.single_pass import DirectLLM

    llm = OpenAILLM("smollm2", base_url=url, concurrency=2, timeout_s=60, max_retries=max_retries,
                    schema_style="json_object")
    return DirectLLM(llm, GenerationConfig(max_new_tokens=32), reasoning_chars=40)


def _triples(n: int):
    from agentkgv.data.records import LabeledTriple, Triple

    cities = ["Paris", "Berlin", "Rome", "Madrid", "Vienna", "Lisbon", "Prague", "Oslo"]
    return [LabeledTriple(f"t{i}", Triple(cities[i % 8], "capital of", f"country {i}")) for i in range(n)]


def _ids(log: Path) -> list[str]:
    return [json.loads(line)["id"] for line in log.read_text().splitlines()]


def test_fault_run_through_a_flaky_server_loses_and_duplicates_nothing(base_url, tmp_path):
    from agentkgv.core.runner import errors_path, run_verifier
    from agentkgv.llm.fault_proxy import FaultConfig, FaultProxy

    items, log = _triples(8), tmp_path / "run.jsonl"
    faults = FaultConfig(drop=0.1, error_500=0.1, throttle_429=0.1, malformed=0.1, retry_after_s=0.2, seed=3)
    with FaultProxy(base_url.removesuffix("/v1"), faults) as proxy:
        run_verifier(_direct(proxy.url + "/v1", max_retries=8), items, log, batch_size=4)
    failed = errors_path(log).read_text().splitlines() if errors_path(log).exists() else []
    # A triple whose calls failed on every retry is recorded, not lost; the run's resume would retry it.
    assert sorted(_ids(log) + [json.loads(line)["id"] for line in failed]) == sorted(i.id for i in items)
    assert len(set(_ids(log))) == len(_ids(log))
    injected = sum(proxy.counts[fault] for fault in ("drop", "error_500", "throttle_429", "malformed"))
    assert injected > 0 and proxy.counts["passed"] >= len(_ids(log))


def test_a_server_that_always_fails_stops_no_run_and_a_resume_completes_it(base_url, tmp_path):
    from agentkgv.core.runner import errors_path, run_verifier
    from agentkgv.llm.base import LLMError
    from agentkgv.llm.fault_proxy import FaultConfig, FaultProxy

    items, log = _triples(4), tmp_path / "run.jsonl"
    with FaultProxy(base_url.removesuffix("/v1"), FaultConfig(throttle_429=1.0, retry_after_s=0.1)) as proxy:
        assert run_verifier(_direct(proxy.url + "/v1", max_retries=1), items, log, batch_size=2) == []
    assert proxy.counts["throttle_429"] >= 2 * len(items)  # each call tried twice: the client retried
    assert sorted(json.loads(line)["id"] for line in errors_path(log).read_text().splitlines()) == sorted(
        i.id for i in items)
    with FaultProxy(base_url.removesuffix("/v1"), FaultConfig(malformed=1.0)) as proxy:
        with pytest.raises(LLMError, match="malformed"):
            _direct(proxy.url + "/v1", max_retries=1).verify(items[:1])
    verdicts = run_verifier(_direct(base_url, max_retries=1), items, log, batch_size=2)
    assert [v.id for v in verdicts] == [i.id for i in items] and sorted(_ids(log)) == sorted(i.id for i in items)


def test_verify_ends_with_its_own_exit_code_naming_the_file_of_failed_triples(base_url, tmp_path, data):
    """A pipeline can tell "all verified" (0) from "some failed, rerun to retry" (3); a run that wrote no
    verdict may restart under other settings."""
    from agentkgv.llm.fault_proxy import FaultConfig, FaultProxy
    from tests.cli_cases import run_cli

    cache, docs = tmp_path / "cache", tmp_path / "docs"
    docs.mkdir()
    (docs / "peiper.txt").write_text("Allan Peiper was born in Alexandra, Victoria, Australia.")
    assert run_cli("index", str(docs), "--name", "mine", cache=cache, data=data.resolve()).returncode == 0
    graph, out = tmp_path / "graph.csv", tmp_path / "verdicts.jsonl"
    graph.write_text("subject,predicate,object\nAllan Peiper,place of birth,Alexandra\nAllan Peiper,sport,cycling\n")

    def verify(url: str):
        config = tmp_path / "run.toml"
        config.write_text(f'[llm]\nbackend = "openai"\nmodel = "smollm2"\nbase_url = "{url}"\nmax_retries = 1\n'
                          'schema_style = "json_object"\n')
        return run_cli("verify", str(graph), "-o", str(out), "--method", "direct", "--config", str(config),
                       "--index", "mine", cache=cache, data=data.resolve())

    with FaultProxy(base_url.removesuffix("/v1"), FaultConfig(throttle_429=1.0, retry_after_s=0.1)) as proxy:
        failed = verify(proxy.url + "/v1")
    said = " ".join((failed.stdout + failed.stderr).split())
    assert failed.returncode == 3 and "2 triples failed" in said and "verdicts.jsonl.errors.jsonl" in said
    assert "Traceback" not in said and out.read_text() == ""
    # Nothing was written under the failed server's settings, so the run starts again on a healthy one.
    done = verify(base_url)
    assert done.returncode == 0, done.stderr
    assert len(out.read_text().splitlines()) == 2
