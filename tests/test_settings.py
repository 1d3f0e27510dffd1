"""Every settings file is read by one loader that refuses unknown keys, naming the file and the key."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from agentkgv.config import RunConfig
from agentkgv.data.benchmark import BenchmarkConfig
from agentkgv.data.errors import DataError
from agentkgv.data.settings import Settings
from agentkgv.train.grpo import GRPOSettings
from agentkgv.train.reader_trainer import ReaderSettings
from agentkgv.train.search_policy import SearchPolicySettings
from agentkgv.train.sft import SFTSettings
from agentkgv.train.teacher import TeacherConfig

CONFIGS = Path(__file__).parents[1] / "configs"
KINDS = {"eval": RunConfig, "ircot": RunConfig, "llm": RunConfig, "sft": SFTSettings, "grpo": GRPOSettings,
         "reader": ReaderSettings, "search": SearchPolicySettings}
SHIPPED = [(path, KINDS[path.name.split("_")[0]]) for path in sorted(CONFIGS.glob("*.toml"))]
BENCHMARK_TOML = resources.files("agentkgv.configs").joinpath("benchmark.toml").read_text()


def test_every_config_file_has_a_settings_model_and_loads():
    assert {path.name for path, _ in SHIPPED} == {path.name for path in CONFIGS.glob("*.toml")}
    for path, kind in SHIPPED:
        assert isinstance(kind.load(path), kind)
    BenchmarkConfig.load()


def with_line(text: str, table: str | None, line: str) -> str:
    """`text` with `line` added at the top level (table None) or at the start of `[table]`."""
    if table is None:
        return f"{line}\n{text}"
    header = f"[{table}]"
    if header not in text:
        return f"{text}\n{header}\n{line}\n"
    return text.replace(header, f"{header}\n{line}", 1)


CASES = ([(path.name, kind, path.read_text(), None) for path, kind in SHIPPED]
         + [("run.toml", RunConfig, "", table) for table in ("agent", "llm", "retriever")]
         + [("grpo.toml", GRPOSettings, "", table) for table in ("run", "run.agent", "run.llm", "run.retriever")]
         + [("benchmark.toml", BenchmarkConfig, BENCHMARK_TOML, None), ("benchmark.toml", BenchmarkConfig, BENCHMARK_TOML, "regimes"),
            ("teacher.toml", TeacherConfig, "", None)])


@pytest.mark.parametrize(("name", "kind", "text", "table"), CASES, ids=[f"{c[0]}:{c[3] or 'top'}" for c in CASES])
def test_a_typo_names_the_file_and_the_key(tmp_path, name: str, kind: type[Settings], text: str, table: str | None):
    path = tmp_path / name
    path.write_text(with_line(text, table, "max_tunrs = 3"))
    with pytest.raises(DataError) as error:
        kind.load(path)
    key = "max_tunrs" if table is None else f"{table}.max_tunrs"
    assert str(path) in str(error.value) and f"field '{key}'" in str(error.value)
    assert error.value.field == key


def test_a_wrong_value_names_the_key_and_a_missing_file_the_file(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text('[agent]\nmax_turns = "many"\n')
    with pytest.raises(DataError, match=r"run.toml: field 'agent.max_turns'"):
        RunConfig.load(path)
    with pytest.raises(DataError, match="nothing.toml"):
        RunConfig.load(tmp_path / "nothing.toml")


def test_a_wrong_option_value_names_the_option():
    from agentkgv.config import RunOptions

    with pytest.raises(DataError, match=r"command line: field '--retriever': Input should be 'bm25'"):
        RunOptions(retriever="bm24").apply(RunConfig())
    with pytest.raises(DataError, match="field '--embedding-model'"):
        RunOptions(embedding_model=3)
    assert RunOptions(retriever="dense", method=None).apply(RunConfig()).retriever.kind == "dense"
