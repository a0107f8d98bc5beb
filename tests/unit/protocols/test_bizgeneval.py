"""bizgeneval protocol: field checks, the graders it implies, and the published per-case formula."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
import yaml
from PIL import Image, ImageDraw

from pytest_visioneval.artifacts import Artifact
from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.errors import CaseFileError
from pytest_visioneval.graders.base import Gate, Metric
from pytest_visioneval.graders.checklist import ChecklistGrader
from pytest_visioneval.graders.image import ImageGrader
from pytest_visioneval.graders.outcome import CaseEvaluation, GateOutcome
from pytest_visioneval.protocols import get_protocol
from pytest_visioneval.protocols.bizgeneval import ASPECT_TOLERANCE, PROTOCOL, check_tracks, track_score
from pytest_visioneval.protocols.case_files import load_case_file

QUESTIONS = [f"Is requirement {i} met?" for i in range(1, 21)]
EASY = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
HARD = [11, 12, 13, 14, 15, 16, 17, 18, 19, 20]


def fields(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "domain": "chart",
        "dimension": "attribute",
        "questions": QUESTIONS,
        "easy_qidxs": EASY,
        "hard_qidxs": HARD,
    }
    base.update(overrides)
    return {k: v for k, v in base.items() if v is not None}


@pytest.fixture
def load(tmp_path: Path) -> Callable[..., CaseSpec]:
    """Write a one-case bizgeneval suite and load it as the plugin would."""

    def make(case_fields: dict[str, Any], **case: Any) -> CaseSpec:
        document = {
            "suite": "biz",
            "protocol": "bizgeneval",
            "cases": [{"id": "c1", "prompt": "draw a chart", "fields": case_fields, **case}],
        }
        path = tmp_path / "biz.eval.yaml"
        path.write_text(yaml.safe_dump(document, sort_keys=False))
        return load_case_file(path).cases[0]

    return make


def test_the_protocol_is_registered() -> None:
    assert get_protocol("bizgeneval") is PROTOCOL
    assert PROTOCOL.group_by == ("domain", "dimension")
    assert [s.name for s in PROTOCOL.scores] == ["easy", "hard", "all"]


# -- fields and the case they imply --------------------------------------------------------------


def test_fields_imply_a_text_to_image_case_with_image_gates_and_a_non_gating_checklist(load: Callable[..., CaseSpec]) -> None:
    case = load(fields(rationale="The answer is 42.", compat="improved"))
    assert case.task == "image_generation" and case.prompt == "draw a chart"
    assert case.tags == ("chart", "attribute")
    image, checklist = case.graders
    assert (image.use, image.name, image.gate) == ("image", "image", True)
    assert (checklist.use, checklist.name, checklist.gate) == ("checklist", "checklist", False)
    # improved: the judge sees what every judge sees (prompt included, images downscaled) and the rationale
    assert dict(checklist.options) == {"questions": QUESTIONS, "hidden_rationale": "The answer is 42."}


def test_the_asked_aspect_ratio_becomes_an_image_gate_unless_a_size_is_asked(load: Callable[..., CaseSpec]) -> None:
    image = load(fields(aspect_ratio="16:9")).graders[0]
    assert dict(image.options) == {"aspect": pytest.approx(16 / 9), "aspect_tolerance": ASPECT_TOLERANCE}
    assert dict(load(fields(aspect_ratio="16:9"), params={"size": "1536x1024"}).graders[0].options) == {}
    assert dict(load(fields()).graders[0].options) == {}


def test_the_implied_aspect_gate_passes_a_nearby_supported_size_and_fails_a_stretched_picture(
    load: Callable[..., CaseSpec], tmp_path: Path
) -> None:
    grader = ImageGrader(load(fields(aspect_ratio="4:3")).graders[0].options)

    def aspect_gate(width: int, height: int) -> Gate:
        picture = Image.new("RGB", (width, height), "white")
        ImageDraw.Draw(picture).ellipse((10, 10, width - 10, height - 10), fill="teal")
        encoded = io.BytesIO()
        picture.save(encoded, format="PNG")
        artifact = Artifact(name="image-0.png", data=encoded.getvalue(), mime="image/png")
        return next(g for g in grader.grade(load(fields()), [artifact]).gates if g.name == "aspect")

    assert aspect_gate(1536, 1024).passed  # 3:2, the nearest size many endpoints offer
    stretched = aspect_gate(round(640 * 1.3), 480)
    assert not stretched.passed and "has aspect 1.733" in stretched.reason and "expected 1.333" in stretched.reason
    assert not aspect_gate(1024, 1024).passed


@pytest.mark.parametrize("text", ["wide", "16:0", "-4:3"])
def test_an_aspect_ratio_that_is_not_a_ratio_is_a_collection_error(load: Callable[..., CaseSpec], text: str) -> None:
    with pytest.raises(CaseFileError, match="is not a ratio such as '16:9'"):
        load(fields(aspect_ratio=text))


def test_official_judge_sees_only_the_full_size_image_and_the_checklist(load: Callable[..., CaseSpec]) -> None:
    """microsoft/BizGenEval evaluation/image_evaluation.py, evaluate_item (lines 185-212): the user message is the
    numbered checklist (``_format_checklist``, line 137) rendered into the tag's template, sent with the image file
    as read from disk (utils/gemini.py ``_load_image_bytes_and_mime``, line 48: no resizing); the prompt and any
    rationale are not sent."""
    case = load(fields(rationale="The answer is 42."))  # compat defaults to official
    checklist = case.graders[1]
    assert dict(checklist.options) == {
        "questions": QUESTIONS,
        "view": {"prompt": False, "inputs": False, "outputs": "all", "code": False},
        "full_size_images": True,
    }


def test_compat_is_checked(load: Callable[..., CaseSpec]) -> None:
    with pytest.raises(CaseFileError, match="fields.compat': bizgeneval field: 'strict' is not one of"):
        load(fields(compat="strict"))


def test_gate_min_score_makes_the_checklist_a_gate(load: Callable[..., CaseSpec]) -> None:
    checklist = load(fields(gate_min_score=0.75)).graders[1]
    assert checklist.gate is True and checklist.options["min_score"] == 0.75
    assert "hidden_rationale" not in checklist.options


def test_instructions_file_is_handed_to_the_checklist(load: Callable[..., CaseSpec], tmp_path: Path) -> None:
    (tmp_path / "official.txt").write_text("my prompt")
    assert load(fields(judge_instructions_file="official.txt")).graders[1].options["instructions_file"] == "official.txt"


@pytest.fixture
def prompt_files(tmp_path: Path) -> dict[str, str]:
    files = {"text": "text.txt", "text1": "strict-text.txt", "layout": "layout.txt", "any": "generic.txt"}
    for name in files.values():
        (tmp_path / name).write_text(f"prompt in {name}")
    return files


@pytest.mark.parametrize("compat", ["official", "improved"])
@pytest.mark.parametrize(
    ("eval_tag", "expected"),
    [("text1", "strict-text.txt"), ("text", "text.txt"), (["knowledge", "layout"], "layout.txt"), ("attribute", "generic.txt")],
)
def test_the_judge_prompt_is_chosen_by_eval_tag(
    load: Callable[..., CaseSpec], prompt_files: dict[str, str], compat: str, eval_tag: Any, expected: str
) -> None:
    """image_evaluation.py line 189: ``EVAL_SYSTEM, EVAL_USER_TEMPLATE = EVAL_GENERATION_PROMPTS[eval_tag]``; the
    official table (evaluation/evaluate_prompt.py) has attribute, layout, text, knowledge and text1 (the stricter text
    prompt of the 40 chart and scientific-figure text rows). Our tag files are the user's; the singular file serves the
    tags without one."""
    per_tag = {tag: prompt_files[tag] for tag in ("text", "text1", "layout")}
    case = load(
        fields(eval_tag=eval_tag, judge_instructions_files=per_tag, judge_instructions_file=prompt_files["any"], compat=compat)
    )
    assert case.graders[1].options["instructions_file"] == expected


def test_a_tag_without_a_prompt_and_no_fallback_is_a_collection_error(
    load: Callable[..., CaseSpec], prompt_files: dict[str, str]
) -> None:
    """The official harness stops on a tag it has no prompt for (image_evaluation.py line 173, an assert)."""
    with pytest.raises(CaseFileError, match=r"judge_instructions_files has no prompt for eval_tag 'knowledge' \(it has text"):
        load(fields(eval_tag="knowledge", judge_instructions_files={"text": prompt_files["text"]}))
    with pytest.raises(CaseFileError, match="no prompt for a case without eval_tag"):
        load(fields(judge_instructions_files={"text": prompt_files["text"]}))
    # a missing file is found when the plugin collects the case (the checklist's check_case)
    case = load(fields(eval_tag="text", judge_instructions_files={"text": "nope.txt"}))
    assert ChecklistGrader.check_case(case, case.graders[1].options) == "instructions_file not found: 'nope.txt'"
    with pytest.raises(CaseFileError, match="fields.judge_instructions_files'"):
        load(fields(judge_instructions_files={}))


def test_a_case_can_replace_the_implied_checklist_by_name(load: Callable[..., CaseSpec]) -> None:
    case = load(fields(), graders=[{"use": "checklist", "name": "checklist", "options": {"questions": ["only one?"]}}])
    assert [g.name for g in case.graders] == ["image", "checklist"]
    assert case.graders[1].options["questions"] == ["only one?"] and case.graders[1].gate is True


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"domain": "brochure"}, "fields.domain': bizgeneval field: 'brochure' is not one of"),
        ({"dimension": None}, "bizgeneval field: 'dimension' is a required property"),
        ({"questions": QUESTIONS[:19]}, "fields.questions': bizgeneval field:"),
        ({"easy_qidxs": EASY[:9]}, "easy_qidxs must list 10 questions, got 9"),
        ({"hard_qidxs": [10, *HARD[1:]]}, "questions [10] are in both easy_qidxs and hard_qidxs"),
        ({"hard_qidxs": [*HARD[:9], 21]}, "hard_qidxs has [21]: question numbers are 1-based, within 1..20"),
        ({"easy_qidxs": [0, *EASY[1:]]}, "easy_qidxs has [0]: question numbers are 1-based"),
        ({"easy_qidxs": [1, 1, *EASY[2:]]}, "easy_qidxs lists [1] more than once"),
        ({"easy_qidxs": ["1", *EASY[1:]]}, "fields.easy_qidxs[0]': bizgeneval field: '1' is not of type 'integer'"),
        ({"domian": "chart"}, "Additional properties are not allowed ('domian' was unexpected)"),
        ({"reference_image_wh": [1024]}, "fields.reference_image_wh': bizgeneval field:"),
        ({"gate_min_score": 1.5}, "fields.gate_min_score': bizgeneval field: 1.5 is greater than the maximum of 1"),
    ],
)
def test_bad_fields_are_collection_errors_naming_the_field(
    load: Callable[..., CaseSpec], bad: dict[str, Any], message: str
) -> None:
    with pytest.raises(CaseFileError) as info:
        load(fields(**bad))
    assert message in str(info.value)
    assert info.value.line is not None


def test_a_task_other_than_text_to_image_is_refused(load: Callable[..., CaseSpec], tmp_path: Path) -> None:
    (tmp_path / "in.png").write_bytes(b"x")
    with pytest.raises(CaseFileError, match="bizgeneval cases are text-to-image"):
        load(fields(), task="image_editing", images=["in.png"])


def test_check_tracks_accepts_any_disjoint_split() -> None:
    check_tracks([2, 4, 6, 8, 10, 12, 14, 16, 18, 20], [1, 3, 5, 7, 9, 11, 13, 15, 17, 19])


# -- scores -----------------------------------------------------------------------------------------


def evaluation(case: CaseSpec, q: dict[int, float] | None = None, *, skipped: Iterable[str] = ()) -> CaseEvaluation:
    """An evaluation whose checklist gave ``q<N>`` = q[N] (default 1.0 for every question)."""
    values = {i: 1.0 for i in range(1, 21)} if q is None else q
    metrics = tuple(Metric(f"checklist.q{i}", v) for i, v in values.items())
    gates = (GateOutcome(Gate("image.not_blank", True, "ok"), True),)
    return CaseEvaluation(case, (), gates, metrics, tuple((name, "no judge configured") for name in skipped))


def with_no(*numbers: int, value: float = 0.0) -> dict[int, float]:
    return {i: (value if i in numbers else 1.0) for i in range(1, 21)}


def test_all_yes_scores_100_on_every_track(load: Callable[..., CaseSpec]) -> None:
    case = load(fields())
    assert PROTOCOL.case_scores(case, evaluation(case)) == {"easy": 100.0, "hard": 100.0, "all": 100.0}


def test_three_easy_and_six_hard_errors(load: Callable[..., CaseSpec]) -> None:
    case = load(fields())
    scores = PROTOCOL.case_scores(case, evaluation(case, with_no(1, 2, 3, 11, 12, 13, 14, 15, 16)))
    # easy 1 - 0.2 x 3 = 0.4; hard 1 - 0.2 x 6 < 0 -> 0; all 1 - 0.1 x 9 = 0.1
    assert scores == {"easy": 40.0, "hard": 0.0, "all": 10.0}


def test_tracks_follow_the_case_s_own_indexes(load: Callable[..., CaseSpec]) -> None:
    odd, even = [1, 3, 5, 7, 9, 11, 13, 15, 17, 19], [2, 4, 6, 8, 10, 12, 14, 16, 18, 20]
    case = load(fields(easy_qidxs=even, hard_qidxs=odd))
    scores = PROTOCOL.case_scores(case, evaluation(case, with_no(1, 3, 20)))
    assert scores == {"easy": 80.0, "hard": 60.0, "all": 70.0}


def test_five_errors_zero_a_track_and_ten_zero_all(load: Callable[..., CaseSpec]) -> None:
    case = load(fields())
    scores = PROTOCOL.case_scores(case, evaluation(case, with_no(1, 2, 3, 4, 5, 11, 12, 13, 14, 15)))
    assert scores == {"easy": 0.0, "hard": 0.0, "all": 0.0}


def test_a_tie_between_judge_passes_is_an_error_and_a_majority_is_not(load: Callable[..., CaseSpec]) -> None:
    case = load(fields())
    q = with_no(1, value=0.5) | {2: 2 / 3, 11: 1 / 3}
    assert PROTOCOL.case_scores(case, evaluation(case, q)) == {"easy": 80.0, "hard": 80.0, "all": 80.0}


def test_a_question_without_a_metric_counts_as_wrong(load: Callable[..., CaseSpec]) -> None:
    case = load(fields())
    q = {i: 1.0 for i in range(1, 21) if i not in (4, 17)}
    assert PROTOCOL.case_scores(case, evaluation(case, q)) == {"easy": 80.0, "hard": 80.0, "all": 80.0}
    # nothing to judge: the checklist records no q<N> at all
    assert PROTOCOL.case_scores(case, evaluation(case, {})) == {"easy": 0.0, "hard": 0.0, "all": 0.0}


def test_no_scores_when_the_checklist_was_skipped(load: Callable[..., CaseSpec]) -> None:
    case = load(fields())
    assert PROTOCOL.case_scores(case, evaluation(case, {}, skipped=["checklist"])) is None


def test_no_scores_when_the_case_replaced_the_checklist(load: Callable[..., CaseSpec]) -> None:
    case = load(fields(), graders=[{"use": "rubric", "name": "checklist", "options": {"rubric": "ui_mockup"}}])
    assert PROTOCOL.case_scores(case, evaluation(case)) is None


def test_track_score_is_exact_on_the_percent_scale() -> None:
    assert [track_score(e, 20) for e in range(7)] == [100.0, 80.0, 60.0, 40.0, 20.0, 0.0, 0.0]
    assert track_score(3, 10) == 70.0 and track_score(12, 10) == 0.0
