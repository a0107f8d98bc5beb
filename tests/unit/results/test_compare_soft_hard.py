"""results/compare.py: a checklist scored soft in one run and hard in the other is named as such."""

from __future__ import annotations

from typing import Any

from pytest_visioneval.report.compare_text import compare_lines
from pytest_visioneval.results.compare import Settings, compare_runs, sides_of
from tests.unit.results.test_compare import case, doc

FAST = Settings(resamples=200)


def run(soft: bool) -> dict[str, Any]:
    extra = {"checklist.soft_score": 0.7} if soft else {}
    return doc([case(f"s/c{i}", metrics={"checklist.score": 1.0, "image.width": 64, **extra}) for i in range(3)])


def compare(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    return compare_runs(sides_of([("a.json", a), ("b.json", b)]), FAST)["comparisons"][0]


def test_soft_in_one_run_and_hard_in_the_other_is_said() -> None:
    comparison = compare(run(soft=False), run(soft=True))
    expected = "suite s: checklist scored hard in A, soft in B (soft: P(yes) from token probabilities)"
    assert comparison["scoring_changes"] == [expected]
    assert expected in comparison["judge_changes"]


def test_the_same_mode_on_both_sides_says_nothing() -> None:
    assert compare(run(soft=True), run(soft=True))["scoring_changes"] == []
    assert compare(run(soft=False), run(soft=False))["judge_changes"] == []


def test_the_text_view_prints_it_as_a_judge_change() -> None:
    document = compare_runs(sides_of([("a.json", run(soft=True)), ("b.json", run(soft=False))]), FAST)
    assert "JUDGE CHANGED: suite s: checklist scored soft in A, hard in B" in "\n".join(compare_lines(document))
