"""The value reader: for (subject, relation) and a passage, the span the passage gives as the relation's value
for that subject, or none.

Extractive question answering (a MiniLM-L6 encoder with a start/end head, transformers'
`AutoModelForQuestionAnswering`): the question is `subject | relation`, the context the passage with its
title. A span is kept where its start and end scores beat the no-answer position's (the [CLS] token) by
`margin`; "Fennimore was born in Dunholt" gives `Dunholt` for Fennimore's place of birth, a key-value line
"Population 19,450" gives `19,450`, and "Fennimore died in Dunholt" gives nothing for the birth. The agent
compares the span with the triple's object (reader_agent/agent.py): another value of a one-valued relation is a
contradiction to be confirmed. Trained on this CPU by `agentkgv train-value-reader` (train/value_reader.py);
shipped in `readers/minilm-value`, its frozen word embeddings left out as the evidence readers' are.
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import lru_cache
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agentkgv.data.errors import DataError
from agentkgv.data.trex_json import sentence_spans
from agentkgv.encoders import MINILM_BASE, base_model_path, transformers_quiet
from agentkgv.reader_agent.reader import frozen

SHIPPED_VALUE_READER = "minilm-value"
WEIGHTS_FILE = "value_reader.safetensors"
CARD_FILE = "value_reader.json"
MAX_TOKENS = 192
MAX_SPAN_TOKENS = 12
# What a span's ends lose: punctuation and quotes around the value.
_EDGES = " ,.;:()[]\"'"


def question(subject: str, relation: str) -> str:
    return f"{subject} | {relation}"


def context(text: str, title: str = "") -> str:
    return f"{title}: {text}" if title else text


@dataclass(frozen=True, slots=True)
class Span:
    text: str
    score: float  # start + end logit over the no-answer position's
    start: int = 0  # where it starts in the context read (`context`: the title, then the passage)


def base_value_model(base: str = MINILM_BASE):
    """The base encoder with a fresh start/end head (transformers reports the head as missing: it is what
    training fills), and its fast tokenizer."""
    from transformers import AutoModelForQuestionAnswering, AutoTokenizer

    with transformers_quiet():
        path = base_model_path(base)
        return AutoModelForQuestionAnswering.from_pretrained(path), AutoTokenizer.from_pretrained(path)


def encode(tokenizer, questions: Sequence[str], contexts: Sequence[str]):
    return tokenizer(list(questions), list(contexts), truncation="only_second", max_length=MAX_TOKENS,
                     padding=True, return_offsets_mapping=True, return_tensors="pt")


def ranked_spans(start: np.ndarray, end: np.ndarray, sequence_ids: list[list[int | None]], offsets: np.ndarray,
                 contexts: Sequence[str], margin: float, count: int) -> list[list[Span]]:
    """Per row, up to `count` context spans of at most MAX_SPAN_TOKENS tokens that overlap no better one and cross no
    sentence's end or a semicolon, best first, each kept where it beats [CLS] by `margin`. A value is never two
    sentences' words: "lives in Lembrook. He was born in Dunholt" gives Lembrook or Dunholt, not both run together."""
    found: list[list[Span]] = []
    for row, text in enumerate(contexts):
        inside = np.array([s == 1 for s in sequence_ids[row]])
        spans: list[Span] = []
        if inside.any():
            s, e = np.where(inside, start[row], -np.inf), np.where(inside, end[row], -np.inf)
            scores = s[:, None] + e[None, :]
            band = np.triu(np.ones_like(scores, dtype=bool)) & ~np.triu(np.ones_like(scores, dtype=bool), MAX_SPAN_TOKENS)
            sentence = _sentence_of(offsets[row, :, 0], text)
            band &= sentence[:, None] == sentence[None, :]
            scores = np.where(band, scores, -np.inf)
            no_answer = start[row, 0] + end[row, 0]
            while len(spans) < count:
                i, j = np.unravel_index(int(np.argmax(scores)), scores.shape)
                margin_over = float(scores[i, j] - no_answer)
                if not margin_over > margin:
                    break
                scores[:j + 1, i:] = -np.inf  # every span that shares a token with this one
                # An apposition is no part of the value: "Dunholt, a mill town" gives Dunholt (a place's own
                # region, "Cheltenham, Gloucestershire", is capitalized and stays).
                first = int(offsets[row, i, 0])
                raw = re.split(r",\s+(?=[a-z])", text[first:int(offsets[row, j, 1])])[0]
                value = raw.strip(_EDGES)
                if not value:
                    break  # the best left is punctuation: no value here, as the best span alone would say
                spans.append(Span(value, margin_over, first + len(raw) - len(raw.lstrip(_EDGES))))
        found.append(spans)
    return found


def _sentence_of(starts: np.ndarray, text: str) -> np.ndarray:
    """The index of the sentence of `text`, or of its statement between semicolons, each token (by its start offset)
    falls in: "born 3 May 1921 in Tessaby; died 9 January 1990" is two statements."""
    ends = np.array(sorted({end for _, end in sentence_spans(text)} | {m.end() for m in re.finditer(";", text)}),
                    dtype=np.int64)
    return np.searchsorted(ends, starts.astype(np.int64), side="right")


def best_spans(start: np.ndarray, end: np.ndarray, sequence_ids: list[list[int | None]], offsets: np.ndarray,
               contexts: Sequence[str], margin: float) -> list[Span | None]:
    """Per row, the best context span of at most MAX_SPAN_TOKENS tokens, kept where it beats [CLS] by `margin`."""
    return [spans[0] if spans else None
            for spans in ranked_spans(start, end, sequence_ids, offsets, contexts, margin, count=1)]


def value_reader_fingerprint(folder: Path) -> str:
    """The value reader's content digest, which a run log pins; a folder without one is refused here."""
    paths = [folder / CARD_FILE, folder / WEIGHTS_FILE]
    for path in paths:
        if not path.exists():
            raise DataError(path, "no value reader here: `agentkgv train-value-reader` writes it")
    return hashlib.sha256(b"".join(p.read_bytes() for p in paths)).hexdigest()[:16]


@lru_cache(maxsize=2)
def load_value_reader(folder: Path) -> ValueReader:
    """The value reader of `folder`, loaded once per process: every verifier a run builds shares it."""
    return ValueReader(folder)


class ValueReader:
    name = "value-reader"

    def __init__(self, folder: Path, batch_size: int = 32):
        from safetensors.torch import load_file

        card_path, weights_path = folder / CARD_FILE, folder / WEIGHTS_FILE
        self.fingerprint = value_reader_fingerprint(folder)
        try:
            card = json.loads(card_path.read_text(encoding="utf-8"))
            self.margin = float(card["margin"])
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as error:
            raise DataError(card_path, f"not a value-reader card: {error!r}") from None
        self.model, self.tokenizer = base_value_model(card.get("base", MINILM_BASE))
        weights = {k: v.float() for k, v in load_file(str(weights_path)).items()}
        missing, unexpected = self.model.load_state_dict(weights, strict=False)
        if unexpected or any(not frozen(k) for k in missing):
            raise DataError(weights_path, "weights do not fit the base model")
        self.model.eval()
        self.batch_size = batch_size

    def read(self, asked: Sequence[tuple[str, str, str, str]], count: int = 1) -> list[list[Span]]:
        """`asked`: (subject, relation, passage text, passage title); the values each passage gives, up to `count`
        that share no word, best first."""
        import torch

        found: list[list[Span]] = []
        for first in range(0, len(asked), self.batch_size):
            batch = asked[first:first + self.batch_size]
            contexts = [context(text, title) for _, _, text, title in batch]
            encoded = encode(self.tokenizer, [question(s, r) for s, r, _, _ in batch], contexts)
            offsets = encoded.pop("offset_mapping").numpy()
            ids = [encoded.sequence_ids(i) for i in range(len(batch))]
            with torch.inference_mode():
                out = self.model(**encoded)
            found += ranked_spans(out.start_logits.float().numpy(), out.end_logits.float().numpy(), ids, offsets,
                                  contexts, self.margin, count)
        return found


def save_value_reader(model, folder: Path, card: dict) -> None:
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    save_file({k: v.detach().to("cpu").half().contiguous() for k, v in model.state_dict().items() if not frozen(k)},
              str(folder / WEIGHTS_FILE))
    (folder / CARD_FILE).write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
