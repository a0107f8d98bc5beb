"""One run folder, one run at a time: a second run with the same --eval-run-id is refused while the first goes on."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from tests.conftest import read_json


def test_a_run_id_in_use_is_refused(pytester: pytest.Pytester, demo_suite: Path, xdist_args: list[str]) -> None:
    folder = pytester.path / "out" / "shared-id"
    folder.mkdir(parents=True)
    # What a run still going holds for its whole session:
    fd = os.open(folder / ".run.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.write(fd, b"4242")
    try:
        result = pytester.runpytest("--eval-output-dir=out", "--eval-run-id=shared-id", *xdist_args)
    finally:
        os.close(fd)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*run id 'shared-id' is in use by a run still going (pid 4242)*choose another --eval-run-id*"])
    assert not (folder / "reference").exists()  # it wrote nothing there


def test_a_finished_run_s_id_can_be_used_again(pytester: pytest.Pytester, demo_suite: Path, xdist_args: list[str]) -> None:
    args = ["--eval-output-dir=out", "--eval-run-id=again", "--eval-results=r.json", *xdist_args]
    pytester.runpytest(*args).assert_outcomes(passed=3)
    pytester.runpytest(*args).assert_outcomes(passed=3)
    assert read_json(pytester.path / "r.json")["run"]["id"] == "again"


def test_collect_only_needs_no_run_folder(pytester: pytest.Pytester, demo_suite: Path) -> None:
    result = pytester.runpytest("--collect-only", "-q", "--eval-output-dir=out")
    result.stdout.fnmatch_lines(["*3 tests collected*"])
    assert not (pytester.path / "out").exists()
