"""Soft checklists: P(yes) per question from first-token logprobs, dependent questions multiplied down."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pytest_visioneval.artifacts import Artifact
from pytest_visioneval.errors import JudgeOutputError
from pytest_visioneval.graders import GradeContext
from pytest_visioneval.graders.checklist import ChecklistGrader
from pytest_visioneval.graders.soft_checklist import ancestors, joint_probabilities, probability_gate
from pytest_visioneval.testing import FakeOpenAIServer
from pytest_visioneval.testing.logprob_replies import yes_no_tokens
from tests.unit.conftest import image_bytes, user_text

OUTPUT = (Artifact("image-0.png", image_bytes()),)
QUESTIONS = ["Is there a logo?", "Is the logo red?", "Is there a title?"]
P_YES = {"Is there a logo?": 0.9, "Is the logo red?": 0.6, "Is there a title?": 0.3}


def by_question(request: Any) -> dict[str, float]:
    text = user_text(request.json)
    asked = next(line for line in text.splitlines() if line.startswith("Question: "))
    return yes_no_tokens(P_YES[asked.removeprefix("Question: ")])


def metrics_of(grade: Any) -> dict[str, float]:
    return {m.name: m.value for m in grade.metrics}


def test_each_question_is_asked_apart_and_its_probability_recorded(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    server.logprobs_for = by_question
    grade = ChecklistGrader({"questions": QUESTIONS, "soft": True}).grade(make_case(), OUTPUT, judge_context())
    metrics = metrics_of(grade)
    assert metrics["p1"] == pytest.approx(0.9) and metrics["p2"] == pytest.approx(0.6) and metrics["p3"] == pytest.approx(0.3)
    assert metrics["soft_score"] == pytest.approx(0.6)
    # hard answers from the same replies: yes when P(yes) > 0.5
    assert metrics["score"] == pytest.approx(2 / 3) and metrics["q3"] == 0.0
    gate = grade.gates[0]
    assert not gate.passed
    assert gate.reason == '2/3 answered yes (needs 100%); judge answered "no" to Q3 (Is there a title?): P(yes) 0.30'
    bodies = [r.json for r in server.calls_to("/chat/completions")]
    assert len(bodies) == 3 and all(b["logprobs"] is True and b["top_logprobs"] == 20 for b in bodies)
    assert all("response_format" not in b for b in bodies)


def test_a_dependent_question_multiplies_down(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    server.logprobs_for = by_question
    questions = [QUESTIONS[0], {"text": QUESTIONS[1], "depends_on": [1]}, QUESTIONS[2]]
    grade = ChecklistGrader({"questions": questions, "soft": True}).grade(make_case(), OUTPUT, judge_context())
    metrics = metrics_of(grade)
    assert metrics["p2"] == pytest.approx(0.9 * 0.6)  # P(red and logo) = P(red | logo) P(logo)
    assert metrics["soft_score"] == pytest.approx((0.9 + 0.54 + 0.3) / 3)
    asked = [user_text(r.json) for r in server.calls_to("/chat/completions")]
    assert any("Question: Is the logo red?\nAssume the answer to each of these is yes: Is there a logo?" in t for t in asked)


def test_min_probability_gates_on_the_probabilities_and_names_the_low_ones(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    server.logprobs_for = by_question
    options = {"questions": QUESTIONS, "soft": True, "min_probability": 0.5, "min_score": 0.6}
    grade = ChecklistGrader(options).grade(make_case(), OUTPUT, judge_context())
    assert grade.gates[0].passed and grade.gates[0].reason.startswith("2/3 with P(yes) >= 0.5 (needs 60%)")
    options["min_probability"] = 0.7
    grade = ChecklistGrader(options).grade(make_case(), OUTPUT, judge_context())
    assert not grade.gates[0].passed
    assert grade.gates[0].reason == (
        "1/3 with P(yes) >= 0.7 (needs 60%); Q2 P(yes) 0.60 (Is the logo red?); Q3 P(yes) 0.30 (Is there a title?)"
    )


def test_repeats_give_the_soft_score_a_spread(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    asked = iter([0.8, 0.6, 0.4, 0.2])  # Q1 repeat 0, Q1 repeat 1, Q2 repeat 0, Q2 repeat 1
    server.logprobs_for = lambda request: yes_no_tokens(next(asked))
    grade = ChecklistGrader({"questions": QUESTIONS[:2], "soft": True}).grade(make_case(), OUTPUT, judge_context(repeats=2))
    metrics = metrics_of(grade)
    # repeat 0: Q1 0.8, Q2 0.4 -> 0.6; repeat 1: Q1 0.6, Q2 0.2 -> 0.4
    assert metrics["soft_score"] == pytest.approx(0.5) and metrics["soft_score.std"] == pytest.approx(0.1)


def test_soft_needs_logprobs_from_the_endpoint(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    server.logprobs_for = lambda request: None
    with pytest.raises(JudgeOutputError, match="the endpoint returned no logprobs"):
        ChecklistGrader({"questions": QUESTIONS, "soft": True}).grade(make_case(), OUTPUT, judge_context())


def test_hard_mode_is_unchanged_and_asks_no_logprobs(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    server.queue_replies('{"answers": [{"id": 1, "reason": "r", "answer": "yes"}]}')
    grade = ChecklistGrader({"questions": QUESTIONS[:1]}).grade(make_case(), OUTPUT, judge_context())
    assert grade.gates[0].passed and "soft_score" not in metrics_of(grade)
    (body,) = [r.json for r in server.calls_to("/chat/completions")]
    assert "logprobs" not in body and body["response_format"]["type"] == "json_schema"


def test_min_probability_without_soft_is_refused(make_case: Callable[..., Any]) -> None:
    problem = ChecklistGrader.check_case(make_case(), {"questions": QUESTIONS, "min_probability": 0.5})
    assert problem == "min_probability needs soft: true (probabilities are read only in soft mode)"
    assert ChecklistGrader.check_case(make_case(), {"questions": QUESTIONS, "soft": True, "min_probability": 0.5}) is None


def test_ancestors_count_once_along_every_path() -> None:
    parents = {2: (1,), 3: (1, 2), 4: (3,)}
    assert ancestors(4, parents) == {1, 2, 3}
    assert joint_probabilities([0.5, 0.5, 0.5, 0.5], parents) == pytest.approx([0.5, 0.25, 0.125, 0.0625])


def test_the_probability_gate_passes_and_fails() -> None:
    assert probability_gate(["a", "b"], [0.9, 0.8], 0.8, 1.0).passed
    gate = probability_gate(["a", "b"], [0.9, 0.79], 0.8, 1.0)
    assert not gate.passed and gate.reason == "1/2 with P(yes) >= 0.8 (needs 100%); Q2 P(yes) 0.79 (b)"
