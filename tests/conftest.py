"""Shared fixtures: the real data folder and a small benchmark built from it once per test session."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# What the tests derive (the readers' ONNX exports among it) goes to the checkout's .cache, as under `make test`,
# never to the user's own cache folder; a test that needs a cache of its own sets one.
os.environ.setdefault("AGENTKGV_CACHE", str(Path(__file__).resolve().parents[1] / ".cache"))

from agentkgv.data.benchmark import BenchmarkConfig, Regimes, build_benchmark
from agentkgv.paths import data_dir

# Relations with small object pools, so the embedding step of the build takes seconds.
SMALL_REGIMES = Regimes(head=["P140", "P1412"], long_tail=["P364", "P413"], unseen=["P407", "P495"])


@pytest.fixture(scope="session")
def data() -> Path:
    path = data_dir()
    if not (path / "lama_trex").is_dir():
        pytest.fail(f"real data not found at {path.resolve()}; set AGENTKGV_DATA")
    return path


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory) -> Path:
    """A 3M-parameter random Llama with SmolLM2's tokenizer and chat template: the real loading, LoRA and
    TRL code paths in a fraction of a second."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from agentkgv.llm import gguf_path

    folder = tmp_path_factory.mktemp("tiny-llama")
    gguf = gguf_path()
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048,
                         tie_word_embeddings=True, bos_token_id=tokenizer.bos_token_id,
                         eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)
    LlamaForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def small_config() -> BenchmarkConfig:
    default = BenchmarkConfig.load()
    return default.model_copy(update={"regimes": SMALL_REGIMES, "positives_per_test_split": 40})


@pytest.fixture(scope="session")
def small_benchmark(data, small_config, tmp_path_factory) -> tuple[Path, list]:
    out = tmp_path_factory.mktemp("benchmark")
    stats = build_benchmark(data, out, small_config)
    return out, stats


@pytest.fixture(scope="session")
def small_passages(data):
    """Restored evidence sentences of the first 200 facts of two relations: a small real corpus."""
    from itertools import islice

    from agentkgv.data.lama import iter_evidence_facts
    from agentkgv.data.records import Passage

    passages = {}
    for relation in ("P19", "P20"):
        for fact in islice(iter_evidence_facts(data, relation, relation), 200):
            for sentence in fact.evidences:
                passages.setdefault(sentence, Passage(Passage.make_id(fact.source, sentence), sentence, "", fact.source))
    return list(passages.values())


@pytest.fixture(scope="session")
def small_bm25(small_passages, tmp_path_factory):
    from agentkgv.retrieval.bm25 import BM25Retriever

    return BM25Retriever.build(small_passages, tmp_path_factory.mktemp("bm25"))


@pytest.fixture
def lexical_cache(tmp_path, small_passages) -> Path:
    """A cache folder with the small corpus and its BM25 index: all `verify --method lexical` needs."""
    from agentkgv.data.jsonl import write_jsonl
    from agentkgv.retrieval.bm25 import BM25Retriever

    cache = tmp_path / "cache"
    write_jsonl(cache / "corpus" / "passages.jsonl",
                ({"id": p.id, "text": p.text, "title": p.title, "source": p.source} for p in small_passages))
    BM25Retriever.build(small_passages, cache / "index" / "bm25")
    return cache
