"""VQAScore and soft checklists in a real pytest run against the test server's logprobs, with and without xdist."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_visioneval.testing import FakeOpenAIServer
from pytest_visioneval.testing.logprob_replies import NO_YES_NO, yes_no_tokens
from tests.conftest import draw_png, read_json

SUITE = """\
suite: soft
defaults:
  task: image_generation
  graders:
    - use: vqascore
      options: {min: 0.5}
    - use: checklist
      options:
        soft: true
        min_probability: 0.4  # gates on the joint P(yes): 0.9 and 0.45 pass, though Q2's hard answer is no
        questions:
          - Is there a box?
          - {text: Is the box blue?, depends_on: [1]}
cases:
  - id: fox
    prompt: a red fox
    reference: refs/fox.png
  - id: owl
    prompt: a grey owl
    reference: refs/owl.png
"""
# P(yes) per question the judge is asked; vLLM-style tokens ("ĠYes") for one case, OpenAI-style for the other.
# The dependent question comes first: its request also names its parent question.
P_YES = {"'a red fox'": 0.8, "'a grey owl'": 0.3, "Is the box blue?": 0.5, "Is there a box?": 0.9}


def asked(request: Any) -> str:
    text = json.dumps(request.json["messages"][1]["content"], ensure_ascii=False).replace('\\"', '"')
    return next(key for key in P_YES if key in text)


def by_question(request: Any) -> dict[str, float]:
    key = asked(request)
    return yes_no_tokens(P_YES[key], "vllm" if "owl" in json.dumps(request.json) else "openai")


@pytest.fixture
def soft_suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-judge")
    root = pytester.path / "cases"
    draw_png(root / "refs" / "fox.png")
    draw_png(root / "refs" / "owl.png")
    (root / "soft.eval.yaml").write_text(SUITE)
    return root


def run(pytester: pytest.Pytester, server: FakeOpenAIServer, xdist_args: list[str]) -> pytest.RunResult:
    return pytester.runpytest(
        "cases", "--judge=openai:vlm", f"--judge-base-url={server.base_url}", "--eval-results=r.json", *xdist_args
    )


def metrics_by_case(pytester: pytest.Pytester) -> dict[str, dict[str, float]]:
    cases = read_json(pytester.path / "r.json")["cases"]
    return {c["case_id"]: {m["name"]: m["value"] for m in c["metrics"]} for c in cases}


def test_the_probabilities_are_recorded_and_gate_the_case(
    pytester: pytest.Pytester, soft_suite: Path, xdist_args: list[str]
) -> None:
    with FakeOpenAIServer() as server:
        server.logprobs_for = by_question
        result = run(pytester, server, xdist_args)
        bodies = [r.json for r in server.calls_to("/chat/completions")]
    result.assert_outcomes(passed=1, failed=1)
    assert "vqascore.p_yes: P(yes) 0.300 < min 0.5 (openai:vlm)" in result.stdout.str()
    metrics = metrics_by_case(pytester)
    for case_id, p_prompt in (("fox", 0.8), ("owl", 0.3)):
        got = metrics[case_id]
        assert got["vqascore.p_yes"] == pytest.approx(p_prompt)
        assert got["checklist.p1"] == pytest.approx(0.9)
        assert got["checklist.p2"] == pytest.approx(0.9 * 0.5)  # multiplied down by its parent
        assert got["checklist.soft_score"] == pytest.approx((0.9 + 0.45) / 2)
        assert got["checklist.score"] == pytest.approx(0.5)  # hard: Q2's P(yes) 0.5 is not a yes
    assert len(bodies) == 6 and all(b["logprobs"] is True and b["top_logprobs"] == 20 for b in bodies)
    judges = read_json(pytester.path / "r.json")["judges"]["openai:vlm"]
    assert judges["top_logprobs"] == [20] and judges["response_format"] == ["none"]  # the provenance says how it was asked


def test_an_endpoint_without_logprobs_makes_every_case_an_error_that_says_so(
    pytester: pytest.Pytester, soft_suite: Path, xdist_args: list[str]
) -> None:
    with FakeOpenAIServer() as server:
        server.logprobs_for = lambda request: None
        result = run(pytester, server, xdist_args)
    result.assert_outcomes(errors=2)
    assert "JudgeOutputError: judge openai:vlm: the endpoint returned no logprobs" in result.stdout.str()


def test_a_judge_that_never_begins_with_yes_or_no_is_an_error_that_says_so(
    pytester: pytest.Pytester, soft_suite: Path, xdist_args: list[str]
) -> None:
    with FakeOpenAIServer() as server:
        server.logprobs_for = lambda request: dict(NO_YES_NO)
        result = run(pytester, server, xdist_args)
    result.assert_outcomes(errors=2)
    assert "none of the first answer token's 3 top_logprobs is a yes/no token (the judge began with 'The'" in (
        result.stdout.str()
    )
