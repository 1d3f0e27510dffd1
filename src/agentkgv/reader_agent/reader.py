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

import functools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from agentkgv.core.evidence_view import PassageView, view_passage
from agentkgv.cpu import native_bf16
from agentkgv.data.documents import document_path
from agentkgv.data.errors import DataError
from agentkgv.data.predicates import by_predicate
from agentkgv.data.records import Passage, Triple
from agentkgv.encoders import MINILM_BASE, base_model_path, transformers_quiet
from agentkgv.paths import cache_dir
from agentkgv.reader_agent.reader_folder import CARD_FILE, GLOSSES_FILE, WEIGHTS_FILE, ReaderCard, ReaderFolder
from agentkgv.reader_agent.runtime import OnnxReaderNetwork, Runtime, onnxruntime_available

# Words of a passage the reader sees: the window around the mentions, wider than the LLM's since a
# cross-encoder of 128 tokens reads it whole.
READER_WORDS = 40
MAX_TOKENS = 128


def claim_text(triple: Triple, gloss: str = "") -> str:
    """`subject | predicate (what the relation means) | object`: the gloss lets the reader judge a relation it
    never trained on by its meaning rather than its name."""
    predicate = f"{triple.predicate} ({gloss})" if gloss else triple.predicate
    return f"{triple.subject} | {predicate} | {triple.object}"


def gloss_of(glosses: dict[str, str], triple: Triple) -> str:
    """The relation's gloss; "" when none is known."""
    return by_predicate(glosses, triple, "")


def reader_view(triple: Triple, text: str) -> PassageView:
    return _view(text, triple.subject, triple.object, triple.subject_aliases, triple.object_aliases)


def names_subject(triple: Triple, text: str) -> bool:
    """Whether `text` names the triple's subject, as its reader's view would mark it; not cached: a passage's
    sentences and headings, each asked once, would crowd the turn's views out of `_view`'s cache."""
    return view_passage(text, triple.subject, triple.object, READER_WORDS, triple.subject_aliases,
                        triple.object_aliases).has_subject


# A turn asks each passage's view of a claim several times (for its score, the values it gives, its support); the
# cache holds a turn's batch (64 triples' passages) and the few claims with another value read beside them.
@functools.lru_cache(maxsize=4096)
def _view(text: str, subject: str, obj: str, subject_aliases: tuple[str, ...],
          object_aliases: tuple[str, ...]) -> PassageView:
    return view_passage(text, subject, obj, READER_WORDS, subject_aliases, object_aliases)


def judged_title(passage: Passage) -> str:
    """The title the judges read a passage under: a user document's with its file's name ("heading (file name)", or the
    file name alone). The readers were calibrated and measured so, and on web pages the file's name keeps a page that
    merely names both ends from reading as support (BENCHMARKS.md, *the user index's titles*: FactBench's own pages
    lose 0.018 macro-F1 without it). The value reader reads the heading alone: a file name kept it from finding the
    value a page states."""
    if not passage.source.startswith("doc:"):
        return passage.title
    name = Path(document_path(passage.source)).name
    if passage.title == name or passage.title.endswith(f"({name})"):
        return passage.title  # an index built before its passages' titles left the file out
    return f"{passage.title} ({name})" if passage.title else name


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


def frozen(name: str) -> bool:
    """The word-embedding table: frozen in training and so never shipped (the base's copy is used)."""
    return name.endswith("embeddings.word_embeddings.weight")


def base_cross_encoder(base: str = MINILM_BASE):
    """The base encoder with a fresh one-logit head. transformers reports the head as missing weights, and
    sentence-transformers that it converts a sentence encoder into a cross-encoder: both are the point
    (training or the saved reader fills the head), so the reports are kept off the user's terminal."""
    import torch
    from sentence_transformers import CrossEncoder

    with transformers_quiet():
        return CrossEncoder(base_model_path(base), num_labels=1, max_length=MAX_TOKENS, device="cpu",
                            activation_fn=torch.nn.Identity())


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
    ONNX Runtime where it can be (reader_agent/runtime.py), else by PyTorch."""

    def __init__(self, folder: ReaderFolder, batch_size: int = 64, runtime: Runtime = "onnxruntime",
                 cache: Path | None = None):
        """`cache`: the folder its ONNX export is kept in (None: the default cache folder)."""
        self.card = folder.card
        self.name = self.card.name
        self.batch_size = batch_size
        self.model = load_reader_weights(base_cross_encoder(self.card.base), folder.path)
        self.model.model.eval()
        self.glosses = folder.glosses
        # A reader trained in bf16 reads in bf16 where the CPU multiplies it natively (elsewhere emulated bf16
        # is several times slower than fp32): its calibration was fitted on bf16 scores too.
        self.bf16 = bool(self.card.training.get("settings", {}).get("bf16")) and native_bf16()
        self.onnx = None
        if runtime == "onnxruntime" and not self.bf16 and onnxruntime_available():
            self.onnx = OnnxReaderNetwork(self.model, folder.path / WEIGHTS_FILE, cache or cache_dir())

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
