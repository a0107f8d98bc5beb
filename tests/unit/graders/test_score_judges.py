"""Scalar-score and VIEScore judges."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

from pytest_visioneval.artifacts import Artifact
from pytest_visioneval.graders import GradeContext
from pytest_visioneval.graders.score import ScoreGrader
from pytest_visioneval.graders.viescore import VieScoreGrader
from pytest_visioneval.testing import FakeOpenAIServer
from tests.unit.conftest import image_bytes, reply

OUTPUT = (Artifact("image-0.png", image_bytes()),)
DIMS = {
    "goal": "goal achieved",
    "logic": "interaction logic",
    "cons": "consistency",
    "ui": "plausible UI",
    "qual": "visual quality",
}


def scores(**values: int) -> str:
    return reply({"scores": {k: {"reason": f"{k} because", "score": v} for k, v in values.items()}})


def test_dimension_scores_mean_and_normalized(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    server.queue_replies(scores(goal=5, logic=4, cons=3, ui=5, qual=3))
    grade = ScoreGrader({"dimensions": DIMS, "scale": 5, "min": 4}).grade(make_case(), OUTPUT, judge_context())
    metrics = {m.name: m.value for m in grade.metrics}
    assert metrics["goal"] == 5 and metrics["cons"] == 3
    assert metrics["mean"] == pytest.approx(4.0)
    assert metrics["normalized"] == pytest.approx(20 / 25)  # GEBench: sum / 25
    assert grade.gates[0].passed


def test_min_mean_gate_fails_below(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    server.queue_replies(scores(score=3))
    grade = ScoreGrader({"question": "How appealing is the page?", "scale": 10, "min": 6}).grade(
        make_case(), OUTPUT, judge_context()
    )
    assert not grade.gates[0].passed and "mean 3 < 6" in grade.gates[0].reason


def test_out_of_scale_score_is_rejected(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    from pytest_visioneval.errors import JudgeOutputError

    server.text_reply = scores(goal=6, logic=4, cons=3, ui=5, qual=3)
    with pytest.raises(JudgeOutputError, match="6 is greater than the maximum of 5"):
        ScoreGrader({"dimensions": DIMS, "scale": 5}).grade(make_case(), OUTPUT, judge_context())


def test_min_above_scale_is_caught_at_collection(make_case: Callable[..., Any]) -> None:
    assert "above the scale" in (ScoreGrader.check_case(make_case(), {"question": "q", "scale": 5, "min": 7}) or "")


def test_no_output_scores_zero(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    grade = ScoreGrader({"dimensions": DIMS, "scale": 5}).grade(make_case(), (), judge_context())
    assert {m.name: m.value for m in grade.metrics}["normalized"] == 0.0 and server.requests == []


def vie(sc: dict[str, int], pq: dict[str, int]) -> str:
    return reply(
        {
            "semantic_consistency": {k: {"reason": k, "score": v} for k, v in sc.items()},
            "perceptual_quality": {k: {"reason": k, "score": v} for k, v in pq.items()},
        }
    )


def test_viescore_overall_is_sqrt_of_min_sc_times_min_pq(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    server.queue_replies(vie({"instruction_following": 8, "minimal_editing": 4}, {"naturalness": 9, "artifacts": 6}))
    case = make_case(task="image_editing", images=())
    grade = VieScoreGrader({"min_overall": 5}).grade(case, OUTPUT, judge_context())
    metrics = {m.name: m.value for m in grade.metrics}
    assert metrics["sc"] == 4 and metrics["pq"] == 6
    assert metrics["overall"] == pytest.approx(math.sqrt(24))
    assert not grade.gates[0].passed  # 4.9 < 5


def test_viescore_generation_uses_prompt_adherence(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    server.queue_replies(vie({"prompt_adherence": 9}, {"naturalness": 9, "artifacts": 10}))
    grade = VieScoreGrader({"min_overall": 8}).grade(make_case(), OUTPUT, judge_context())
    assert grade.gates[0].passed
    schema = server.requests[0].json["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["semantic_consistency"]["required"] == ["prompt_adherence"]
