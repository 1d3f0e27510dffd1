"""The reader agent's settings: its readers, search budget, routing of rare relations, what absence means, and
what runs the readers' network."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from agentkgv.data.settings import Settings
from agentkgv.reader_agent.absence import DEFAULT_COVERAGE
from agentkgv.reader_agent.runtime import Runtime

QUERY_ORDER = ("s,p,o", "s", "s,p'", "s,p',o", "s,p")


class ReadingConfig(Settings):
    # A reader folder written by `agentkgv train-reader` (weights, card, calibration); None: the shipped one
    # (reader_agent/build.Readers opens it).
    reader: Path | None = None
    # Searches per triple at most: each one a query of the table not asked yet.
    max_searches: int = Field(3, ge=1, le=len(QUERY_ORDER))
    top_k: int = Field(5, ge=1)
    # Passages cited with a verdict: the best-supported ones.
    max_cited: int = Field(2, ge=1)
    # A stop policy trained by `agentkgv train-search-policy` on `reader`'s episodes; None: stop once the triple
    # is settled true.
    stop_policy: Path | None = None
    # Relations `reader` learned from fewer than this many facts go to `rare_reader`; 0: `reader` judges all.
    # Chosen on pairs no reader trained on, where the gloss reader ranked relations of 10 or more facts worse.
    rare_below: int = Field(10, ge=0)
    # The judge of those relations, with its own calibration; None: the shipped reader trained with glosses.
    rare_reader: Path | None = None
    # A stop policy trained on `rare_reader`'s episodes (`train-search-policy --reader`); None: the settled rule.
    # A policy reads its own reader's scores, so each judge stops by its own.
    rare_stop_policy: Path | None = None
    # What a triple that no passage read supports or contradicts is (reader_agent/absence.py): "false" where the
    # corpus holds the evidence of every true triple, as the benchmark's does; "unknown" where it need not, as
    # a user's documents: not enough evidence, P(true) from `prior`. None: "false" on the built-in corpus,
    # "unknown" on a document index (`verify --index`).
    absence: Literal["false", "unknown"] | None = None
    # P(true) of a triple the documents say nothing about, where absence is "unknown": the share of true
    # triples a user expects in their graph. Never near 0 or 1, since nothing was read. None: the prior the
    # reader's calibration holds (`agentkgv learn` fits one from reviews), else an even 0.5.
    prior: float | None = Field(None, ge=0.05, le=0.95)
    # The share of true triples the documents state, where absence is "unknown": the weight at which the
    # calibration's silence rates for documents that lack and that hold a triple's evidence are mixed
    # (reader_agent/absence.py). 0: silence says nothing; near 1: the corpus is nearly complete (absence "false" is
    # the complete case). An even 0.5 by default: a user's documents state some of their graph, and which is
    # not known.
    coverage: float = Field(DEFAULT_COVERAGE, ge=0.0, lt=1.0)
    # Relations with one value per subject besides the shipped table's (reader_agent/one_valued.json), by name or
    # id: another value a passage states for them contradicts the triple.
    one_valued: tuple[str, ...] = ()
    # Relations the shipped table counts as one-valued whose subjects have several values in this graph, by name or
    # id as the triples write it: another value a passage states for them excludes nothing, and speaks against the
    # triple only where nothing supports it, as another of several values (reader_agent/contradiction.py).
    many_valued: tuple[str, ...] = ()
    # Values a passage states in the object's place that are read as a possible contradiction, per passage.
    other_values: int = Field(3, ge=0)
    # What runs the readers' network (reader_agent/runtime.py): ONNX Runtime, twice as fast on a CPU with the
    # same scores to 1e-5, or PyTorch. How a run is run, not what it decides: a run log does not pin it.
    runtime: Runtime = "onnxruntime"
    # The model of the kinds of value each relation takes (reader_agent/value_kinds.py), a folder written by
    # `agentkgv train-value-kinds`: a claim with a value its relation does not take is false unsearched. None:
    # the shipped one; "none": every claim is searched and read.
    value_kinds: Path | Literal["none"] | None = None
    # The value reader (reader_agent/value_reader.py), a folder written by `agentkgv train-value-reader`: the value a
    # passage gives for the subject and relation, whose other value contradicts a one-valued relation's claim, or
    # speaks against another's as another of several. None: the shipped one; "none": only the names the facts files
    # know, the pages' key-value lines, and dates and numbers, contradict.
    value_reader: Path | Literal["none"] | None = None

    @model_validator(mode="after")
    def _routed(self) -> ReadingConfig:
        if not self.rare_below and (self.rare_reader is not None or self.rare_stop_policy is not None):
            raise ValueError("rare_reader and rare_stop_policy judge the relations under rare_below, which is 0")
        return self
