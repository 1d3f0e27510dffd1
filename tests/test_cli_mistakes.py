"""Every mistake in tests/cli_cases.py, run as the real command: a message naming the path or option and
what to do, the exit code a pipeline can act on, and never a traceback."""

from __future__ import annotations

import pytest

from tests.cli_cases import CASES, message, run_case, stage


@pytest.fixture(scope="module")
def root(tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("mistakes")
    stage(folder, data.resolve())
    return folder


@pytest.mark.parametrize("case", CASES, ids=[f"{c.command}: {c.name}" for c in CASES])
def test_a_mistake_gets_a_message_and_an_exit_code_not_a_traceback(case, root, data):
    result = run_case(case, root, data.resolve())
    output = result.stderr + result.stdout
    assert "Traceback" not in output, output
    assert result.returncode == case.code, output
    assert case.words.lower() in " ".join(output.lower().split()), output  # rich wraps long lines
    assert message(result), output


def test_there_are_mistakes_of_every_command_the_issue_names():
    assert len(CASES) >= 25 and {c.command for c in CASES} >= {"verify", "index", "export", "learn", "report"}
