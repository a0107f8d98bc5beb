"""gc_freeze: a case run freezes its long-lived objects; plain runs and in-process runs are left alone.

The freeze is process-wide, so it is observed in real ``python -m pytest``
processes (``gc.get_freeze_count()`` printed by a conftest), never in this one.
"""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_visioneval.plugin import gc_freeze

# Prints how many objects are frozen after every plugin's collection_finish, at the session's end and at exit.
PROBE = """
import gc
import pytest

@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    print(f"after collection: frozen={gc.get_freeze_count()}")

def pytest_sessionfinish(session):
    print(f"at session end: frozen={gc.get_freeze_count()}")
"""
# Only in a process of its own (registered in this test process, it would print when the suite ends).
AT_EXIT = """
import atexit
atexit.register(lambda: print(f"at exit: frozen={gc.get_freeze_count()}"))
"""
CASES = """
suite: tiny
cases:
  - id: one
    task: image_generation
    prompt: a red square
    reference: red.png
    graders:
      - use: image
"""


def _red_png(folder: Path) -> None:
    from PIL import Image

    image = Image.new("RGB", (64, 64), "white")
    image.paste((200, 20, 20), (16, 16, 48, 48))
    image.save(folder / "red.png")


def _run(folder: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done.stdout


def _frozen(output: str, when: str) -> int:
    line = next(line for line in output.splitlines() if f"{when}: frozen=" in line)  # may follow a progress dot
    return int(line.rpartition("=")[2])


def test_a_case_run_freezes_what_collection_built(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(PROBE + AT_EXIT)
    (tmp_path / "tiny.eval.yaml").write_text(CASES)
    _red_png(tmp_path)
    output = _run(tmp_path, "--eval-output-dir", str(tmp_path / "out"))
    assert _frozen(output, "after collection") > 10_000  # modules, classes, items: all of them
    assert _frozen(output, "at exit") >= _frozen(output, "after collection")
    assert "1 passed" in output


def test_a_plain_test_run_is_not_frozen_after_collection(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(PROBE + AT_EXIT)
    (tmp_path / "test_plain.py").write_text("def test_one():\n    assert True\n")
    output = _run(tmp_path)
    assert _frozen(output, "after collection") == 0
    assert _frozen(output, "at session end") == 0
    assert _frozen(output, "at exit") > 10_000  # the process ends with pytest: its exit is spared the collection


def test_no_freeze_where_pytest_runs_in_process(pytester: pytest.Pytester) -> None:
    # A run inside this test process: a freeze there would keep the outer suite's garbage forever.
    pytester.makeconftest(PROBE)
    pytester.makefile(".eval.yaml", tiny=CASES)
    _red_png(pytester.path)
    result = pytester.runpytest_inprocess("-s", "--eval-output-dir", str(pytester.path / "out"))
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["after collection: frozen=0"])
    assert gc_freeze._in_process_run()


def test_only_a_process_that_ends_with_pytest_is_frozen_at_exit(monkeypatch: pytest.MonkeyPatch) -> None:
    controller: Any = SimpleNamespace()  # what _process_ends_with_pytest reads of a config: workerinput or not
    worker: Any = SimpleNamespace(workerinput={})
    monkeypatch.setattr(sys, "argv", ["/usr/bin/python", "my_program.py"])
    monkeypatch.setitem(sys.modules, "__main__", type(sys)("__main__"))  # a program's own main, no spec
    assert not gc_freeze._process_ends_with_pytest(controller)
    assert gc_freeze._process_ends_with_pytest(worker)  # an xdist worker exits when its session ends
    monkeypatch.setattr(sys, "argv", ["/venv/bin/pytest", "tests"])
    assert gc_freeze._process_ends_with_pytest(controller)


def test_paused_turns_the_collector_off_inside_and_back_on_after() -> None:
    assert gc.isenabled()
    with gc_freeze.paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), gc_freeze.paused():
        raise RuntimeError("a bad case file")
    assert gc.isenabled()  # also after an error


def test_paused_leaves_a_collector_that_was_off_off() -> None:
    gc.disable()
    try:
        with gc_freeze.paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_case_file_is_read_with_the_collector_paused(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_visioneval.protocols import case_files  # where collection finds it, when it reads the first file

    seen: list[bool] = []
    real_load = case_files.load_case_file

    def load_and_look(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return real_load(*args, **kwargs)

    monkeypatch.setattr(case_files, "load_case_file", load_and_look)
    pytester.makefile(".eval.yaml", tiny=CASES)
    (pytester.path / "broken.eval.yaml").write_text("suite: broken\ncases: [\n")
    _red_png(pytester.path)
    result = pytester.runpytest_inprocess("--collect-only", "-q")
    result.stdout.fnmatch_lines(["*1 test collected*1 error*"])
    assert seen == [False, False]  # both files, the broken one too
    assert gc.isenabled()  # and back on after the error of the broken one
