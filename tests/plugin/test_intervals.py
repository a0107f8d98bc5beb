"""Intervals on every aggregate, and thresholds that know about them: inconclusive, --eval-threshold-on=bound,
--eval-inconclusive=fail, --eval-confidence; the same numbers with and without xdist."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from PIL import Image, ImageDraw

from pytest_visioneval.report.results_json import results_schema
from tests.conftest import draw_png, read_json


@pytest.fixture(autouse=True)
def _wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """200 columns: these tests read a threshold's, a table's or the exit status's whole text on one line
    (at 80 columns the summary wraps them; test_first_hour_summary.py reads it there)."""
    monkeypatch.setenv("COLUMNS", "200")


CASES = 6
BOX_COLOR = (200, 30, 30)
SPREAD_YAML = """\
suite: spread
defaults:
  task: image_generation
  graders:
    - use: image
      options: {width: 64, height: 48}
    - use: similarity
thresholds:
  similarity.score: 0.9
cases:
""" + "".join(f"  - {{id: c{i}, prompt: draw picture {i}, reference: refs/c{i}.png}}\n" for i in range(CASES))


@pytest.fixture
def spread_suite(pytester: pytest.Pytester) -> Path:
    """cases/spread.eval.yaml and replayed outputs/: five cases reproduce their reference, one does not.

    The odd one keeps the box but has a grey background: similarity 0.636, so the suite's mean is
    0.939 (it meets the case file's 0.9) while its 95% bootstrap interval reaches down to about 0.82.
    No gate looks at the similarity, so every case passes.
    """
    root, outputs = pytester.path / "cases", pytester.path / "outputs" / "spread"
    outputs.mkdir(parents=True)
    for i in range(CASES):
        reference = draw_png(root / "refs" / f"c{i}.png", color=BOX_COLOR)
        (outputs / f"c{i}.png").write_bytes(reference.read_bytes())
    odd = Image.new("RGB", (64, 48), (128, 128, 128))
    ImageDraw.Draw(odd).rectangle((16, 12, 48, 36), fill=BOX_COLOR)
    odd.save(outputs / "c0.png", format="PNG")
    (root / "spread.eval.yaml").write_text(SPREAD_YAML)
    return root


REPLAY = ["cases", "--model=replay:outputs"]


def _threshold(document: dict[str, Any]) -> dict[str, Any]:
    (threshold,) = [t for t in document["thresholds"] if t["source"].startswith("cases/spread.eval.yaml")]
    return threshold


def test_an_inconclusive_threshold_passes_by_default_and_says_so(
    pytester: pytest.Pytester, spread_suite: Path, xdist_args: list[str]
) -> None:
    result = pytester.runpytest(*REPLAY, "--eval-results=r.json", *xdist_args)
    result.assert_outcomes(passed=CASES)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "thresholds: 0 met, 1 inconclusive, 0 missed",
            "  INCONCLUSIVE spread.similarity.score: mean 0.939285 >= 0.9 but its 95% interval [[]0.818, 1[]] reaches below 0.9 "
            "(inconclusive)  [[]cases/spread.eval.yaml:*[]]",
        ]
    )
    assert result.stdout.lines[-1] == "visioneval: exit status 0 (all gates passed, 0 threshold(s) met, 1 inconclusive)"
    document = read_json(pytester.path / "r.json")
    jsonschema.validate(document, results_schema())
    threshold = _threshold(document)
    assert (threshold["status"], threshold["passed"], threshold["observed"]) == ("inconclusive", True, pytest.approx(0.939285))
    suite = document["aggregates"]["suites"]["spread"]
    score = suite["metrics"]["similarity.score"]
    assert score["ci_low"] < 0.9 < score["mean"] <= score["ci_high"] == 1.0
    assert document["aggregates"]["confidence"] == 0.95
    # 6 of 6 cases passed: the pass rate's Wilson interval still reaches down to 61%.
    assert (suite["pass_rate"], round(suite["pass_rate_ci_low"], 3), suite["pass_rate_ci_high"]) == (1.0, 0.61, 1.0)
    result.stdout.re_match_lines([r"^spread\s+6\s+6\s+0\s+0\s+100\.0% \[61\.0, 100\.0\]\s+-$"])


def test_inconclusive_fail_fails_the_run_like_a_missed_threshold(pytester: pytest.Pytester, spread_suite: Path) -> None:
    result = pytester.runpytest(*REPLAY, "--eval-inconclusive=fail", "--eval-results=r.json", "--junitxml=j.xml")
    result.assert_outcomes(passed=CASES, failed=1)  # failed: visioneval::thresholds
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["*INCONCLUSIVE spread.similarity.score: *(inconclusive, counted as missed: --eval-inconclusive=fail)*"]
    )
    assert result.stdout.lines[-1].startswith("visioneval: exit status 1: 1 threshold(s) inconclusive: spread.similarity.score")
    threshold = _threshold(read_json(pytester.path / "r.json"))
    assert (threshold["status"], threshold["passed"]) == ("inconclusive", False)
    assert "threshold inconclusive: spread.similarity.score: mean 0.939285" in (pytester.path / "j.xml").read_text()


def test_threshold_on_bound_fails_what_only_the_mean_meets(pytester: pytest.Pytester, spread_suite: Path) -> None:
    flags = ["--eval-fail-under=spread.similarity.score=0.5", "--eval-fail-under=spread.image.decodes=1"]
    result = pytester.runpytest(*REPLAY, "--eval-threshold-on=bound", *flags)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "thresholds: 2 met, 1 inconclusive, 0 missed",
            "*INCONCLUSIVE spread.similarity.score: mean 0.939285 >= 0.9 but *(inconclusive, counted as missed: "
            "--eval-threshold-on=bound)*",
            # The interval clears 0.5; every case decoding meets a pass rate of 1 (the interval ends at 1).
            "*PASS spread.similarity.score: mean 0.939285 >= 0.5  [[]--eval-fail-under[]]",
            "*PASS spread.image.decodes: pass rate 1 >= 1  [[]--eval-fail-under[]]",
        ]
    )
    # The same run with the mean deciding is green.
    assert pytester.runpytest(*REPLAY, *flags).ret == pytest.ExitCode.OK


def test_the_ini_sets_the_policy_and_the_command_line_wins(pytester: pytest.Pytester, spread_suite: Path) -> None:
    pytester.makeini(
        """
        [pytest]
        filterwarnings = ignore::pytest.PytestAssertRewriteWarning
        visioneval_threshold_on = bound
        visioneval_confidence = 0.5
        """
    )
    from_ini = pytester.runpytest(*REPLAY)
    assert from_ini.ret == pytest.ExitCode.TESTS_FAILED
    from_ini.stdout.fnmatch_lines(["*but its 50% interval *counted as missed: --eval-threshold-on=bound)*"])
    assert pytester.runpytest(*REPLAY, "--eval-threshold-on=mean").ret == pytest.ExitCode.OK


def test_the_confidence_level_reaches_every_interval_and_the_results(pytester: pytest.Pytester, spread_suite: Path) -> None:
    result = pytester.runpytest(*REPLAY, "--eval-confidence=0.8", "--eval-summary=full", "--eval-results=r.json")
    result.stdout.re_match_lines([r"^\s+gate\s+passed\s+pass rate\s+80% CI$", r"^\s+metric\s+mean\s+80% CI\s+std"])
    result.stdout.fnmatch_lines(["*but its 80% interval [[]0.8*, 1[]]*"])
    narrow = read_json(pytester.path / "r.json")["aggregates"]
    assert narrow["confidence"] == 0.8
    pytester.runpytest(*REPLAY, "--eval-confidence=0.99", "--eval-results=wide.json")
    wide = read_json(pytester.path / "wide.json")["aggregates"]
    assert wide["confidence"] == 0.99
    score = "similarity.score"
    assert wide["suites"]["spread"]["metrics"][score]["ci_low"] < narrow["suites"]["spread"]["metrics"][score]["ci_low"]


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        ("--eval-confidence=1", "*--eval-confidence must lie strictly between 0 and 1*"),
        ("--eval-confidence=high", "*--eval-confidence expects a number*"),
        ("--eval-threshold-on=median", "*--eval-threshold-on must be one of mean, bound*"),
        ("--eval-inconclusive=warn", "*--eval-inconclusive must be one of pass, fail*"),
    ],
)
def test_bad_values_are_usage_errors(pytester: pytest.Pytester, spread_suite: Path, flag: str, message: str) -> None:
    result = pytester.runpytest("cases", flag)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_intervals_are_identical_with_and_without_xdist(pytester: pytest.Pytester, spread_suite: Path) -> None:
    # One more odd case, so that the bootstrap has values of three sizes to resample.
    draw_png(pytester.path / "outputs" / "spread" / "c3.png", color=(30, 30, 200))
    pytester.runpytest(*REPLAY, "--eval-results=n0.json")
    pytester.runpytest(*REPLAY, "--eval-results=n2.json", "-n", "2")
    alone, spread = (read_json(pytester.path / name) for name in ("n0.json", "n2.json"))
    score = alone["aggregates"]["suites"]["spread"]["metrics"]["similarity.score"]
    assert score["ci_low"] < score["mean"] < score["ci_high"]
    for key in ("aggregates", "benchmarks", "thresholds"):
        assert json.dumps(alone[key]) == json.dumps(spread[key]), key  # to the last bit, in the same order
