"""results/thresholds.py: thresholds parsed and checked against suite aggregates."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_visioneval.cases.spec import Threshold
from pytest_visioneval.errors import ConfigError
from pytest_visioneval.results.aggregate import aggregate
from pytest_visioneval.results.thresholds import ThresholdResult, check, evaluate_thresholds, expand, parse_threshold


def record(uid: str, status: str = "passed", score: float | None = None, decodes: bool | None = None) -> dict[str, Any]:
    return {
        "uid": uid,
        "suite": uid.split("/")[0],
        "protocol": "generic",
        "status": status,
        "metrics": [] if score is None else [{"name": "sim.score", "value": score}],
        "gates": [] if decodes is None else [{"name": "image.decodes", "passed": decodes}],
    }


@pytest.fixture
def aggregates() -> dict[str, Any]:
    return aggregate(
        [
            record("ui/a", score=0.8, decodes=True),
            record("ui/b", score=0.9, decodes=False),
            record("logo/a", score=0.5, decodes=True),
            record("logo/b", "error"),
        ]
    )


def test_min_threshold_passes(aggregates: dict[str, Any]) -> None:
    result = check(Threshold("ui", "sim.score", min=0.85), aggregates["suites"]["ui"])
    assert result.passed
    assert result.observed == pytest.approx(0.85)
    assert result.message == "ui.sim.score: mean 0.85 >= 0.85"


def test_min_threshold_fails_with_short_by(aggregates: dict[str, Any]) -> None:
    result = check(Threshold("ui", "sim.score", min=0.9), aggregates["suites"]["ui"])
    assert not result.passed
    assert result.message == "ui.sim.score: mean 0.85 < 0.9 (short by 0.05)"


def test_max_threshold(aggregates: dict[str, Any]) -> None:
    ok = check(Threshold("ui", "sim.score", max=0.9), aggregates["suites"]["ui"])
    assert ok.passed and ok.message == "ui.sim.score: mean 0.85 <= 0.9"
    bad = check(Threshold("ui", "sim.score", max=0.8), aggregates["suites"]["ui"])
    assert not bad.passed
    assert bad.message == "ui.sim.score: mean 0.85 > 0.8 (over by 0.05)"


def test_min_and_max(aggregates: dict[str, Any]) -> None:
    result = check(Threshold("ui", "sim.score", min=0.5, max=0.9), aggregates["suites"]["ui"])
    assert result.passed
    assert result.message.endswith(">= 0.5 and <= 0.9")


def test_gate_pass_rate_threshold(aggregates: dict[str, Any]) -> None:
    result = check(Threshold("ui", "image.decodes", min=1.0), aggregates["suites"]["ui"])
    assert not result.passed
    assert result.observed == 0.5
    assert result.message == "ui.image.decodes: pass rate 0.5 < 1 (short by 0.5)"


def test_missing_metric_fails_listing_known_names(aggregates: dict[str, Any]) -> None:
    result = check(Threshold("ui", "sim.scroe", min=0.1), aggregates["suites"]["ui"])
    assert not result.passed
    assert result.observed is None
    assert "no case recorded this metric or gate" in result.message
    assert "(known: sim.score, image.decodes)" in result.message


def test_missing_metric_with_nothing_known() -> None:
    summary = aggregate([record("s/a")])["suites"]["s"]
    assert "(known: none)" in check(Threshold("s", "m", min=0), summary).message


def test_errored_cases_make_the_threshold_fail(aggregates: dict[str, Any]) -> None:
    # logo's only scored case has 0.5, comfortably above 0.1 - but another case errored.
    result = check(Threshold("logo", "sim.score", min=0.1), aggregates["suites"]["logo"])
    assert not result.passed
    assert result.observed == 0.5
    assert "1 case(s) errored" in result.message


def test_suite_without_results() -> None:
    result = check(Threshold("gone", "m", min=1), None)
    assert not result.passed and result.observed is None
    assert result.message == "gone.m: suite 'gone' produced no results"


def test_star_expands_to_every_suite() -> None:
    t = Threshold("*", "sim.score", min=0.5, source="--eval-fail-under")
    assert expand([t], ["ui", "logo"]) == [
        Threshold("logo", "sim.score", 0.5, None, "--eval-fail-under"),
        Threshold("ui", "sim.score", 0.5, None, "--eval-fail-under"),
    ]


def test_star_with_no_suites_is_kept() -> None:
    t = Threshold("*", "m", min=1)
    assert expand([t], []) == [t]


def test_evaluate_star_cli_threshold(aggregates: dict[str, Any]) -> None:
    results = evaluate_thresholds([], [Threshold("*", "image.decodes", min=0.5)], aggregates)
    assert [(r.threshold.suite, r.passed) for r in results] == [("logo", False), ("ui", True)]


def test_file_thresholds_of_suites_that_did_not_run_are_ignored(aggregates: dict[str, Any]) -> None:
    results = evaluate_thresholds(
        [Threshold("deselected", "sim.score", min=0.9, source="d.eval.yaml:3"), Threshold("ui", "sim.score", min=0.8)],
        [],
        aggregates,
    )
    assert [r.threshold.suite for r in results] == ["ui"]
    assert results[0].passed


def test_cli_thresholds_of_suites_that_did_not_run_fail(aggregates: dict[str, Any]) -> None:
    results = evaluate_thresholds([], [Threshold("deselected", "sim.score", min=0.9, source="--eval-fail-under")], aggregates)
    assert len(results) == 1
    assert not results[0].passed
    assert "produced no results" in results[0].message


def test_file_thresholds_come_first(aggregates: dict[str, Any]) -> None:
    results = evaluate_thresholds(
        [Threshold("ui", "sim.score", min=0.1, source="file")], [Threshold("ui", "sim.score", min=0.2, source="cli")], aggregates
    )
    assert [r.threshold.source for r in results] == ["file", "cli"]


def test_as_dict() -> None:
    t = Threshold("ui", "m", min=0.5, max=None, source="f:1")
    assert ThresholdResult(t, 0.25, False, "msg").as_dict() == {
        "suite": "ui",
        "metric": "m",
        "min": 0.5,
        "max": None,
        "source": "f:1",
        "observed": 0.25,
        "passed": False,
        "message": "msg",
    }


# -- parsing --eval-fail-under -------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ui.similarity.score=0.9", Threshold("ui", "similarity.score", min=0.9, source="--eval-fail-under")),
        ("*.image.decodes=1", Threshold("*", "image.decodes", min=1.0, source="--eval-fail-under")),
        ("my-suite_2.score=-0.5", Threshold("my-suite_2", "score", min=-0.5, source="--eval-fail-under")),
        ("  ui.score=1e-3  ", Threshold("ui", "score", min=0.001, source="--eval-fail-under")),
        ("ui._private-m.x=3", Threshold("ui", "_private-m.x", min=3.0, source="--eval-fail-under")),
    ],
)
def test_parse_threshold(text: str, expected: Threshold) -> None:
    parsed = parse_threshold(text)
    assert parsed == expected
    assert parsed.max is None
    assert isinstance(parsed.min, float)


def test_parse_threshold_source() -> None:
    assert parse_threshold("ui.score=1", source="pytest.ini").source == "pytest.ini"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "ui",
        "ui.score",
        "ui.score=",
        "ui=0.5",
        ".score=1",
        "ui.=1",
        "ui score=1",
        "-ui.score=1",
        "ui.score 0.5",
        "ui/x.score=1",
    ],
)
def test_parse_threshold_bad_format(text: str) -> None:
    with pytest.raises(ConfigError, match="expects SUITE.METRIC=VALUE"):
        parse_threshold(text)


@pytest.mark.parametrize("text", ["ui.score=abc", "ui.score=0.9x", "ui.score=1,5"])
def test_parse_threshold_bad_number(text: str) -> None:
    with pytest.raises(ConfigError, match="is not a number") as info:
        parse_threshold(text, source="--eval-fail-under")
    assert text in str(info.value)


def test_parse_threshold_rejects_nan() -> None:
    with pytest.raises(ConfigError):
        parse_threshold("ui.score=nan")
