"""A run that did not run all its cases says so: in the terminal, the verdict and the results JSON."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import read_json


def test_a_run_stopped_by_x_is_marked_incomplete_with_the_cases_not_run(
    pytester: pytest.Pytester, demo_suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(
        "COLUMNS", "200"
    )  # whole lines are matched below; the 80-column layout is tested in test_first_hour_summary
    (demo_suite / "refs" / "first.png").write_bytes(b"not a png")  # the first case fails its gates
    result = pytester.runpytest("-x", "--eval-results=r.json")
    document = read_json(pytester.path / "r.json")
    assert document["complete"] is False
    assert document["incomplete"]["reason"].startswith("stopped early")
    assert document["incomplete"]["not_run"] == ["cases/demo.eval.yaml::demo/second", "cases/demo.eval.yaml::demo/third"]
    result.stdout.fnmatch_lines(
        ["*INCOMPLETE run: stopped early*2 of 3 case(s) did not run*", "*not run: cases/demo.eval.yaml::demo/second*"]
    )
    verdict = next(i for i, line in enumerate(result.stdout.lines) if line.startswith("visioneval: exit status"))
    assert "INCOMPLETE run" in " ".join(result.stdout.lines[verdict:])  # the verdict (the run's last lines) says it too


def test_a_full_run_is_complete(pytester: pytest.Pytester, demo_suite: Path, xdist_args: list[str]) -> None:
    pytester.runpytest("--eval-results=r.json", *xdist_args).assert_outcomes(passed=3)
    document = read_json(pytester.path / "r.json")
    assert document["complete"] is True and "incomplete" not in document


def test_deselected_cases_are_not_counted_as_not_run(pytester: pytest.Pytester, demo_suite: Path, xdist_args: list[str]) -> None:
    pytester.runpytest("-k", "first", "--eval-results=r.json", *xdist_args).assert_outcomes(passed=1)
    assert read_json(pytester.path / "r.json")["complete"] is True


def test_an_interrupted_run_is_marked_incomplete(pytester: pytest.Pytester, demo_suite: Path) -> None:
    pytester.makeconftest(
        """
        def pytest_runtest_call(item):
            if item.name.endswith("second"):
                raise KeyboardInterrupt  # what Ctrl-C does in the middle of a case
        """
    )
    result = pytester.runpytest_subprocess("--eval-results=r.json")  # in its own process: the interrupt stays there
    assert result.ret == pytest.ExitCode.INTERRUPTED
    document = read_json(pytester.path / "r.json")
    assert document["complete"] is False
    assert document["incomplete"]["reason"] == "interrupted (Ctrl-C or a signal)"
    assert document["incomplete"]["not_run"] == ["cases/demo.eval.yaml::demo/second", "cases/demo.eval.yaml::demo/third"]
    assert document["aggregates"]["overall"]["cases"] == 1  # the numbers are over what ran, and say so


def test_listing_cases_with_collect_only_is_not_an_incomplete_run(pytester: pytest.Pytester, demo_suite: Path) -> None:
    result = pytester.runpytest("--collect-only", "-q")
    assert "INCOMPLETE" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*3 tests collected*"])
