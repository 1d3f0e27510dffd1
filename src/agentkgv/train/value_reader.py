"""Training the value reader (reader_agent/value_reader.py) on this CPU, from the evidence reader's own pairs.

Its examples come from the pairs `agentkgv train-reader` builds (train/reader_data.py, reader_corpora.py,
web_forms.py), so they carry the same exclusions (no test triple, no FactBench or test entity pair, no held-out
relation or subject):
- a true pair (a training or corpus sentence, a web page's key-value line, list or table row) is asked
  `subject | relation`, its answer the object where the text names it (by label or alias);
- a relation swap (the same text, another relation asked: a `Place of death` line asked the birth place), a key
  edit and a page about another subject are asked the same and have no answer: what teaches the reader to
  read the relation, not the names.
One pass over them with the word embeddings frozen; the no-answer margin is chosen on the pairs of held-out
subjects: the least margin at which `min_precision` of the spans it keeps are the labelled value. The labels
undercount: a relation swap's text may well state the relation asked, of another value ("UAL Corporation |
headquarters location" asked of a passage that gives Chicago), so 65% is asked, not more; the evidence reader
confirms each value the agent takes from it. At 65% (margin 0) the shipped reader finds 48% of the held-out values,
at 70% (margin 0.5) 41%, and the agent then finds more of the T-REx splits' wrong triples with no more true ones
called false (BENCHMARKS.md, *Finding the wrong triples*).
"""

from __future__ import annotations

import math
import random
import re
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agentkgv.data.settings import Settings
from agentkgv.reader_agent.reader import frozen
from agentkgv.reader_agent.value_reader import (MAX_TOKENS, base_value_model, best_spans, context, encode,
                                                question)
from agentkgv.data.text import label_key
from agentkgv.train.reader_data import ReaderPair

ANSWERED = ("evidence", "web_evidence")
UNANSWERED = ("relation_swap", "web_relation_swap", "web_key_edit", "web_other_subject")


class ValueReaderSettings(Settings):
    epochs: float = 1.0
    batch_size: int = 32
    learning_rate: float = 5e-5
    warmup_ratio: float = 0.1
    held_out_share: float = 0.1
    max_examples: int = 12000
    max_held_out: int = 2000
    min_precision: float = 0.65
    bf16: bool = True
    seed: int = 13


def held_out_subject(name: str, share: float) -> bool:
    """A subject whose examples choose the margin. Salted: the reader's pairs already leave out the subjects its
    own held-out draw (`reader_data.held_out_name`) takes."""
    return zlib.crc32(f"value reader {label_key(name)}".encode()) % 1000 < share * 1000


@dataclass(frozen=True, slots=True)
class ValueExample:
    question: str
    context: str
    answer: tuple[int, int] | None  # character span in the context
    subject: str


def value_examples(pairs: Sequence[ReaderPair]) -> list[ValueExample]:
    """An example for each true pair whose text names its object, and for each relation swap, key edit or page
    about another subject."""
    examples = []
    for pair in pairs:
        t, text = pair.triple, context(pair.text, pair.title)
        if pair.kind in ANSWERED and pair.label > 0.5:
            match = next((m for name in sorted(t.object_names, key=len, reverse=True) if name.strip()
                          for m in [re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text, re.IGNORECASE)] if m), None)
            if match is not None:
                examples.append(ValueExample(question(t.subject, t.predicate), text, match.span(), t.subject))
        elif pair.kind in UNANSWERED and pair.label < 0.5:
            examples.append(ValueExample(question(t.subject, t.predicate), text, None, t.subject))
    return examples


def _targets(encoded, examples: Sequence[ValueExample]):
    """Start and end token of each answer ([CLS], 0, where there is none or truncation cut it)."""
    import torch

    starts, ends = [], []
    for row, example in enumerate(examples):
        start = end = None
        if example.answer is not None:
            a, b = example.answer
            ids, offsets = encoded.sequence_ids(row), encoded["offset_mapping"][row].tolist()
            for i, (s, e) in enumerate(offsets):
                if ids[i] == 1 and e > s:
                    start = i if start is None and e > a else start
                    end = i if s < b else end
            whole = start is not None and end is not None and offsets[start][0] <= a and offsets[end][1] >= b
            start, end = (start, end) if whole else (None, None)
        starts.append(start or 0)
        ends.append(end or 0)
    return torch.tensor(starts), torch.tensor(ends)


def train_value_reader(pairs: Sequence[ReaderPair], settings: ValueReaderSettings,
                       progress: Callable[[int, int, float], None] = lambda step, steps, loss: None):
    """The trained model, its chosen margin and what it measured on held-out subjects."""
    import torch

    from agentkgv.cpu import native_bf16

    rng = random.Random(settings.seed)
    examples = value_examples(pairs)
    held = [e for e in examples if held_out_subject(e.subject, settings.held_out_share)]
    train = [e for e in examples if not held_out_subject(e.subject, settings.held_out_share)]
    rng.shuffle(train)
    rng.shuffle(held)
    train, held = train[:settings.max_examples], held[:settings.max_held_out]
    model, tokenizer = base_value_model()
    for name, parameter in model.named_parameters():
        parameter.requires_grad = not frozen(name)
    steps = math.ceil(len(train) * settings.epochs / settings.batch_size)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=settings.learning_rate)
    warmup = max(1, int(settings.warmup_ratio * steps))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min((step + 1) / warmup, max(0.0, (steps - step) / max(1, steps - warmup))))
    bf16 = settings.bf16 and native_bf16()
    model.train()
    started = time.perf_counter()
    for step in range(steps):
        batch = [train[(step * settings.batch_size + i) % len(train)] for i in range(settings.batch_size)]
        encoded = encode(tokenizer, [e.question for e in batch], [e.context for e in batch])
        starts, ends = _targets(encoded, batch)
        encoded.pop("offset_mapping")
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            loss = model(**encoded, start_positions=starts, end_positions=ends).loss
        loss.backward()
        optimizer.step()
        schedule.step()
        optimizer.zero_grad()
        progress(step + 1, steps, float(loss.detach()))
    model.eval()
    margin, measured = choose_margin(model, tokenizer, held, settings.min_precision)
    measured.update(examples=len(train), held_out=len(held), steps=steps,
                    seconds=round(time.perf_counter() - started, 1), bf16=bf16, max_tokens=MAX_TOKENS)
    return model, margin, measured


def choose_margin(model, tokenizer, held: Sequence[ValueExample], min_precision: float) -> tuple[float, dict]:
    """The least margin over the no-answer score at which `min_precision` of the held-out spans kept are the
    answer (a span overlapping it); with the share of answers found and of unanswerable pairs given a span."""
    import torch

    rows = []
    for first in range(0, len(held), 64):
        batch = held[first:first + 64]
        encoded = encode(tokenizer, [e.question for e in batch], [e.context for e in batch])
        offsets = encoded.pop("offset_mapping").numpy()
        ids = [encoded.sequence_ids(i) for i in range(len(batch))]
        with torch.inference_mode():
            out = model(**encoded)
        spans = best_spans(out.start_logits.float().numpy(), out.end_logits.float().numpy(), ids, offsets,
                           [e.context for e in batch], -math.inf)
        for example, span in zip(batch, spans):
            right = span is not None and example.answer is not None and span.text.lower() in example.context[
                max(0, example.answer[0] - 2):example.answer[1] + 2].lower()
            rows.append((span.score if span is not None else -math.inf, example.answer is not None, right))
    answered = max(1, sum(a for _, a, _ in rows))
    unanswered = max(1, sum(not a for _, a, _ in rows))
    for margin in [x / 2 for x in range(-4, 21)]:
        kept = [(a, r) for s, a, r in rows if s > margin]
        precision = sum(r for _, r in kept) / max(1, len(kept))
        if precision >= min_precision:
            return margin, {"margin": margin, "precision": round(precision, 3),
                            "answers_found": round(sum(r for _, r in kept) / answered, 3),
                            "unanswerable_given_a_span": round(sum(not a for a, _ in kept) / unanswered, 3)}
    return 10.0, {"margin": 10.0, "precision": None}
