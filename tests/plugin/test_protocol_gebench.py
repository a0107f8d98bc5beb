"""GEBench end to end: a judge on a fake OpenAI server, GE-Score per task type, every frame sent to the judge."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw

from pytest_visioneval.graders.marked_score import MARKED_LABEL
from pytest_visioneval.testing import FakeOpenAIServer
from pytest_visioneval.testing.openai_server import RecordedRequest
from tests.conftest import draw_png, read_json

SUITE = """\
suite: ge
protocol: gebench
defaults:
  fields: {language: en, platform: phone, compat: improved}  # errored cases count 0; grounding sees the mark
cases:
  - id: toggle
    images: [refs/start.png]
    reference: refs/next.png
    fields: {task_type: single_step, instruction: SINGLE flip the toggle}
  - id: trajectory
    images: [refs/start.png]
    reference: refs/frames
    fields: {task_type: multi_step, instruction: MULTI reach the goal}
  - id: invented
    reference: refs/app
    fields: {task_type: fiction_app, instruction: FICTION invent an app, language: zh, frames: 2}
  - id: tap
    images: [refs/start.png]
    reference: refs/next.png
    fields: {task_type: grounding, instruction: GROUND tap there, point: [500, 250], language: zh, platform: computer}
  - id: rare
    reference: refs/app
    fields: {task_type: real_app, instruction: BROKEN rare flow, platform: computer, frames: 2}
"""

# Scripted judge scores (goal, logic, cons, ui, qual) per case, found by the instruction in the request.
SCRIPT = {
    "SINGLE": (5, 4, 3, 4, 2),  # 18/25 -> 72
    "MULTI": (4, 3, 2, 5, 5),  # 19/25 -> 76
    "FICTION": (1, 2, 3, 4, 5),  # 15/25 -> 60
    "GROUND": (0, 1, 5, 5, 5),  # 16/25 -> 64
}
DIMS = ("goal", "logic", "cons", "ui", "qual")


def text_of(request: RecordedRequest) -> str:
    return json.dumps((request.json or {})["messages"][1]["content"])


def judge_reply(request: RecordedRequest) -> str:
    text = text_of(request)
    for key, values in SCRIPT.items():
        if key in text:
            return json.dumps(
                {"scores": {d: {"reason": f"{d} looked at", "score": v} for d, v in zip(DIMS, values, strict=True)}}
            )
    return '{"scores": {"goal": {"reason": "cut'  # BROKEN: never valid JSON


def draw_edit(source: Path, path: Path, box: tuple[int, int, int, int], color: tuple[int, int, int]) -> Path:
    """A plausible next screen: a copy of ``source`` with the small region ``box`` repainted in ``color``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with Image.open(source) as screen:
        edited = screen.convert("RGB")
    ImageDraw.Draw(edited).rectangle(box, fill=color)
    edited.save(path, format="PNG")
    return path


def ge(values: tuple[int, ...]) -> float:
    return sum(values) / 25 * 100


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-judge")
    root = pytester.path / "cases"
    start = draw_png(root / "refs" / "start.png", color=(40, 40, 40))
    # the next screen and the trajectory's frames are edits of the start screen (the screen_match and
    # trajectory.stays_in_app gates reject unrelated pictures): a toggle turned green; a progress bar growing
    draw_edit(start, root / "refs" / "next.png", (52, 4, 59, 8), (40, 160, 40))
    for i in range(1, 6):
        draw_edit(start, root / "refs" / "frames" / f"frame-{i}.png", (2, 2, 2 + 6 * i, 5), (40, 40, 40))
    for i in range(1, 3):
        draw_png(root / "refs" / "app" / f"screen-{i}.png", color=(200, 30 * i, 90))
    (root / "ge.eval.yaml").write_text(SUITE)
    return root


def chat_requests(server: FakeOpenAIServer, marker: str) -> list[RecordedRequest]:
    return [r for r in server.calls_to("/chat/completions") if marker in text_of(r)]


def image_labels(request: RecordedRequest) -> list[str]:
    content: list[dict[str, Any]] = (request.json or {})["messages"][1]["content"]
    labels = []
    for before, part in zip(content, content[1:], strict=False):
        if part["type"] == "image_url":
            labels.append(before["text"])
    return labels


def test_ge_scores_per_task_type_with_an_unparsed_reply_counted_as_zero(
    pytester: pytest.Pytester, suite: Path, xdist_args: list[str]
) -> None:
    with FakeOpenAIServer(text_reply=judge_reply) as server:
        result = pytester.runpytest(
            "cases",
            "--judge=openai:judge-model",
            f"--judge-base-url={server.base_url}",
            "--judge-retries=1",
            "--eval-results=r.json",
            *xdist_args,
        )
    result.assert_outcomes(passed=4, errors=1)
    assert "JudgeOutputError" in result.stdout.str()

    bench = read_json(pytester.path / "r.json")["benchmarks"]["gebench"]
    assert bench["cases"] == 5 and bench["errored"] == ["ge/rare"] and bench["unscored"] == []
    expected = {"single_step": ge(SCRIPT["SINGLE"]), "multi_step": ge(SCRIPT["MULTI"])}
    expected |= {"fiction_app": ge(SCRIPT["FICTION"]), "grounding": ge(SCRIPT["GROUND"]), "real_app": 0.0}
    assert expected["single_step"] == pytest.approx(72) and expected["grounding"] == pytest.approx(64)
    by_type = bench["groups"]["task_type"]
    assert {name: by_type[name]["ge_score"]["mean"] for name in by_type} == pytest.approx(expected)
    assert bench["scores"]["ge_score"]["mean"] == pytest.approx(sum(expected.values()) / 5)
    assert bench["scores"]["ge_score"]["n"] == 5
    # each dimension x 20, e.g. GOAL over all five cases (the errored one as 0)
    assert bench["scores"]["goal"]["mean"] == pytest.approx((5 + 4 + 1 + 0 + 0) * 20 / 5)
    assert bench["groups"]["language"]["zh"]["ge_score"]["mean"] == pytest.approx((60 + 64) / 2)
    assert bench["groups"]["platform"]["computer"]["ge_score"]["mean"] == pytest.approx((64 + 0) / 2)

    # the judge saw the starting screen and all five frames of the trajectory, in order
    (multi,) = chat_requests(server, "MULTI")
    assert image_labels(multi) == ["[Input image 1]"] + [f"[Output image {i} (frame-{i}.png)]" for i in range(1, 6)]
    # grounding: the screenshot, its marked copy, then the output
    (ground,) = chat_requests(server, "GROUND")
    assert image_labels(ground) == ["[Input image 1]", f"[{MARKED_LABEL}]", "[Output image 1 (output-0.png)]"]
    assert "at the point (500, 250)" in text_of(ground)
    # the broken reply was asked for twice (--judge-retries=1), then the case errored
    assert len(chat_requests(server, "BROKEN")) == 2


SMALL_SUITE = """\
suite: two-judges
protocol: gebench
cases:
  - id: toggle
    images: [refs/start.png]
    reference: refs/next.png
    fields: {task_type: single_step, instruction: flip it, language: en, platform: phone}
"""


def test_several_judges_and_repeats_are_averaged(pytester: pytest.Pytester, suite: Path) -> None:
    (suite / "ge.eval.yaml").unlink()
    (suite / "two.eval.yaml").write_text(SMALL_SUITE)

    def by_model(request: RecordedRequest) -> str:
        value = 5 if (request.json or {})["model"] == "judge-a" else 2
        return json.dumps({"scores": {d: {"reason": "seen", "score": value} for d in DIMS}})

    with FakeOpenAIServer(text_reply=by_model) as server:
        result = pytester.runpytest(
            "cases",
            "--judge=openai:judge-a",
            "--judge=openai:judge-b",
            "--judge-repeats=2",
            f"--judge-base-url={server.base_url}",
            "--eval-results=r.json",
        )
    result.assert_outcomes(passed=1)
    assert len(server.calls_to("/chat/completions")) == 4
    bench = read_json(pytester.path / "r.json")["benchmarks"]["gebench"]
    assert bench["scores"]["ge_score"]["mean"] == pytest.approx((25 + 10) / 2 / 25 * 100)
    assert bench["scores"]["ui"]["mean"] == pytest.approx(3.5 * 20)
