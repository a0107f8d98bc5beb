"""results/thresholds.py: a threshold on a metric that only a skipped grader makes says so and fails."""

from __future__ import annotations

from typing import Any

from pytest_visioneval.cases.spec import Threshold
from pytest_visioneval.graders.judging import NO_JUDGE
from pytest_visioneval.results.aggregate import aggregate
from pytest_visioneval.results.thresholds import check


def record(uid: str, skipped: list[dict[str, str]]) -> dict[str, Any]:
    return {
        "uid": uid,
        "suite": "gen",
        "protocol": "generic",
        "status": "passed",
        "metrics": [{"name": "ocr.score", "value": 1.0}],
        "gates": [{"name": "ocr", "passed": True}],
        "skipped_graders": skipped,
    }


def summary(skipped: list[dict[str, str]]) -> dict[str, Any]:
    return aggregate([record("gen/a", skipped), record("gen/b", skipped)])["suites"]["gen"]


def test_a_metric_of_a_judge_grader_skipped_without_judge_names_the_grader_and_judge() -> None:
    result = check(Threshold("gen", "checklist.score", min=0.7), summary([{"name": "checklist", "reason": NO_JUDGE}]))
    assert not result.passed  # a CI run that forgot --judge must not go green
    assert result.status == "missed" and result.observed is None
    assert result.message == (
        "gen.checklist.score: not measured: its grader 'checklist' was skipped in 2 case(s): "
        "no judge configured: judge graders need --judge=openai:MODEL"
    )


def test_the_gate_of_a_skipped_grader_is_matched_too() -> None:
    result = check(Threshold("gen", "checklist", min=1), summary([{"name": "checklist", "reason": NO_JUDGE}]))
    assert not result.passed
    assert "its grader 'checklist' was skipped in 2 case(s)" in result.message


def test_a_grader_whose_name_only_starts_alike_is_not_taken_for_the_maker() -> None:
    result = check(Threshold("gen", "checklist_v2.score", min=0.7), summary([{"name": "checklist", "reason": NO_JUDGE}]))
    assert "no case recorded this metric or gate (known: ocr.score, ocr)" in result.message


def test_a_metric_that_no_grader_makes_still_lists_the_known_names() -> None:
    result = check(Threshold("gen", "ocr.scroe", min=0.5), summary([]))
    assert not result.passed
    assert result.message == "gen.ocr.scroe: no case recorded this metric or gate (known: ocr.score, ocr)"
