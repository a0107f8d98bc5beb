"""The cookbook protocol end to end with a judge: verdicts from our rules, OCR beside the judge, errors as 0."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw, ImageFont

from pytest_visioneval.cli.cookbook_tags import failure_tag_counts
from pytest_visioneval.graders.rubric_spec import builtin_rubric
from pytest_visioneval.protocols.scoring import describe
from pytest_visioneval.testing import FakeOpenAIServer
from pytest_visioneval.testing.openai_server import RecordedRequest
from tests.conftest import draw_png, read_json

SUITE = """\
suite: judged
protocol: cookbook
defaults:
  task: image_generation
  fields: {use_case: ui_mockup, compat: improved}  # errored cases count 0
cases:
  - id: pass-ui
    prompt: "[pass-ui] a sign-in screen"
    reference: refs/pass.png
  - id: fail-ui
    prompt: "[fail-ui] a settings screen"
    reference: refs/fail.png
  - id: flyer
    prompt: "[flyer] a flyer with the offer line"
    reference: refs/flyer.png
    fields:
      use_case: marketing_flyer
      required_text: ["20% OFF \\u2022 Mon-Thu"]
      text_match: exact
  - id: broken
    prompt: "[broken] no reference, so the reference model cannot answer"
"""


def reply(rubric: str, values: dict[str, Any], tags: list[str] | None = None) -> str:
    """A rubric reply: every pass/fail field true and score 5 unless ``values`` says otherwise.

    Every reason claims an overall PASS: the verdict must come from the values, not the words.
    """
    fields = {
        f.name: {"reason": "looks right; overall verdict: PASS", "value": True if f.kind == "pass_fail" else 5}
        for f in builtin_rubric(rubric).fields
    }
    for name, value in values.items():
        fields[name]["value"] = value
    return json.dumps({"fields": fields, "failure_tags": tags or []})


REPLIES = {
    "[pass-ui]": reply("ui_mockup", {"layout_hierarchy": 4}),
    "[fail-ui]": reply("ui_mockup", {"layout_hierarchy": 2, "ui_affordance": 4}, ["cluttered_layout"]),
    "[flyer]": reply("marketing_flyer", {"layout_hierarchy": 4, "style_brand_fit": 4, "visual_quality": 4}),
}


def by_prompt(request: RecordedRequest) -> str:
    """The same reply for a case whatever order the workers ask in."""
    text = json.dumps(request.json)
    (key,) = [k for k in REPLIES if k in text]
    return REPLIES[key]


@pytest.fixture
def judged_suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-judge")
    root = pytester.path / "cases"
    draw_png(root / "refs" / "pass.png")
    draw_png(root / "refs" / "fail.png", color=(200, 30, 30))
    flyer = Image.new("RGB", (640, 200), "white")
    # The flyer shows a hyphen where the required line has a bullet: the exact check must miss it.
    ImageDraw.Draw(flyer).text((30, 70), "20% OFF - Mon-Thu", font=ImageFont.load_default(size=48), fill="black")
    flyer.save(root / "refs" / "flyer.png")
    (root / "judged.eval.yaml").write_text(SUITE)
    return root


@pytest.mark.slow
def test_scores_follow_the_verdict_rules_with_errors_counted_as_zero(
    pytester: pytest.Pytester, judged_suite: Path, xdist_args: list[str]
) -> None:
    with FakeOpenAIServer(text_reply=by_prompt) as server:
        result = pytester.runpytest(
            "cases", "--judge=openai:judge", f"--judge-base-url={server.base_url}", "--eval-results=r.json", *xdist_args
        )
    result.assert_outcomes(passed=1, failed=2, errors=1)
    assert len(server.calls_to("/chat/completions")) == 3  # the errored case never reached the judge
    out = result.stdout.str()
    assert "rubric.verdict: layout_hierarchy is 2, needs >= 3 (judge: looks right; overall verdict: PASS)" in out

    document = read_json(pytester.path / "r.json")
    cases = {c["case_id"]: c for c in document["cases"]}
    metrics = {cid: {m["name"]: m["value"] for m in c["metrics"]} for cid, c in cases.items()}
    gates = {cid: {g["name"]: g for g in c["gates"]} for cid, c in cases.items()}

    # Per case: verdict by the use case's rules, quality = mean of its 0-5 scores.
    assert (metrics["pass-ui"]["cookbook.verdict"], metrics["pass-ui"]["cookbook.quality"]) == (1.0, 4.5)
    assert (metrics["fail-ui"]["cookbook.verdict"], metrics["fail-ui"]["cookbook.quality"]) == (0.0, 3.0)
    assert (metrics["flyer"]["cookbook.verdict"], metrics["flyer"]["cookbook.quality"]) == (1.0, 4.0)

    # The judge's text view and the exact OCR check, side by side: the judge passed it, OCR did not.
    assert metrics["flyer"]["rubric.text_rendering"] == 1.0 and gates["flyer"]["rubric.verdict"]["passed"] is True
    text = gates["flyer"]["text.text_present"]
    assert text["passed"] is False and 'missing: "20% OFF \u2022 Mon-Thu"' in text["reason"]
    assert cases["flyer"]["status"] == "failed" and cases["broken"]["status"] == "error"

    benchmark = document["benchmarks"]["cookbook"]
    assert benchmark["errored"] == ["judged/broken"] and benchmark["unscored"] == []
    by_use_case = benchmark["groups"]["use_case"]
    # Each mean with its bootstrap interval over the cases (a resample of 0s and 1s can be all 0 or all 1).
    assert benchmark["scores"]["verdict"] == {"mean": pytest.approx((1 + 0 + 1 + 0) / 4), "n": 4, "ci_low": 0.0, "ci_high": 1.0}
    quality = benchmark["scores"]["quality"]
    assert (quality["mean"], quality["n"]) == (pytest.approx((4.5 + 3 + 4 + 0) / 4), 4)
    assert 0 <= quality["ci_low"] < quality["mean"] < quality["ci_high"] <= 4.5
    ui_verdict = by_use_case["ui_mockup"]["verdict"]  # the errored case is a UI one
    assert ui_verdict == {"mean": pytest.approx(1 / 3), "n": 3, "ci_low": 0.0, "ci_high": 1.0}
    assert by_use_case["marketing_flyer"]["quality"] == {"mean": 4.0, "n": 1, "ci_low": 4.0, "ci_high": 4.0}
    assert benchmark["groups"]["sweep"] == {}

    # Failure tags are counted across the run: mean share x n cases = 1 case listed cluttered_layout.
    tag = document["aggregates"]["protocols"]["cookbook"]["metrics"]["rubric.failure_tag.cluttered_layout"]
    assert tag["n"] * tag["mean"] == pytest.approx(1.0) and tag["n"] == 2
    counts = failure_tag_counts(document["cases"])
    assert list(counts)[0] == "cluttered_layout" and counts["cluttered_layout"] == {"cases": 1, "of": 2}
    assert counts["off_brand_style"] == {"cases": 0, "of": 1}
    result.stdout.fnmatch_lines(["cookbook * improved * 4/4 *"])  # the compact summary's benchmark row
    assert "1 errored (scored 0): judged/broken" in describe(benchmark)  # the full summary's and the report's words


def test_without_a_judge_the_cases_are_unscored_but_the_gates_run(
    pytester: pytest.Pytester, judged_suite: Path, xdist_args: list[str]
) -> None:
    result = pytester.runpytest("cases", "--eval-results=r.json", *xdist_args)
    result.assert_outcomes(passed=2, failed=1, errors=1)  # the flyer still fails its exact text check
    benchmark = read_json(pytester.path / "r.json")["benchmarks"]["cookbook"]
    assert benchmark["unscored"] == ["judged/fail-ui", "judged/flyer", "judged/pass-ui"]
    assert benchmark["errored"] == ["judged/broken"]
