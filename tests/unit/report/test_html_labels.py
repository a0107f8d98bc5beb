"""report/html_cases.py: what the report offers for labelling, and the case names the label CSV uses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_visioneval.report.html_cases import case_data, judged_items
from pytest_visioneval.report.html_images import ReportImages


def metric(name: str, value: float) -> dict[str, Any]:
    return {"name": name, "value": value, "reason": f"why {name}", "higher_is_better": True}


def gate(name: str, passed: bool) -> dict[str, Any]:
    return {"name": name, "passed": passed, "reason": f"why {name}", "gating": True}


def test_judge_gates_answers_and_scores_are_offered_and_derived_numbers_are_not() -> None:
    case = {
        "gates": [gate("checklist.answers", False), gate("rubric.verdict", True), gate("image.decodes", True)],
        "metrics": [
            metric("checklist.q1", 1.0),
            metric("checklist.q2", 0.0),
            metric("checklist.q3", 0.5),  # judges split evenly: a yes, as the grader counts it
            metric("checklist.score", 0.5),
            metric("checklist.errors", 1.0),
            metric("score.goal", 4.0),
            metric("score.goal.std", 0.5),
            metric("score.mean", 4.0),
            metric("rubric.failure_tag.blurry", 0.5),
            metric("similarity.score", 0.9),
        ],
    }
    assert judged_items(case) == [
        ["checklist.answers", "b", 0, "why checklist.answers"],
        ["rubric.verdict", "b", 1, "why rubric.verdict"],
        ["checklist.q1", "b", 1, "why checklist.q1"],
        ["checklist.q2", "b", 0, "why checklist.q2"],
        ["checklist.q3", "b", 1, "why checklist.q3"],
        ["score.goal", "n", 4.0, "why score.goal"],
    ]


def test_a_case_without_a_judge_offers_nothing() -> None:
    assert judged_items({"gates": [gate("image.decodes", False)], "metrics": [metric("ssim.score", 0.2)]}) == []


def record(uid: str, model: str) -> dict[str, Any]:
    suite = uid.split("/")[0]
    return {"uid": uid, "suite": suite, "model": model, "task": "image_generation", "status": "passed"}


def test_the_label_case_name_is_the_uid_or_with_several_models_uid_and_model(tmp_path: Path) -> None:
    one = case_data([record("s/a", "m1")], ReportImages(tmp_path / "f"))
    assert [r["lk"] for r in one["cases"]] == ["s/a"]
    two = case_data([record("s/a", "m1"), record("s/a", "m2")], ReportImages(tmp_path / "g"))
    assert [r["lk"] for r in two["cases"]] == ["s/a[m1]", "s/a[m2]"]  # as `agreement` names them (results/case_keys.py)


def test_a_judge_renamed_in_the_case_file_is_offered_by_its_kind() -> None:
    case = {
        "graders": {"style_check": "checklist", "looks": "score", "checklist": "ssim", "image": "image"},
        "gates": [gate("style_check.answers", True), gate("checklist.score", False), gate("image.decodes", True)],
        "metrics": [
            metric("style_check.q1", 0.0),
            metric("style_check.score", 0.0),  # derived: not offered
            metric("looks.goal", 3.0),
            metric("looks.mean", 3.0),  # derived: not offered
            metric("checklist.ssim", 0.4),  # a deterministic grader that took a judge's default name
        ],
    }
    assert judged_items(case) == [
        ["style_check.answers", "b", 1, "why style_check.answers"],
        ["style_check.q1", "b", 0, "why style_check.q1"],
        ["looks.goal", "n", 3.0, "why looks.goal"],
    ]


def test_without_the_graders_map_a_renamed_judge_is_not_found_but_default_names_still_are() -> None:
    # Records written before they named their graders' kinds: the first part of a name is the grader's default name.
    case = {"gates": [gate("style_check.answers", True)], "metrics": [metric("checklist.q2", 1.0), metric("style_check.q1", 1.0)]}
    assert judged_items(case) == [["checklist.q2", "b", 1, "why checklist.q2"]]


def test_the_longest_grader_name_wins_when_one_name_starts_another() -> None:
    case = {"graders": {"judge": "ssim", "judge.v2": "score"}, "metrics": [metric("judge.v2.goal", 4.0), metric("judge.x", 0.3)]}
    assert judged_items(case) == [["judge.v2.goal", "n", 4.0, "why judge.v2.goal"]]
