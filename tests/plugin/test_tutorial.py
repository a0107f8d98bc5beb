"""docs/tutorial.md, run as a new user would run it: its files written and its commands run, in order, in an
empty folder, each command's exit status and the lines the tutorial says it prints checked.

How the tutorial marks what this test runs (everything else on the page is prose or untested examples):

* a fenced block whose info string holds ``file=PATH`` is written to ``PATH`` (a later one overwrites it);
* a ``console`` block holds commands (``$ ...``), each followed by lines it must print: each such line, its
  spaces squeezed, must be part of one line of the output. Every command must exit 0, except the block's last
  when the info string says ``exit=N``.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

TUTORIAL = Path(__file__).resolve().parents[2] / "docs" / "tutorial.md"
_FENCE = re.compile(r"^```(?P<info>[^\n]*)\n(?P<body>.*?)^```$", re.MULTILINE | re.DOTALL)


@dataclass
class Command:
    line: str
    expected: list[str] = field(default_factory=list)
    status: int = 0


@dataclass
class Step:
    file: str | None = None  # a file to write ...
    text: str = ""
    commands: list[Command] = field(default_factory=list)  # ... or commands to run


def steps(markdown: str) -> list[Step]:
    found: list[Step] = []
    for match in _FENCE.finditer(markdown):
        words = match["info"].split()
        options = dict(word.split("=", 1) for word in words[1:] if "=" in word)
        if "file" in options:
            found.append(Step(file=options["file"], text=match["body"]))
        elif words[:1] == ["console"]:
            commands: list[Command] = []
            for line in match["body"].splitlines():
                if line.startswith("$ "):
                    commands.append(Command(line[2:]))
                elif line.strip():
                    commands[-1].expected.append(line)
            commands[-1].status = int(options.get("exit", 0))
            found.append(Step(commands=commands))
    return found


def squeeze(text: str) -> str:
    return " ".join(text.split())


def test_the_tutorial_marks_files_commands_and_failures() -> None:
    """The parser sees what the page promises: two files, a failing gate, a failing baseline, the summary."""
    found = steps(TUTORIAL.read_text(encoding="utf-8"))
    files = [s.file for s in found if s.file]
    assert files == ["draw.py", "cases/banners.eval.yaml", "cases/banners.eval.yaml"]
    commands = [c for s in found for c in s.commands]
    assert [c.line for c in commands if c.status] == [
        "pytest cases/ --model=replay:outputs",
        "pytest cases/ --model=replay:outputs --eval-baseline baseline.json --eval-results results.json",
        "visioneval diff baseline.json results.json --markdown summary.md",
    ]
    assert all(shlex.split(c.line)[0] in {"python", "pytest", "visioneval", "head"} for c in commands)


@pytest.mark.parametrize("columns", [80, 200])
@pytest.mark.slow
def test_the_tutorial_runs_as_written(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, columns: int) -> None:
    # The package's own interpreter and console scripts first; no key, no endpoint: everything is offline.
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("COLUMNS", str(columns))
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PYTEST_ADDOPTS", "PYTEST_XDIST_AUTO_NUM_WORKERS"):
        monkeypatch.delenv(name, raising=False)
    page = TUTORIAL.read_text(encoding="utf-8")
    ran = 0
    for step in steps(page):
        if step.file is not None:
            target = pytester.path / step.file
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(step.text, encoding="utf-8")
            continue
        for command in step.commands:
            result = pytester.run("bash", "-c", command.line, timeout=120)
            output = result.outlines + result.errlines
            shown = "\n".join(output)
            assert result.ret == command.status, f"{command.line}: exit {result.ret}, expected {command.status}\n{shown}"
            lines = [squeeze(line) for line in output]
            for expected in command.expected:
                assert any(squeeze(expected) in line for line in lines), f"{command.line}: no line has {expected!r}\n{shown}"
            ran += 1
    assert ran == sum(line.startswith("$ ") for line in page.splitlines()) == 12  # every command of the page ran
