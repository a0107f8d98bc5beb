"""results/thresholds.py: thresholds parsed and checked against suite aggregates and their intervals."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_visioneval.cases.spec import Threshold
from pytest_visioneval.errors import ConfigError
from pytest_visioneval.results.aggregate import aggregate
from pytest_visioneval.results.statistics import bootstrap_mean, wilson_interval
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
    # ui's scores are 0.8 and 0.9: their interval [0.8, 0.9] does not reach below 0.8.
    result = check(Threshold("ui", "sim.score", min=0.8), aggregates["suites"]["ui"])
    assert result.passed and result.status == "met"
    assert result.observed == pytest.approx(0.85)
    assert result.message == "ui.sim.score: mean 0.85 >= 0.8"


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
        "status": "missed",
        "message": "msg",
    }


# -- intervals: met, missed, inconclusive ---------------------------------------

SPREAD = [1.0, 1.0, 1.0, 1.0, 1.0, 0.6]  # mean 0.9333, bootstrap interval [0.8, 1.0]


@pytest.fixture
def spread() -> dict[str, Any]:
    """Suite ``s``: six scores with one low one, and a gate that passed in 5 of 6 cases."""
    return aggregate([record(f"s/{i}", score=v, decodes=v == 1.0) for i, v in enumerate(SPREAD)])


def test_a_bound_inside_the_interval_is_inconclusive_and_passes_by_default(spread: dict[str, Any]) -> None:
    (result,) = evaluate_thresholds([Threshold("s", "sim.score", min=0.9)], [], spread)
    assert (result.status, result.passed) == ("inconclusive", True)
    low, high = bootstrap_mean(SPREAD)
    assert low < 0.9 < high
    assert result.message == (
        f"s.sim.score: mean 0.933333 >= 0.9 but its 95% interval [{low:.3g}, {high:.3g}] reaches below 0.9 (inconclusive)"
    )


def test_inconclusive_fail_counts_it_as_missed(spread: dict[str, Any]) -> None:
    (result,) = evaluate_thresholds([Threshold("s", "sim.score", min=0.9)], [], spread, inconclusive="fail")
    assert (result.status, result.passed) == ("inconclusive", False)
    assert result.message.endswith("(inconclusive, counted as missed: --eval-inconclusive=fail)")


def test_on_bound_fails_what_the_mean_meets_but_the_lower_bound_does_not(spread: dict[str, Any]) -> None:
    (result,) = evaluate_thresholds([Threshold("s", "sim.score", min=0.9)], [], spread, on="bound")
    assert (result.status, result.passed) == ("inconclusive", False)
    assert result.message.endswith("(inconclusive, counted as missed: --eval-threshold-on=bound)")


@pytest.mark.parametrize(("on", "inconclusive"), [("mean", "pass"), ("mean", "fail"), ("bound", "pass")])
def test_clear_results_are_the_same_under_every_policy(spread: dict[str, Any], on: str, inconclusive: str) -> None:
    thresholds = [Threshold("s", "sim.score", min=0.7), Threshold("s", "sim.score", min=0.95)]
    met, missed = evaluate_thresholds(thresholds, [], spread, on=on, inconclusive=inconclusive)
    assert (met.status, met.passed, met.message) == ("met", True, "s.sim.score: mean 0.933333 >= 0.7")
    assert (missed.status, missed.passed) == ("missed", False)
    assert missed.message == "s.sim.score: mean 0.933333 < 0.95 (short by 0.0167)"


def test_a_max_threshold_is_inconclusive_when_the_interval_reaches_above_it(spread: dict[str, Any]) -> None:
    result = check(Threshold("s", "sim.score", max=0.95), spread["suites"]["s"])
    assert result.status == "inconclusive" and result.passed
    assert "mean 0.933333 <= 0.95 but its 95% interval" in result.message
    assert result.message.endswith("reaches above 0.95 (inconclusive)")


def test_a_gate_threshold_uses_the_wilson_interval(spread: dict[str, Any]) -> None:
    result = check(Threshold("s", "image.decodes", min=0.8), spread["suites"]["s"])
    low, high = wilson_interval(5, 6)
    assert result.status == "inconclusive"
    assert f"pass rate 0.833333 >= 0.8 but its 95% interval [{low:.3g}, {high:.3g}]" in result.message


def test_every_case_passing_meets_a_pass_rate_of_1_even_on_bound() -> None:
    # Wilson gives [0.44, 1] for 3 of 3; the bound 1 is the interval's end, not inside it.
    aggregates = aggregate([record(f"s/{i}", decodes=True) for i in range(3)])
    (result,) = evaluate_thresholds([], [Threshold("s", "image.decodes", min=1.0)], aggregates, on="bound")
    assert (result.status, result.passed) == ("met", True)


def test_the_message_names_the_level_of_the_aggregates() -> None:
    aggregates = aggregate([record(f"s/{i}", score=v) for i, v in enumerate(SPREAD)], confidence=0.8)
    (result,) = evaluate_thresholds([Threshold("s", "sim.score", min=0.9)], [], aggregates)
    assert "but its 80% interval [" in result.message


def test_a_summary_without_intervals_is_checked_by_the_mean_alone() -> None:
    summary = {"errors": 0, "gates": {}, "metrics": {"m": {"mean": 0.93, "n": 6}}}  # an older results file
    result = check(Threshold("s", "m", min=0.9), summary, on="bound")
    assert (result.status, result.passed, result.message) == ("met", True, "s.m: mean 0.93 >= 0.9")


def test_an_unknown_policy_is_refused(spread: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="unknown threshold policy"):
        evaluate_thresholds([], [], spread, on="median")
    with pytest.raises(ValueError, match="unknown threshold policy"):
        evaluate_thresholds([], [], spread, inconclusive="warn")


def test_a_status_must_agree_with_passed() -> None:
    t = Threshold("s", "m", min=0.5)
    assert ThresholdResult(t, 0.6, True, "m").status == "met"
    assert ThresholdResult(t, 0.4, False, "m").status == "missed"
    for passed, status in ((True, "missed"), (False, "met"), (True, "unknown")):
        with pytest.raises(ValueError, match="cannot have passed"):
            ThresholdResult(t, 0.6, passed, "m", status=status)


def test_for_model_keeps_the_status(spread: dict[str, Any]) -> None:
    result = check(Threshold("s", "sim.score", min=0.9), spread["suites"]["s"], inconclusive="fail").for_model("cand")
    assert (result.model, result.status, result.passed) == ("cand", "inconclusive", False)
    assert result.message.startswith("[cand] s.sim.score: mean 0.933333")
    assert result.as_dict()["status"] == "inconclusive"


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
