"""Train the evidence reader on a CPU: sentence-transformers' CrossEncoderTrainer over the pairs of
`reader_data`, binary cross-entropy on the support logit, one pass, checkpoints every `save_steps` so an
interrupted run resumes where it stopped, and a loss curve.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import Literal

from pydantic import Field

from agentkgv.data.predicates import PredicateInfo, by_name
from agentkgv.data.settings import Settings
from agentkgv.encoders import MINILM_BASE, transformers_quiet
from agentkgv.reader_agent.reader import (base_cross_encoder, claim_text, gloss_of, frozen, load_reader_weights,
                                          passage_text, save_reader)
from agentkgv.reader_agent.reader_folder import ReaderCard
from agentkgv.train.reader_data import ReaderPair, kind_counts
from agentkgv.train.sft import last_checkpoint, plot_losses


class ReaderSettings(Settings):
    name: str = "minilm-kgv"
    # The encoder trained from (reader_agent/reader.py): MiniLM-L6, or mpnet-base, which reads with twice the layers
    # and width at about 4x the cost.
    base: Literal["all-MiniLM-L6-v2", "all-mpnet-base-v2"] = MINILM_BASE
    # bf16 autocast in training: on a CPU with native bf16 (AMX, AVX-512 bf16) about 2.5x faster.
    bf16: bool = False
    epochs: float = Field(1.0, gt=0)
    batch_size: int = Field(32, ge=1)
    learning_rate: float = Field(5e-5, gt=0)
    # Share of the steps spent warming up: passed as a float `warmup_steps`, which transformers reads as a ratio.
    warmup_ratio: float = Field(0.1, ge=0, lt=1)
    save_steps: int = Field(100, ge=1)
    # Share of the training subjects held out of the reader's pairs, to calibrate its verdicts on; the same
    # share of TekGen's relations is held out, to measure the reading of relations it never trained on.
    held_out_share: float = Field(0.15, gt=0, lt=1)
    # Evidence pairs per relation drawn from Re-DocRED, FewRel and TekGen (agentkgv.train.reader_corpora);
    # 0 = none.
    redocred_per_relation: int = Field(120, ge=0)
    fewrel_per_relation: int = Field(150, ge=0)
    tekgen_per_relation: int = Field(0, ge=0)
    # Share of the positives given a relation-swap negative: from the training split, and from the corpora.
    split_swap_share: float = Field(0.35, ge=0, le=1)
    corpus_swap_share: float = Field(0.5, ge=0, le=1)
    # Share of those swaps that take a relation of the same argument types (train/reader_data.py): the
    # property swaps a type check cannot catch.
    compatible_swap_share: float = Field(0.0, ge=0, le=1)
    # The relation's gloss in each claim (data/predicates.relation_gloss): "none" (the shipped reader), or
    # "descriptions" or "paraphrases" (BENCHMARKS.md, *Relation glosses*); a share of the claims goes
    # without, so a predicate no gloss is known for (a user's own) reads as well.
    relation_glosses: Literal["none", "descriptions", "paraphrases"] = "none"
    gloss_dropout: float = Field(0.2, ge=0, le=1)
    # Share of the evidence pairs (training split and corpora) also rendered as web-page forms with their
    # contrastive edits (train/web_forms.py): key-value runs, lists, table rows, prose among boilerplate.
    web_form_share: float = Field(0.0, ge=0, le=1)
    # Share of the evidence pairs also read in a paragraph with another fact's sentence of another relation, its
    # subject written as theirs: the triple (1), and with the other sentence's value (0) (train/paragraphs.py).
    # Above 0, each subject with evidence of several relations also gets a paragraph of its own sentences.
    paragraph_share: float = Field(0.0, ge=0, le=1)
    # A trained reader folder to start from instead of the bare base (a second stage on other pairs).
    init_from: Path | None = None
    # The first pairs of the shuffled set: about 45 minutes of training on 2 cores.
    max_pairs: int | None = Field(32000, ge=1)
    # Held-out training triples read to calibrate the verdicts (a fixed balanced draw).
    calibration_triples: int = Field(2000, ge=20)
    seed: int = 13

    def pair_settings(self) -> dict:
        """The settings that shape the pair set: a cached set built under others is rebuilt."""
        return self.model_dump(include={"held_out_share", "redocred_per_relation", "fewrel_per_relation",
                                        "tekgen_per_relation", "seed", "split_swap_share", "corpus_swap_share",
                                        "compatible_swap_share", "web_form_share", "paragraph_share"}) | {
            "corpora": "no unseen or long-tail relation, no test or FactBench entity pair, no held-out subject",
            "tekgen": "sentences that name the subject; other-subject negatives whose sentence does not name theirs"}

    def trained_pairs(self, pairs: list[ReaderPair]) -> list[ReaderPair]:
        return pairs[:self.max_pairs] if self.max_pairs else pairs


def relation_counts(pairs: list[ReaderPair], predicates: dict[str, PredicateInfo],
                    before: dict[str, int] | None = None, new_facts: bool = False) -> dict[str, int]:
    """The facts a reader learned each relation from (its positive pairs, less the web-page renderings of
    facts they already hold), keyed by id, label and alias (data/predicates.by_name) so a graph that names a
    relation by words finds it too. With `before`, the counts of the reader it continued from: the larger of
    the two where the pairs draw on the facts that reader learned from (a training stage: the same split and
    corpora), the sum where they are `new_facts` (reviewed triples)."""
    ids = by_name(predicates, {pid: pid for pid in predicates})  # a relation named by words counts for its id
    counts = Counter(p.triple.predicate_id or ids.get(p.triple.predicate.lower(), p.triple.predicate.lower())
                     for p in pairs if p.label > 0.5 and p.source != "web")
    learned = Counter(by_name(predicates, dict(counts)))
    return dict(Counter(before or {}) + learned if new_facts else Counter(before or {}) | learned)


def train_reader(pairs: list[ReaderPair], glosses: dict[str, str], run_dir: Path, settings: ReaderSettings,
                 threads: int | None = None) -> dict:
    """Train on the pairs, each claim with its relation's gloss (`glosses`, data/predicates.gloss_table) but
    for a `gloss_dropout` share, then write the reader (fp16 weights, card, glosses) to `run_dir / "reader"`;
    returns the run's record."""
    import random

    import torch
    from datasets import Dataset
    from sentence_transformers.cross_encoder import CrossEncoderTrainer, CrossEncoderTrainingArguments
    from sentence_transformers.cross_encoder.losses import BinaryCrossEntropyLoss

    if threads:
        torch.set_num_threads(threads)
    torch.manual_seed(settings.seed)
    pairs = settings.trained_pairs(pairs)
    bare = random.Random(settings.seed)  # the same claims go bare on a resumed run
    data = Dataset.from_dict({
        "claim": [claim_text(p.triple, "" if bare.random() < settings.gloss_dropout else gloss_of(glosses, p.triple))
                  for p in pairs],
        "passage": [passage_text(p.triple, p.text, p.title) for p in pairs],
        "label": [p.label for p in pairs]})
    model = base_cross_encoder(settings.base)
    if settings.init_from:
        load_reader_weights(model, settings.init_from)
    # Frozen so the reader ships without the 12M-parameter vocabulary table: the base's copy is used.
    for name, parameter in model.model.named_parameters():
        if frozen(name):
            parameter.requires_grad = False
    checkpoints = run_dir / "checkpoints"
    args = CrossEncoderTrainingArguments(
        output_dir=str(checkpoints), num_train_epochs=settings.epochs, per_device_train_batch_size=settings.batch_size,
        learning_rate=settings.learning_rate, warmup_steps=settings.warmup_ratio, save_steps=settings.save_steps,
        save_total_limit=2, logging_steps=20, seed=settings.seed, use_cpu=True, bf16=settings.bf16, report_to="none",
        dataloader_num_workers=0)
    trainer = CrossEncoderTrainer(model=model, args=args, train_dataset=data, loss=BinaryCrossEntropyLoss(model))
    _show_loss_on_the_bar(trainer)
    started = time.perf_counter()
    resume = last_checkpoint(checkpoints)
    with transformers_quiet(warnings=True):  # the training bar (tqdm's own) stays; the per-checkpoint shard bars go
        trainer.train(resume_from_checkpoint=resume)
    seconds = time.perf_counter() - started
    losses = [{"step": r["step"], "loss": r["loss"]} for r in trainer.state.log_history if "loss" in r]
    plot_losses(losses, [], run_dir / "reader_loss.png", title="Evidence reader loss", ylabel="binary cross-entropy")
    record = {"pairs": len(pairs), "kinds": kind_counts(pairs), "seconds": round(seconds, 1),
              "resumed_from": resume, "steps": trainer.state.global_step, "settings": settings.model_dump(mode="json")}
    card = ReaderCard(settings.name, settings.base, record)
    record["bytes"] = save_reader(model, run_dir / "reader", card, glosses)
    (run_dir / "reader_train.json").write_text(json.dumps(record, indent=1) + "\n")
    (run_dir / "reader_losses.json").write_text(json.dumps(losses) + "\n")
    return record


def _show_loss_on_the_bar(trainer) -> None:
    """Keep the trainer's progress bar, with the latest loss beside it, instead of a dict printed under it
    every `logging_steps` (the curve is plotted from the log history at the end)."""
    from transformers.trainer_callback import ProgressCallback

    class LossOnBar(ProgressCallback):
        def on_log(self, args, state, control, logs=None, **kwargs):
            if self.training_bar is not None and logs and "loss" in logs:
                self.training_bar.set_postfix(loss=f"{logs['loss']:.3f}", refresh=False)

    if trainer.pop_callback(ProgressCallback) is not None:  # a notebook's bar, or none, is left as it is
        trainer.add_callback(LossOnBar())
