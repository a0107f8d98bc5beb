"""Checklist judge: N yes/no questions in one call, each answer kept with its reason."""

from __future__ import annotations

import base64
import io
from collections.abc import Callable
from typing import Any

import pytest
from PIL import Image

from pytest_visioneval.artifacts import Artifact
from pytest_visioneval.graders import GradeContext
from pytest_visioneval.graders.checklist import ChecklistGrader
from pytest_visioneval.testing import FakeOpenAIServer
from tests.unit.conftest import image_bytes, reply, user_text

OUTPUT = (Artifact("image-0.png", image_bytes()),)
QUESTIONS = [f"Is element {i} present?" for i in range(1, 9)]


def answers(no: tuple[int, ...] = (), skip: tuple[int, ...] = ()) -> str:
    items = [
        {"id": i, "reason": f"reason {i}", "answer": "no" if i in no else "yes"}
        for i in range(1, len(QUESTIONS) + 1)
        if i not in skip
    ]
    return reply({"answers": items})


def test_all_yes_passes(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    server.queue_replies(answers())
    grade = ChecklistGrader({"questions": QUESTIONS}).grade(make_case(), OUTPUT, judge_context())
    assert grade.gates[0].passed and grade.gates[0].reason.startswith("8/8 answered yes")
    metrics = {m.name: m for m in grade.metrics}
    assert metrics["score"].value == 1.0 and metrics["errors"].value == 0.0
    assert metrics["q3"].value == 1.0 and "Is element 3 present? - openai:judge-0: reason 3" == metrics["q3"].reason


def test_a_no_fails_and_names_the_question(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    server.queue_replies(answers(no=(7,)))
    grade = ChecklistGrader({"questions": QUESTIONS}).grade(make_case(), OUTPUT, judge_context())
    gate = grade.gates[0]
    assert not gate.passed
    assert 'judge answered "no" to Q7 (Is element 7 present?): reason 7' in gate.reason
    assert {m.name: m.value for m in grade.metrics}["score"] == pytest.approx(7 / 8)


def test_an_unanswered_question_counts_as_wrong(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    server.queue_replies(answers(skip=(2, 5)))
    grade = ChecklistGrader({"questions": QUESTIONS, "min_score": 0.5}).grade(make_case(), OUTPUT, judge_context())
    metrics = {m.name: m for m in grade.metrics}
    assert metrics["score"].value == pytest.approx(6 / 8) and metrics["errors"].value == pytest.approx(2)
    assert metrics["q5"].value == 0.0 and "not answered (counts as no)" in metrics["q5"].reason
    assert grade.gates[0].passed  # 6/8 >= 0.5
    assert "Q2 was not answered" in grade.gates[0].reason


def test_min_score_threshold(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    server.queue_replies(answers(no=(1, 2, 3)))
    gate = ChecklistGrader({"questions": QUESTIONS, "min_score": 0.75}).grade(make_case(), OUTPUT, judge_context()).gates[0]
    assert not gate.passed and gate.reason.startswith("5/8 answered yes (needs 75%)")


def test_hidden_rationale_is_shown_to_the_judge_only(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    server.queue_replies(answers())
    ChecklistGrader({"questions": QUESTIONS, "hidden_rationale": "The capital is Canberra."}).grade(
        make_case(), OUTPUT, judge_context()
    )
    text = user_text(server.requests[0].json)
    assert "The capital is Canberra." in text and "8. Is element 8 present?" in text
    schema = server.requests[0].json["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["answers"]["items"]["properties"]["id"]["maximum"] == 8


def test_question_ids_out_of_range_are_rejected_then_error(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    from pytest_visioneval.errors import JudgeOutputError

    server.text_reply = reply({"answers": [{"id": 99, "reason": "r", "answer": "yes"}]})
    with pytest.raises(JudgeOutputError, match="99 is greater than the maximum of 8"):
        ChecklistGrader({"questions": QUESTIONS}).grade(make_case(), OUTPUT, judge_context())


def test_majority_over_repeats(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    server.queue_replies(answers(no=(4,)), answers(), answers(no=(4,)))
    grade = ChecklistGrader({"questions": QUESTIONS}).grade(make_case(), OUTPUT, judge_context(repeats=3))
    metrics = {m.name: m.value for m in grade.metrics}
    assert metrics["q4"] == pytest.approx(1 / 3)
    assert not grade.gates[0].passed and "Q4" in grade.gates[0].reason
    assert metrics["score.std"] > 0


def _sent_sizes(request_json: dict[str, Any]) -> list[tuple[int, int]]:
    urls = [p["image_url"]["url"] for p in request_json["messages"][1]["content"] if p["type"] == "image_url"]
    return [Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).size for url in urls]


@pytest.mark.parametrize(("full_size", "expected"), [(False, (1024, 512)), (True, (2000, 1000))])
def test_full_size_images_are_sent_unscaled(
    server: FakeOpenAIServer,
    judge_context: Callable[..., GradeContext],
    make_case: Callable[..., Any],
    full_size: bool,
    expected: tuple[int, int],
) -> None:
    """BizGenEval's official judge gets the image file as it is (utils/gemini.py, _load_image_bytes_and_mime)."""
    server.queue_replies(answers())
    large = (Artifact("image-0.png", image_bytes(size=(2000, 1000))),)
    options = {"questions": QUESTIONS, "full_size_images": full_size}
    ChecklistGrader(options).grade(make_case(), large, judge_context())
    assert _sent_sizes(server.requests[0].json) == [expected]  # the judge's default max side is 1024


def test_a_question_whose_parent_was_answered_no_counts_as_no(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    # Q2 presupposes Q1 and Q3 presupposes Q2: the judge says no to Q1 only, yet Q2 and Q3 cannot stand.
    questions: list[Any] = [
        "Is there a logo?",
        {"text": "Is the logo's text red?", "depends_on": [1]},
        {"text": "Does the red text read ACME?", "depends_on": [2]},
        "Is the background white?",
    ]
    server.queue_replies(
        reply({"answers": [{"id": i, "reason": f"r{i}", "answer": "no" if i == 1 else "yes"} for i in range(1, 5)]})
    )
    grade = ChecklistGrader({"questions": questions}).grade(make_case(), OUTPUT, judge_context())
    metrics = {m.name: m for m in grade.metrics}
    assert [metrics[f"q{i}"].value for i in range(1, 5)] == [0.0, 0.0, 0.0, 1.0]
    assert metrics["score"].value == pytest.approx(1 / 4)
    assert "depends on Q1, not answered yes" in metrics["q2"].reason
    assert "depends on Q2, not answered yes" in metrics["q3"].reason
    reason = grade.gates[0].reason
    assert 'judge answered "no" to Q1 (Is there a logo?)' in reason
    assert "Q2 counts as no (Is the logo's text red?): depends on Q1" in reason
    # The judge's own yes to Q2 and Q3 is not counted; with Q1 answered yes, they count as answered.
    server.queue_replies(reply({"answers": [{"id": i, "reason": f"r{i}", "answer": "yes"} for i in range(1, 5)]}))
    assert ChecklistGrader({"questions": questions}).grade(make_case(), OUTPUT, judge_context()).gates[0].passed


def test_a_question_may_depend_only_on_earlier_ones(make_case: Callable[..., Any]) -> None:
    options = {"questions": ["a?", {"text": "b?", "depends_on": [2]}]}
    problem = ChecklistGrader.check_case(make_case(), options)
    assert problem == "question 2 depends on [2]: a question may depend only on earlier ones"
    assert ChecklistGrader.check_case(make_case(), {"questions": ["a?", {"text": "b?", "depends_on": [1]}]}) is None
