"""The reader agent a run's reading settings name: its reader folders, opened once, and the agent built from them."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from agentkgv.reader_agent.agent import ReadingAgent
from agentkgv.reader_agent.config import ReadingConfig
from agentkgv.reader_agent.judges import RareRelations, ReaderJudge
from agentkgv.reader_agent.reader import CrossEncoderReader
from agentkgv.reader_agent.reader_folder import SHIPPED_GLOSS_READER, SHIPPED_READER, ReaderFolder, shipped_reader_dir
from agentkgv.reader_agent.relation_facts import RelationFacts, shipped_table
from agentkgv.reader_agent.stopping import policy_fingerprint
from agentkgv.reader_agent.value_kinds import ValueKinds, shipped_value_kinds
from agentkgv.reader_agent.value_reader import SHIPPED_VALUE_READER, load_value_reader, value_reader_fingerprint
from agentkgv.retrieval.base import Retriever
from agentkgv.retrieval.guard import DistrustedSource


@dataclass(frozen=True)
class Readers:
    """The folders of the readers a run judges with: the main one, and the one of rare relations unless the main
    reader judges every relation."""

    main: ReaderFolder
    rare: ReaderFolder | None
    kinds: ValueKinds | None = None
    values: Path | None = None  # the value reader's folder
    cache: Path | None = None  # where the readers' ONNX exports go (None: the default cache folder)

    @staticmethod
    def open(config: ReadingConfig, cache: Path | None = None) -> Readers:
        """The folders `config` names (the shipped ones where it names none), refused now, before anything else
        loads, if one has no calibration to decide with. `cache`: the run's cache folder."""
        readers = Readers(ReaderFolder.open(config.reader or shipped_reader_dir(SHIPPED_READER)),
                          ReaderFolder.open(config.rare_reader or shipped_reader_dir(SHIPPED_GLOSS_READER))
                          if config.rare_below else None,
                          None if config.value_kinds == "none" else ValueKinds.open(config.value_kinds or shipped_value_kinds()),
                          None if config.value_reader == "none" else config.value_reader or shipped_reader_dir(SHIPPED_VALUE_READER),
                          cache)
        for folder in filter(None, (readers.main, readers.rare)):
            folder.calibrated  # raises DataError naming the missing file
        return readers

    def pins(self, config: ReadingConfig) -> dict[str, str]:
        """What decides the verdicts besides the settings, by content, which a run log pins (a resume cannot switch
        readers or policies): the readers, the relation counts that route rare relations, the shipped table of
        relations another value contradicts (reader_agent/one_valued.json), and the stop policies."""
        pins = {"reader": self.main.fingerprint,
                "one_valued": hashlib.sha256(shipped_table().read_bytes()).hexdigest()[:16]}
        if self.rare is not None:
            pins["rare_reader"] = self.rare.fingerprint
            pins["relations"] = hashlib.sha256(json.dumps(self.main.learned(), sort_keys=True).encode()).hexdigest()[:16]
        if self.kinds is not None:
            pins["value_kinds"] = self.kinds.fingerprint
        if self.values is not None:
            pins["value_reader"] = value_reader_fingerprint(self.values)
        for name, path in (("stop_policy", config.stop_policy), ("rare_stop_policy", config.rare_stop_policy)):
            if path is not None:
                pins[name] = policy_fingerprint(path)
        return pins


def judge(folder: ReaderFolder, config: ReadingConfig, stop_policy: Path | None, cache: Path | None) -> ReaderJudge:
    """The folder's reader with its calibration, and the stop policy trained on its scores (None: the settled rule)."""
    stop = folder.stop_policy(stop_policy, config.max_searches) if stop_policy is not None else None
    return ReaderJudge(CrossEncoderReader(folder, runtime=config.runtime, cache=cache), folder.calibrated, stop)


def build(config: ReadingConfig, readers: Readers, retriever: Retriever, paraphrases: dict[str, list[str]],
          relations: RelationFacts | None = None, distrusted: DistrustedSource = DistrustedSource(())) -> ReadingAgent:
    rare = None
    if readers.rare is not None:
        rare = RareRelations(judge(readers.rare, config, config.rare_stop_policy, readers.cache), readers.main.learned(),
                             config.rare_below)
    return ReadingAgent(retriever, judge(readers.main, config, config.stop_policy, readers.cache), paraphrases, config, rare,
                        relations, distrusted, readers.kinds,
                        load_value_reader(readers.values) if readers.values and config.other_values else None)
