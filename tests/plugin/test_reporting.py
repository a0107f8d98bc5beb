"""Scores on the controller: results JSON, aggregates under xdist, thresholds and exit status."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

import jsonschema
import pytest

from pytest_visioneval.report.results_json import results_schema
from tests.conftest import draw_png, read_json


@pytest.fixture
def wide(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 200-column terminal: each threshold on one line, for the tests that read a line's whole text.

    How the summary reads at 80 columns is tested in test_first_hour_summary.py.
    """
    monkeypatch.setenv("COLUMNS", "200")


def _imperfect_outputs(root: Path) -> Path:
    """Outputs that pass every gate but are not pixel-perfect (similarity < 1)."""
    out = root / "outputs" / "demo"
    draw_png(out / "first.png", color=(200, 30, 30))
    draw_png(out / "second.png", color=(40, 180, 40))
    draw_png(out / "third.png", color=(30, 30, 170))
    return root / "outputs"


def test_results_json_follows_its_schema_and_lists_every_case(
    pytester: pytest.Pytester, demo_suite: Path, xdist_args: list[str]
) -> None:
    _imperfect_outputs(pytester.path)
    (pytester.path / "outputs" / "demo" / "third.png").unlink()
    result = pytester.runpytest("cases", "--model=replay:outputs", "--eval-results=results.json", *xdist_args)
    result.assert_outcomes(passed=2, errors=1, failed=1)  # failed: visioneval::thresholds (the errored case)
    document = read_json(pytester.path / "results.json")
    jsonschema.validate(document, results_schema())
    by_uid = {case["uid"]: case for case in document["cases"]}
    assert set(by_uid) == {"demo/first", "demo/second", "demo/third"}
    assert by_uid["demo/third"]["status"] == "error"
    assert "no replayed output for demo/third" in by_uid["demo/third"]["error"]
    second = by_uid["demo/second"]
    assert second["status"] == "passed"
    assert second["tags"] == ["ui", "slow_render"]
    assert {"image.decodes", "image.size", "image.not_blank", "similarity.match"} <= {g["name"] for g in second["gates"]}
    (score,) = [m for m in second["metrics"] if m["name"] == "similarity.score"]
    assert 0.9 < score["value"] < 1.0 and score["reason"].startswith("vs reference second.png")
    assert Path(second["artifacts"][0]["path"]).is_file()
    assert document["aggregates"]["suites"]["demo"]["errors"] == 1
    assert document["exit"]["status"] == 1


def test_aggregates_identical_with_and_without_xdist(pytester: pytest.Pytester, demo_suite: Path) -> None:
    _imperfect_outputs(pytester.path)
    draw_png(pytester.path / "outputs" / "demo" / "first.png", size=(10, 10))  # one failure
    serial = pytester.runpytest("cases", "--model=replay:outputs", "--eval-results=serial.json")
    parallel = pytester.runpytest("cases", "--model=replay:outputs", "--eval-results=parallel.json", "-n", "2")
    serial.assert_outcomes(passed=2, failed=1)
    parallel.assert_outcomes(passed=2, failed=1)
    a, b = read_json(pytester.path / "serial.json"), read_json(pytester.path / "parallel.json")
    assert a["aggregates"] == b["aggregates"]
    assert a["aggregates"]["suites"]["demo"]["metrics"]["similarity.score"]["n"] == 3
    assert a["thresholds"] == b["thresholds"]


def test_cli_threshold_missed_fails_the_run_although_every_test_passed(
    pytester: pytest.Pytester, demo_suite: Path, xdist_args: list[str], wide: None
) -> None:
    _imperfect_outputs(pytester.path)
    result = pytester.runpytest(
        "cases", "--model=replay:outputs", "--eval-fail-under=demo.similarity.score=0.999", "--junitxml=j.xml", *xdist_args
    )
    # Every case passed; the run-level check is the one failed test, in pytest's counts and in JUnit.
    result.assert_outcomes(passed=3, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*FAIL demo.similarity.score: mean 0.9* < 0.999 (short by 0.0*)*--eval-fail-under*",
            "FAILED visioneval::thresholds - 1 threshold(s) missed",
            "visioneval: exit status 1: 1 threshold(s) missed: demo.similarity.score",
        ]
    )
    # The message is said once on the terminal, on its FAIL line; the card and the exit status name it.
    assert result.stdout.str().count("< 0.999 (short by") == 1
    suite = ElementTree.parse(pytester.path / "j.xml").getroot().find("testsuite")
    assert suite is not None and (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("4", "1", "0")
    (failed,) = [case for case in suite.iter("testcase") if case.find("failure") is not None]
    assert (failed.get("classname"), failed.get("name")) == ("visioneval", "thresholds")
    assert "threshold missed: demo.similarity.score: mean 0.9" in (failed.find("failure").text or "")  # type: ignore[union-attr]


def test_a_met_threshold_adds_no_test_to_junit(pytester: pytest.Pytester, demo_suite: Path) -> None:
    result = pytester.runpytest("cases", "--eval-fail-under=demo.similarity.score=0.99", "--junitxml=j.xml")
    result.assert_outcomes(passed=3)
    assert "visioneval" not in (pytester.path / "j.xml").read_text().split("<testcase", 1)[-1].split('classname="')[0]
    assert 'name="thresholds"' not in (pytester.path / "j.xml").read_text()


def test_threshold_met_keeps_exit_status_zero(pytester: pytest.Pytester, demo_suite: Path, xdist_args: list[str]) -> None:
    result = pytester.runpytest(
        "cases", "--eval-fail-under=*.similarity.score=0.99", "--eval-fail-under=demo.image.size=1", *xdist_args
    )
    result.assert_outcomes(passed=3)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*PASS demo.similarity.score: mean 1 >= 0.99*", "*PASS demo.image.size: pass rate 1 >= 1*"])


def test_case_file_threshold_is_enforced(pytester: pytest.Pytester, demo_suite: Path, xdist_args: list[str], wide: None) -> None:
    text = (demo_suite / "demo.eval.yaml").read_text().replace("similarity.score: 0.9\n", "similarity.score: {min: 0.995}\n")
    (demo_suite / "demo.eval.yaml").write_text(text)
    _imperfect_outputs(pytester.path)
    result = pytester.runpytest("cases", "--model=replay:outputs", *xdist_args)
    result.assert_outcomes(passed=3, failed=1)  # failed: visioneval::thresholds
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*FAIL demo.similarity.score: mean 0.9* < 0.995*cases/demo.eval.yaml:12*"])


def test_threshold_on_unknown_metric_fails_instead_of_passing(pytester: pytest.Pytester, demo_suite: Path, wide: None) -> None:
    result = pytester.runpytest("cases", "--eval-fail-under=demo.similarity.scroe=0.5")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["*FAIL demo.similarity.scroe: no case recorded this metric or gate (known: *similarity.score*", "*image.decodes*"]
    )


def test_errors_make_thresholds_unconfirmed(pytester: pytest.Pytester, demo_suite: Path, wide: None) -> None:
    _imperfect_outputs(pytester.path)
    (pytester.path / "outputs" / "demo" / "first.png").unlink()
    result = pytester.runpytest("cases", "--model=replay:outputs", "--eval-fail-under=demo.similarity.score=0.5")
    result.assert_outcomes(passed=2, errors=1, failed=1)  # failed: visioneval::thresholds
    result.stdout.fnmatch_lines(["*FAIL demo.similarity.score: 1 case(s) errored*cannot confirm it*"])


def test_threshold_for_a_suite_that_did_not_run(pytester: pytest.Pytester, demo_suite: Path) -> None:
    result = pytester.runpytest("cases", "--eval-fail-under=other.similarity.score=0.5")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*FAIL other.similarity.score: suite 'other' produced no results*"])


def test_bad_threshold_syntax_is_a_usage_error(pytester: pytest.Pytester, demo_suite: Path) -> None:
    result = pytester.runpytest("cases", "--eval-fail-under=similarity>0.5")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--eval-fail-under expects SUITE.METRIC=VALUE*"])


def test_compact_summary_is_one_row_per_suite_and_fits_the_width(pytester: pytest.Pytester, demo_suite: Path) -> None:
    _imperfect_outputs(pytester.path)
    draw_png(pytester.path / "outputs" / "demo" / "first.png", size=(10, 10))  # one case fails its gates
    result = pytester.runpytest("cases", "--model=replay:outputs")
    lines = result.stdout.lines
    start = next(i for i, line in enumerate(lines) if "visioneval scores" in line)
    section = lines[start + 1 : next(i for i, line in enumerate(lines) if "short test summary" in line)]
    assert section[0].split()[:7] == ["suite", "cases", "passed", "failed", "errors", "pass", "rate"]
    row = section[1].split()
    assert row[:8] == ["demo", "3", "2", "1", "0", "66.7%", "[20.8,", "93.9]"]  # the pass rate and its Wilson interval
    # The gates that failed, most first: in their column when it fits the 80 columns, else on a line below.
    failed = " ".join(row[8:]) if len(section[0].split()) == 9 else section[2].removeprefix("failed gates in demo: ")
    assert failed.startswith("image.size (1)")
    assert "by protocol" not in result.stdout.str() and "by tag" not in result.stdout.str()
    assert all(len(line) <= 80 for line in section)  # pytester's terminal is 80 columns: nothing sticks out
    assert lines[-1] == "visioneval: exit status 1: 1 case(s) failed a gate or assertion"


def test_summary_none_prints_no_scores_but_keeps_the_verdict(pytester: pytest.Pytester, demo_suite: Path) -> None:
    result = pytester.runpytest("cases", "--eval-summary=none")
    assert "suite" not in result.stdout.str().split("visioneval scores")[-1].split("short test summary")[0].split("passed in")[0]
    assert result.stdout.lines[-1] == "visioneval: exit status 0 (all gates passed, 1 threshold(s) met; 1 warning)"
    assert pytester.runpytest("cases", "--eval-summary=wide").ret == pytest.ExitCode.USAGE_ERROR


@pytest.mark.parametrize("flag", ["--eval-summary=full", "-v"])
def test_full_summary_groups_by_suite_protocol_and_tag(
    pytester: pytest.Pytester, demo_suite: Path, flag: str, wide: None
) -> None:
    result = pytester.runpytest("cases", flag)
    result.stdout.fnmatch_lines(
        [
            "*= visioneval scores =*",
            "suite demo: 3 cases, 3 passed, 0 failed, 0 errors; pass rate 100.0% [[]43.9, 100.0[]]",
            "  similarity.score  *1.0000  [[]1.0000, 1.0000[]]  0.0000  1.0000  1.0000  3",
            "by protocol",
            "  cookbook: 3 cases, 3 passed*",
            "by tag",
            "  slow_render: 1 cases, 1 passed*",
            "  ui: 3 cases, 3 passed*",
        ]
    )
