"""gebench protocol: field checks, the graders and prompt it implies, and GE-Score per case."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.errors import CaseFileError
from pytest_visioneval.graders.base import Gate, Metric
from pytest_visioneval.graders.outcome import CaseEvaluation, GateOutcome
from pytest_visioneval.protocols import get_protocol
from pytest_visioneval.protocols.case_files import load_case_file
from pytest_visioneval.protocols.gebench import DIMENSIONS, PROTOCOL
from tests.conftest import draw_png


@pytest.fixture
def load(tmp_path: Path) -> Callable[..., CaseSpec]:
    """Write a one-case gebench suite (with a screenshot on disk) and load it as the plugin would."""
    draw_png(tmp_path / "screen.png")

    def make(fields: dict[str, Any], **case: Any) -> CaseSpec:
        document = {
            "suite": "ge",
            "protocol": "gebench",
            "defaults": {"fields": {"language": "en", "platform": "phone"}},
            "cases": [{"id": "c1", "fields": fields, **case}],
        }
        path = tmp_path / "ge.eval.yaml"
        path.write_text(yaml.safe_dump(document, sort_keys=False, allow_unicode=True), encoding="utf-8")
        return load_case_file(path).cases[0]

    return make


def graders(case: CaseSpec) -> dict[str, Any]:
    return {g.name: g for g in case.graders}


def test_the_protocol_is_registered() -> None:
    assert get_protocol("gebench") is PROTOCOL
    assert PROTOCOL.group_by == ("task_type", "language", "platform")
    assert [s.name for s in PROTOCOL.scores] == ["ge_score", "goal", "logic", "cons", "ui", "qual"]


def test_single_step_is_an_edit_of_the_screenshot_judged_on_five_dimensions(load: Callable[..., CaseSpec]) -> None:
    case = load({"task_type": "single_step", "instruction": "Turn on Wi-Fi."}, images=["screen.png"])
    assert case.task == "image_editing"
    assert case.prompt == "Turn on Wi-Fi."
    assert set(case.tags) == {"single_step", "en", "phone"}
    found = graders(case)
    assert found["image"].options == {"count": 1}
    judge = found["judge"]
    assert judge.use == "score" and judge.options["scale"] == 5
    assert list(judge.options["dimensions"]) == list(DIMENSIONS)
    # official (the default): the judge's wording does not depend on the platform
    assert "a real application" in judge.options["dimensions"]["ui"]
    improved = load({"task_type": "single_step", "instruction": "x", "compat": "improved"}, images=["screen.png"])
    assert "real mobile app" in graders(improved)["judge"].options["dimensions"]["ui"]


def test_single_image_task_types_compare_the_next_screen_with_the_input(load: Callable[..., CaseSpec]) -> None:
    single = load({"task_type": "single_step", "instruction": "Turn on Wi-Fi."}, images=["screen.png"])
    grounding = load({"task_type": "grounding", "instruction": "Tap.", "point": [10, 20]}, images=["screen.png"])
    trajectory = load({"task_type": "multi_step", "instruction": "Order a coffee."}, images=["screen.png"])
    for case in (single, grounding):
        screen = graders(case)["screen"]
        assert screen.use == "screen_match" and screen.options == {}
    assert "screen" not in graders(trajectory) and graders(trajectory)["trajectory"].use == "trajectory"


def test_multi_step_defaults_to_five_frames_and_says_so_in_the_prompt(load: Callable[..., CaseSpec]) -> None:
    case = load({"task_type": "multi_step", "instruction": "Order a coffee."}, images=["screen.png"])
    assert graders(case)["image"].options == {"count": 5}
    assert case.prompt is not None and case.prompt.startswith("Order a coffee.") and "5 consecutive screens" in case.prompt
    assert "frame to frame" in graders(case)["judge"].options["dimensions"]["cons"]


def test_frames_can_be_set_for_trajectories(load: Callable[..., CaseSpec]) -> None:
    case = load({"task_type": "multi_step", "instruction": "Order a coffee.", "frames": 3}, images=["screen.png"])
    assert graders(case)["image"].options == {"count": 3}


def test_fiction_app_is_text_to_image_with_six_frames(load: Callable[..., CaseSpec]) -> None:
    case = load({"task_type": "fiction_app", "instruction": "An app for bees.", "platform": "computer", "compat": "improved"})
    assert case.task == "image_generation"
    assert graders(case)["image"].options == {"count": 6}
    assert "desktop or web application" in graders(case)["judge"].options["dimensions"]["ui"]


def test_real_app_takes_a_screenshot_when_there_is_one(load: Callable[..., CaseSpec]) -> None:
    assert load({"task_type": "real_app", "instruction": "Rare flow."}).task == "image_generation"
    assert load({"task_type": "real_app", "instruction": "Rare flow."}, images=["screen.png"]).task == "image_editing"


def test_grounding_point_goes_to_the_marked_judge_and_the_prompt(load: Callable[..., CaseSpec]) -> None:
    case = load(
        {
            "task_type": "grounding",
            "instruction": "Tap here.",
            "point": [120, 880.5],
            "expected": "A menu opens.",
            "compat": "improved",
        },
        images=["screen.png"],
    )
    judge = graders(case)["judge"]
    assert judge.use == "marked_score" and judge.options["point"] == [120, 880.5]
    assert "at the point (120, 880.5)" in (case.prompt or "") and "0-1000" in (case.prompt or "")
    assert case.criteria == "A menu opens."
    assert "at most 1" in judge.options["dimensions"]["goal"] and "at most 1" in judge.options["dimensions"]["cons"]


def test_grounding_box(load: Callable[..., CaseSpec]) -> None:
    fields = {"task_type": "grounding", "instruction": "Tap.", "box": [10, 20, 300, 400], "compat": "improved"}
    case = load(fields, images=["screen.png"])
    assert graders(case)["judge"].options["box"] == [10, 20, 300, 400]
    assert "inside the box from (10, 20) to (300, 400)" in (case.prompt or "")


def test_the_case_still_wins_over_what_the_fields_imply(load: Callable[..., CaseSpec]) -> None:
    case = load(
        {"task_type": "single_step", "instruction": "Turn on Wi-Fi."},
        images=["screen.png"],
        prompt="my own prompt",
        graders=[{"use": "image", "name": "image", "options": {"count": 1, "width": 64}}],
    )
    assert case.prompt == "my own prompt"
    assert graders(case)["image"].options == {"count": 1, "width": 64}


def test_judge_instructions_file_reaches_the_judge(load: Callable[..., CaseSpec], tmp_path: Path) -> None:
    (tmp_path / "official.txt").write_text("score it")
    case = load({"task_type": "fiction_app", "instruction": "x", "judge_instructions_file": "official.txt"})
    assert graders(case)["judge"].options["instructions_file"] == "official.txt"


@pytest.mark.parametrize(
    ("fields", "images", "message"),
    [
        ({"task_type": "single_step", "instruction": "x"}, None, "needs the reference GUI screenshot as images[0]"),
        ({"task_type": "multi_step", "instruction": "x"}, None, "needs the reference GUI screenshot"),
        ({"task_type": "grounding", "instruction": "x", "point": [1, 2]}, None, "needs the reference GUI screenshot"),
        ({"task_type": "fiction_app", "instruction": "x"}, ["screen.png"], "fiction_app case has no reference screenshot"),
        ({"task_type": "grounding", "instruction": "x"}, ["screen.png"], "needs exactly one of 'point'"),
        (
            {"task_type": "grounding", "instruction": "x", "point": [1, 2], "box": [1, 2, 3, 4]},
            ["screen.png"],
            "needs exactly one of 'point'",
        ),
        ({"task_type": "single_step", "instruction": "x", "point": [1, 2]}, ["screen.png"], "'point' is for grounding"),
        (
            {"task_type": "grounding", "instruction": "x", "point": [1200, 40]},
            ["screen.png"],
            "point [1200, 40] is outside the normalized range 0-1000",
        ),
        (
            {"task_type": "grounding", "instruction": "x", "box": [10, -5, 30, 40]},
            ["screen.png"],
            "outside the normalized range",
        ),
        (
            {"task_type": "grounding", "instruction": "x", "box": [500, 100, 200, 300]},
            ["screen.png"],
            "box [500, 100, 200, 300] must be [x1, y1, x2, y2] with x1 < x2 and y1 < y2",
        ),
        ({"task_type": "single_step", "instruction": "x", "frames": 2}, ["screen.png"], "produces one image"),
    ],
)
def test_nonsense_fields_are_collection_errors_with_the_case_line(
    load: Callable[..., CaseSpec], fields: dict[str, Any], images: list[str] | None, message: str
) -> None:
    extra = {"images": images} if images else {}
    with pytest.raises(CaseFileError) as info:
        load(fields, **extra)
    text = str(info.value)
    assert message in text and "gebench fields" in text and "ge.eval.yaml" in text


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"task_type": "double_step", "instruction": "x"}, "'double_step' is not one of"),
        ({"task_type": "single_step"}, "'instruction' is a required property"),
        ({"task_type": "single_step", "instruction": "x", "language": "fr"}, "'fr' is not one of ['zh', 'en']"),
        ({"task_type": "grounding", "instruction": "x", "point": [1, 2, 3]}, "is too long"),
        ({"task_type": "single_step", "instruction": "x", "frames": 0}, "less than the minimum of 1"),
        ({"task_type": "single_step", "instruction": "x", "colour": "red"}, "'colour' was unexpected"),
    ],
)
def test_schema_errors_name_the_field(load: Callable[..., CaseSpec], fields: dict[str, Any], message: str) -> None:
    with pytest.raises(CaseFileError, match="gebench field") as info:
        load(fields, images=["screen.png"])
    assert message in str(info.value)


# -- case_scores ------------------------------------------------------------


def evaluation(
    case: CaseSpec, dims: Mapping[str, float] | None, *, count_ok: bool = True, decodes: bool = True
) -> CaseEvaluation:
    metrics = tuple(Metric(f"judge.{name}", value) for name, value in (dims or {}).items())
    gates = (
        GateOutcome(Gate("image.decodes", decodes, ""), True),
        GateOutcome(Gate("image.count", count_ok, ""), True),
    )
    return CaseEvaluation(case, (), gates, metrics)


@pytest.fixture
def case(load: Callable[..., CaseSpec]) -> CaseSpec:
    return load({"task_type": "multi_step", "instruction": "Order a coffee."}, images=["screen.png"])


def test_ge_score_is_the_sum_over_25_times_100_and_each_dimension_times_20(case: CaseSpec) -> None:
    dims = {"goal": 5, "logic": 4, "cons": 3, "ui": 4, "qual": 2}
    scores = PROTOCOL.case_scores(case, evaluation(case, dims))
    assert scores is not None
    assert scores["ge_score"] == pytest.approx(18 / 25 * 100)
    assert scores["goal"] == pytest.approx(100) and scores["cons"] == pytest.approx(60) and scores["qual"] == pytest.approx(40)
    # the paper's equivalence: GE-Score is the mean of the per-dimension scores x 20
    assert scores["ge_score"] == pytest.approx(sum(scores[d] for d in DIMENSIONS) / 5)


def test_means_over_several_judgements_are_used_as_they_are(case: CaseSpec) -> None:
    # e.g. two judges x two repeats: the score grader reports each dimension's mean
    dims = {"goal": 3.5, "logic": 4.25, "cons": 2.75, "ui": 5, "qual": 4.5}
    scores = PROTOCOL.case_scores(case, evaluation(case, dims))
    assert scores is not None and scores["ge_score"] == pytest.approx(20 / 25 * 100)
    assert scores["logic"] == pytest.approx(85)


def test_without_the_judge_the_case_is_unscored(case: CaseSpec) -> None:
    assert PROTOCOL.case_scores(case, evaluation(case, None)) is None
    partial = {"goal": 5, "logic": 4, "cons": 3, "ui": 4}  # qual missing
    assert PROTOCOL.case_scores(case, evaluation(case, partial)) is None


@pytest.mark.parametrize(("count_ok", "decodes"), [(False, True), (True, False)])
def test_a_trajectory_with_the_wrong_frames_scores_zero(case: CaseSpec, count_ok: bool, decodes: bool) -> None:
    dims = {"goal": 5, "logic": 5, "cons": 5, "ui": 5, "qual": 5}
    scores = PROTOCOL.case_scores(case, evaluation(case, dims, count_ok=count_ok, decodes=decodes))
    assert scores == {"ge_score": 0.0, "goal": 0.0, "logic": 0.0, "cons": 0.0, "ui": 0.0, "qual": 0.0}


def test_the_example_suite_loads(tmp_path: Path) -> None:
    suite = load_case_file(Path(__file__).parents[3] / "cases" / "gebench" / "gui_environments.eval.yaml")
    types = sorted(c.fields["task_type"] for c in suite.cases)
    assert set(types) == {"single_step", "multi_step", "fiction_app", "real_app", "grounding"}
