"""VQAScore: P(yes) to "Does this figure show {prompt}?" read from the judge's first-token logprobs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pytest_visioneval.artifacts import Artifact
from pytest_visioneval.calls.layer import CallLayer, CallSettings
from pytest_visioneval.calls.usage import current_usage
from pytest_visioneval.errors import JudgeOutputError
from pytest_visioneval.graders import GradeContext, create_grader
from pytest_visioneval.graders.vqascore import VqaScoreGrader
from pytest_visioneval.testing import FakeOpenAIServer
from pytest_visioneval.testing.logprob_replies import NO_YES_NO, yes_no_tokens
from tests.unit.conftest import image_bytes, user_text

OUTPUT = (Artifact("image-0.png", image_bytes()),)


def test_p_yes_is_read_from_the_first_token_and_recorded(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    server.logprobs_for = lambda request: yes_no_tokens(0.8)
    grade = VqaScoreGrader({}).grade(make_case(prompt="a red fox in snow"), OUTPUT, judge_context())
    assert grade.gates == ()  # no min: a metric only
    metrics = {m.name: m for m in grade.metrics}
    assert metrics["p_yes"].value == pytest.approx(0.8)
    body = server.calls_to("/chat/completions")[0].json
    assert body["logprobs"] is True and body["top_logprobs"] == 20 and "response_format" not in body
    assert "Question: Does this figure show 'a red fox in snow'? Please answer yes or no." in user_text(body)
    assert "Begin your reply with the single\nword Yes or No" in body["messages"][0]["content"]
    assert [p["type"] for p in body["messages"][1]["content"]].count("image_url") == 1  # the output, not the inputs


@pytest.mark.parametrize("style", ["openai", "vllm"])
def test_min_makes_a_gate_that_passes_and_fails_with_the_numbers(
    style: str, server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    server.logprobs_for = lambda request: yes_no_tokens(0.35, style)
    grade = VqaScoreGrader({"min": 0.5}).grade(make_case(prompt="a fox"), OUTPUT, judge_context())
    assert not grade.gates[0].passed
    assert grade.gates[0].reason == "P(yes) 0.350 < min 0.5 (openai:judge-0)"
    grade = VqaScoreGrader({"min": 0.3}).grade(make_case(prompt="a fox"), OUTPUT, judge_context())
    assert grade.gates[0].passed and grade.gates[0].reason == "P(yes) 0.350 >= min 0.3 (openai:judge-0)"


def test_several_questions_are_asked_apart_and_averaged(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    server.logprobs_for = lambda request: yes_no_tokens(0.9 if "fox" in user_text(request.json) else 0.3)
    options = {"questions": ["Is there a fox?", "Is it snowing on {prompt}?"], "top_logprobs": 5}
    grade = VqaScoreGrader(options).grade(make_case(prompt="a hill"), OUTPUT, judge_context(repeats=2))
    metrics = {m.name: m.value for m in grade.metrics}
    assert metrics["p_yes"] == pytest.approx(0.6) and metrics["p1"] == pytest.approx(0.9) and metrics["p2"] == pytest.approx(0.3)
    assert metrics["p_yes.std"] == pytest.approx(0.0)
    bodies = [r.json for r in server.calls_to("/chat/completions")]
    assert len(bodies) == 4 and {b["top_logprobs"] for b in bodies} == {5}
    assert any("Is it snowing on a hill?" in user_text(b) for b in bodies)


def test_an_endpoint_without_logprobs_is_an_error_that_says_so(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    server.logprobs_for = lambda request: None
    with pytest.raises(JudgeOutputError, match="judge openai:judge-0: the endpoint returned no logprobs"):
        VqaScoreGrader({}).grade(make_case(prompt="a fox"), OUTPUT, judge_context())
    assert len(server.calls_to("/chat/completions")) == 1  # not asked again: it would answer the same


def test_a_first_token_without_yes_or_no_is_an_error_that_says_so(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    server.logprobs_for = lambda request: dict(NO_YES_NO)
    with pytest.raises(
        JudgeOutputError, match=r"none of the first answer token's 3 top_logprobs is a yes/no token \(the judge began"
    ):
        VqaScoreGrader({}).grade(make_case(prompt="a fox"), OUTPUT, judge_context())


def test_the_logprob_settings_are_in_the_cache_key_and_the_provenance(
    server: FakeOpenAIServer, judge_context: Callable[..., GradeContext], make_case: Callable[..., Any], tmp_path: Any
) -> None:
    server.logprobs_for = lambda request: yes_no_tokens(0.5)
    layer = CallLayer(CallSettings(cache_dir=tmp_path / "cache", cache_mode="on"))
    case = make_case(prompt="a fox")
    VqaScoreGrader({"top_logprobs": 7}).grade(case, OUTPUT, judge_context(calls=layer))
    provenance = current_usage().judges()["openai:judge-0"]
    assert {"top_logprobs": 7, "schema": "yes_no", "response_format": "none"}.items() <= provenance[-1].items()
    VqaScoreGrader({"top_logprobs": 7}).grade(case, OUTPUT, judge_context(calls=layer))
    assert len(server.calls_to("/chat/completions")) == 1  # the same settings: answered from the cache
    grade = VqaScoreGrader({"top_logprobs": 8}).grade(case, OUTPUT, judge_context(calls=layer))
    assert len(server.calls_to("/chat/completions")) == 2  # another top_logprobs: another cache key
    assert grade.metrics[0].value == pytest.approx(0.5)


def test_no_output_scores_zero_and_fails_a_min_gate(
    judge_context: Callable[..., GradeContext], make_case: Callable[..., Any]
) -> None:
    grade = VqaScoreGrader({"min": 0.1}).grade(make_case(prompt="a fox"), (), judge_context())
    assert {m.name: m.value for m in grade.metrics} == {"p_yes": 0.0}
    assert not grade.gates[0].passed and grade.gates[0].reason == "the output holds nothing for the judge to look at"


def test_without_a_judge_it_is_skipped(make_case: Callable[..., Any]) -> None:
    assert VqaScoreGrader({}).grade(make_case(prompt="a fox"), OUTPUT, GradeContext()).skipped


def test_a_prompt_question_needs_a_prompt(make_case: Callable[..., Any]) -> None:
    assert "this case has none" in (VqaScoreGrader.check_case(make_case(prompt=""), {}) or "")
    assert VqaScoreGrader.check_case(make_case(prompt=""), {"question": "Is there a fox?"}) is None


def test_the_registry_knows_it_and_its_schema_refuses_both_question_forms() -> None:
    import jsonschema

    assert isinstance(create_grader("vqascore", {}), VqaScoreGrader)
    schema = VqaScoreGrader.options_schema
    jsonschema.validate({"question": "q", "min": 0.5, "top_logprobs": 20}, schema)
    for bad in ({"question": "a", "questions": ["b"]}, {"min": 1.5}, {"top_logprobs": 21}, {"soft": True}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)
