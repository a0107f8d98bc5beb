"""GEBench end to end under ``compat: official``: what the judge is sent, zero scores out of the means, the headline.

Official rules from github.com/stepfun-ai/GEBench at commit 4375218 (cited per assertion).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw

from pytest_visioneval.testing import FakeOpenAIServer
from pytest_visioneval.testing.openai_server import RecordedRequest
from tests.conftest import draw_png, read_json

SUITE = """\
suite: ge
protocol: gebench
defaults:
  fields: {language: en, platform: phone}
cases:
  - id: toggle
    images: [refs/start.png]
    reference: refs/next.png
    fields: {task_type: single_step, instruction: SINGLE flip the toggle}
  - id: blank
    images: [refs/start.png]
    reference: refs/next.png
    fields: {task_type: single_step, instruction: ZERO nothing happened}
  - id: tap
    images: [refs/start.png]
    reference: refs/next.png
    fields: {task_type: grounding, instruction: GROUND tap there, point: [500, 250], expected: A menu opens.}
"""
SCRIPT = {"SINGLE": 4, "ZERO": 0, "GROUND": 3}  # every dimension gets this score
DIMS = ("goal", "logic", "cons", "ui", "qual")


def text_of(request: RecordedRequest) -> str:
    return json.dumps((request.json or {})["messages"][1]["content"])


def judge_reply(request: RecordedRequest) -> str:
    value = next(v for key, v in SCRIPT.items() if key in text_of(request))
    return json.dumps({"scores": {d: {"reason": "seen", "score": value} for d in DIMS}})


def image_labels(request: RecordedRequest) -> list[str]:
    content: list[dict[str, Any]] = (request.json or {})["messages"][1]["content"]
    return [before["text"] for before, part in zip(content, content[1:], strict=False) if part["type"] == "image_url"]


def test_official_judging_and_means(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-judge")
    root: Path = pytester.path / "cases"
    start = draw_png(root / "refs" / "start.png", color=(40, 40, 40))
    # the next screen is the start screen with a toggle turned green (screen_match rejects an unrelated picture)
    with Image.open(start) as screen:
        next_screen = screen.convert("RGB")
    ImageDraw.Draw(next_screen).rectangle((52, 4, 59, 8), fill=(40, 160, 40))
    next_screen.save(root / "refs" / "next.png", format="PNG")
    (root / "ge.eval.yaml").write_text(SUITE)
    with FakeOpenAIServer(text_reply=judge_reply) as server:
        options = ("--judge=openai:judge", f"--judge-base-url={server.base_url}", "--eval-results=r.json")
        result = pytester.runpytest("cases", *options)
    result.assert_outcomes(passed=3)

    # gui_agent/evaluation/type5.py lines 73-80: the grounding judge gets the screenshot and the output, no marked copy
    (ground,) = [r for r in server.calls_to("/chat/completions") if "GROUND" in text_of(r)]
    assert image_labels(ground) == ["[Input image 1]", "[Output image 1 (output-0.png)]"]
    assert "A menu opens." in text_of(ground)  # the expected effect (type5.py lines 84-86)
    # gui_agent/evaluation/providers.py line 82: the judge runs at temperature 0.7 (the score grader's own option)
    assert (ground.json or {})["temperature"] == 0.7

    bench = read_json(pytester.path / "r.json")["benchmarks"]["gebench"]
    # scripts/evaluate.py line 91: a sample whose overall score is 0 is left out of the mean
    assert bench["compat"] == "official" and bench["excluded"] == ["ge/blank"] and bench["scored"] == 2
    single = {"mean": pytest.approx(80.0), "n": 1, "ci_low": pytest.approx(80.0), "ci_high": pytest.approx(80.0)}
    assert bench["groups"]["task_type"]["single_step"]["ge_score"] == single  # one case: the interval is its value
    # the README's GE Score: the mean of the task-type means (80 and 60)
    assert bench["headline"]["ge_score"] == pytest.approx(70.0)
