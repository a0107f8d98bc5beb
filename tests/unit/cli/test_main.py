"""cli/main.py: ``visioneval COMMAND`` and ``python -m pytest_visioneval COMMAND`` reach every command, as a user runs them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_visioneval.cli.main import COMMANDS


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=120, check=False)


def test_no_command_prints_the_commands_and_fails() -> None:
    result = run("-m", "pytest_visioneval")
    assert result.returncode == 2
    for name in COMMANDS:
        assert name in result.stdout


def test_unknown_command_is_refused() -> None:
    result = run("-m", "pytest_visioneval", "difff")
    assert result.returncode == 2
    assert "unknown command 'difff' (did you mean 'diff'?)" in result.stderr


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_answers_help(command: str) -> None:
    result = run("-m", "pytest_visioneval", command, "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage:")


@pytest.mark.parametrize("module", ["diff", "compare", "pairwise", "merge", "html", "agreement", "cookbook_tags", "cdn"])
def test_each_command_module_runs_on_its_own(module: str) -> None:
    result = run("-m", f"pytest_visioneval.cli.{module}", "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"usage: visioneval {module.replace('_', '-')} ")


VISIONEVAL = str(Path(sys.executable).with_name("visioneval"))


@pytest.mark.parametrize("columns", [80, 200])
def test_the_console_script_lists_every_command_on_one_line_each(columns: int) -> None:
    result = subprocess.run(
        [VISIONEVAL, "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "COLUMNS": str(columns)},
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "usage: visioneval [-h] COMMAND ..."
    start = lines.index("commands:")
    listed = lines[start + 1 : start + 1 + len(COMMANDS)]
    assert [line.split()[0] for line in listed] == list(COMMANDS)
    for line, (name, (_, what)) in zip(listed, COMMANDS.items(), strict=True):
        assert line == f"  {name:<17}{what}" and len(line) <= 80
    assert "``" not in result.stdout


@pytest.mark.parametrize("command", ["diff", "compare"])
def test_a_commands_help_through_the_console_script_is_plain_text(command: str) -> None:
    result = subprocess.run([VISIONEVAL, command, "--help"], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"usage: visioneval {command} [-h]")
    assert "``" not in result.stdout and ":func:" not in result.stdout
