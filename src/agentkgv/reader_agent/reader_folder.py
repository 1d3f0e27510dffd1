"""A trained reader as it lies in its folder, loaded once: the card (its base and training), the weights'
fingerprint, the calibration fitted on its scores, the relation glosses its claims carry, and how many facts it
learned each relation from. A stop policy trained on its episodes is read against it.

`agentkgv train-reader` writes such a folder; two ship with the package (reader_agent/readers/).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from agentkgv.data.errors import DataError
from agentkgv.reader_agent.calibration import CALIBRATION_FILE, Calibration
from agentkgv.reader_agent.stopping import LearnedStop

WEIGHTS_FILE = "reader.safetensors"
CARD_FILE = "reader.json"
# The relation glosses a reader was trained with (data/predicates.gloss_table), shipped beside its weights.
GLOSSES_FILE = "glosses.json"
# How many facts a reader learned each relation from (by id, label and alias), which routes a relation it
# rarely saw to the reader that reads its gloss (reader_agent/judges.RareRelations).
RELATIONS_FILE = "relations.json"
SHIPPED_READER = "minilm-kgv"
# The shipped reader trained with relation glosses in its claims: the judge of rare and unseen relations.
SHIPPED_GLOSS_READER = "minilm-kgv-gloss"
# The calibration's fields that turn a reader's support into P(true) and a verdict: what a stop policy reads.
SUPPORT_FIELDS = ("weights", "intercept", "true_at", "false_at")


def shipped_reader_dir(name: str = SHIPPED_READER) -> Path:
    return Path(str(resources.files("agentkgv.reader_agent").joinpath("readers", name)))


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


@dataclass(frozen=True)
class ReaderFolder:
    """A reader folder read once; `calibration` is None before `agentkgv train-reader` has fitted one."""

    path: Path
    card: ReaderCard
    calibration: Calibration | None
    glosses: dict[str, str]
    # Facts per relation the reader learned from; None for a folder without relations.json.
    relations: dict[str, int] | None
    # Weights, calibration and glosses by content: what a run log pins (a resume cannot switch readers).
    fingerprint: str
    # The same with only the calibration's support fields: what a stop policy reads, so what it pins. The rest
    # of the calibration (the prior, how much a contradiction or a silence says) can be refitted without
    # retraining the policy.
    support_fingerprint: str

    @staticmethod
    def open(path: Path) -> ReaderFolder:
        path = Path(path)
        weights, calibration_path = path / WEIGHTS_FILE, path / CALIBRATION_FILE
        if not weights.exists():
            raise DataError(weights, "missing: a reader folder holds the weights and calibration `agentkgv train-reader` writes")
        calibration_bytes = calibration_path.read_bytes() if calibration_path.exists() else b""
        weights_bytes = weights.read_bytes()
        glosses_bytes = (path / GLOSSES_FILE).read_bytes() if (path / GLOSSES_FILE).exists() else b""
        support = json.dumps({k: json.loads(calibration_bytes).get(k) for k in SUPPORT_FIELDS},
                             sort_keys=True).encode() if calibration_bytes else b""
        return ReaderFolder(
            path=path, card=ReaderCard.read(path),
            calibration=Calibration.read(path) if calibration_bytes else None,
            glosses=read_glosses(path), relations=_relations(path),
            fingerprint=_digest(weights_bytes, calibration_bytes, glosses_bytes),
            support_fingerprint=_digest(weights_bytes, support, glosses_bytes))

    @staticmethod
    def shipped(name: str = SHIPPED_READER) -> ReaderFolder:
        return ReaderFolder.open(shipped_reader_dir(name))

    @property
    def calibrated(self) -> Calibration:
        """The calibration, which deciding anything needs."""
        if self.calibration is None:
            raise DataError(self.path / CALIBRATION_FILE, "no calibration here: `agentkgv train-reader` writes it after training")
        return self.calibration

    def learned(self) -> dict[str, int]:
        """The facts per relation, which routing rare relations to another reader needs."""
        if self.relations is None:
            raise DataError(self.path / RELATIONS_FILE, "missing: `agentkgv train-reader` writes how many facts the reader "
                                                        "learned each relation from; without it, set `rare_below = 0` so this "
                                                        "reader judges every relation")
        return self.relations

    def stop_policy(self, path: Path, budget: int) -> LearnedStop:
        """The stop policy at `path`, refused unless trained on this reader's scores with this search budget."""
        return LearnedStop.read(path).check(path, self.support_fingerprint, budget)


def _digest(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part)
    return digest.hexdigest()[:16]


def _relations(folder: Path) -> dict[str, int] | None:
    path = folder / RELATIONS_FILE
    if not path.exists():
        return None
    counts = json.loads(path.read_text())
    if not isinstance(counts, dict) or not all(isinstance(v, int) and v >= 0 for v in counts.values()):
        raise DataError(path, "expected an object of predicate -> count of facts")
    return counts


def read_glosses(folder: Path) -> dict[str, str]:
    """The glosses a reader was trained with; a reader trained without them reads bare claims."""
    path = folder / GLOSSES_FILE
    if not path.exists():
        return {}
    glosses = json.loads(path.read_text())
    if not isinstance(glosses, dict) or not all(isinstance(v, str) for v in glosses.values()):
        raise DataError(path, "expected an object of predicate -> gloss strings")
    return glosses


def save_relations(folder: Path, counts: dict[str, int]) -> None:
    (folder / RELATIONS_FILE).write_text(json.dumps(counts, indent=0, sort_keys=True) + "\n")
