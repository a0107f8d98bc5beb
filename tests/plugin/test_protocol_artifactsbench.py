"""artifactsbench end to end: replies -> pages -> Chromium captures -> a judge's item points -> scores per class/difficulty."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_visioneval.testing import FakeOpenAIServer
from tests.conftest import read_json

CHECKLIST = "\n".join(f"      - 'Item {i}: 10 points if it is met, 0 if not.'" for i in range(1, 11))
SUITE = f"""\
suite: ab
protocol: artifactsbench
defaults:
  render: {{width: 400, height: 300, screenshots: 3, interval_ms: 100}}  # quick; the protocol's own is 1 s apart
  fields: {{compat: improved}}  # our extraction rule; test_protocol_artifactsbench_official.py has the official one
cases:
  - id: badge
    reference: answers/badge.md
    fields:
      index: 1
      question: Draw a green status badge as SVG.
      class: SVG Generation
      difficulty: easy
      checklist:
{CHECKLIST}
  - id: counter
    reference: answers/counter.md
    fields:
      index: 2
      question: Build a click counter page.
      class: Quick Tools
      difficulty: hard
      checklist:
{CHECKLIST}
  - id: refusal
    reference: answers/refusal.md
    fields:
      index: 3
      question: Build a timer page.
      class: Quick Tools
      difficulty: hard
      checklist:
{CHECKLIST}
"""

BADGE = """Here it is:
```svg
<svg xmlns="http://www.w3.org/2000/svg" width="200" height="40"><rect width="200" height="40" rx="8" fill="#2e9e4f"/>
<text x="100" y="26" fill="#fff" font-size="18" text-anchor="middle">passing</text></svg>
```
"""
COUNTER = """```html
<!doctype html><html><body><h1 id="n">0</h1><button id="b">+1</button></body></html>
```
```js
document.getElementById("b").onclick = () => { const n = document.getElementById("n"); n.textContent = +n.textContent + 1; };
```
"""
REFUSAL = "I would rather describe the timer in words: it counts down from ten and then rings."

BADGE_POINTS = [10, 10, 10, 10, 10, 10, 5, 5, 0, 0]  # 70
COUNTER_POINTS = [10] * 10  # 100


def judge_reply(request) -> str:
    text = json.dumps(request.json["messages"][1]["content"])
    values = BADGE_POINTS if "status badge" in text else COUNTER_POINTS
    return json.dumps({"items": {f"item{i}": {"reason": f"seen {i}", "points": p} for i, p in enumerate(values, 1)}})


@pytest.fixture
def ab_suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-judge")
    root = pytester.path / "cases"
    (root / "answers").mkdir(parents=True)
    (root / "answers" / "badge.md").write_text(BADGE)
    (root / "answers" / "counter.md").write_text(COUNTER)
    (root / "answers" / "refusal.md").write_text(REFUSAL)
    (root / "ab.eval.yaml").write_text(SUITE)
    return root


@pytest.mark.slow
def test_scores_are_item_sums_and_an_unextractable_reply_counts_zero(
    pytester: pytest.Pytester, ab_suite: Path, xdist_args: list[str]
) -> None:
    with FakeOpenAIServer(text_reply=judge_reply) as server:
        result = pytester.runpytest(
            "cases", "--judge=openai:judge", f"--judge-base-url={server.base_url}", "--eval-results=r.json", *xdist_args
        )
    result.assert_outcomes(passed=2, errors=1)
    assert "ExtractionError: the reply holds no HTML or SVG to render" in result.stdout.str()

    calls = server.calls_to("/chat/completions")
    assert len(calls) == 2  # the errored case never reached the judge
    for call in calls:
        assert call.json is not None
        content = call.json["messages"][1]["content"]
        labels = [p["text"] for p in content if p["type"] == "text" and p["text"].startswith("[Output image")]
        assert labels == [f"[Output image {i} (screenshot-{i}.png)]" for i in (1, 2, 3)] + ["[Output image 4 (fullpage.png)]"]
        assert any(p["type"] == "text" and p["text"].startswith("Output file page.html:\n") for p in content)

    document = read_json(pytester.path / "r.json")
    cases = {c["uid"]: c for c in document["cases"]}
    metrics = {uid: {m["name"]: m["value"] for m in case["metrics"]} for uid, case in cases.items()}
    assert metrics["ab/badge"]["artifactsbench.score"] == 70.0
    assert metrics["ab/badge"]["checklist_points.item9"] == 0.0
    assert metrics["ab/counter"]["artifactsbench.score"] == 100.0
    assert cases["ab/refusal"]["status"] == "error"
    gates = {g["name"]: g["passed"] for g in cases["ab/counter"]["gates"]}
    assert gates == {
        "html.parses": True,
        "render_check.captured": True,
        "render_check.no_page_errors": True,
        "render_check.visible": True,
        "render_check.not_blank": True,
        "render_check.not_covered": True,
        "render_check.text_shown": True,
        "render_check.tables_filled": True,
        "render_check.fits_width": True,
        "render_check.imgs_loaded": True,
    }

    bench = document["benchmarks"]["artifactsbench"]
    assert bench["cases"] == 3 and bench["errored"] == ["ab/refusal"] and bench["unscored"] == []
    assert bench["scores"]["score"]["mean"] == pytest.approx((70 + 100 + 0) / 3)
    by_class = bench["groups"]["class"]
    assert by_class["SVG Generation"]["score"] == {"mean": 70.0, "n": 1, "ci_low": 70.0, "ci_high": 70.0}
    # 100 and the error's 0: a resample's mean is 0, 50 or 100, so the 95% interval spans both
    assert by_class["Quick Tools"]["score"] == {"mean": 50.0, "n": 2, "ci_low": 0.0, "ci_high": 100.0}
    by_difficulty = bench["groups"]["difficulty"]
    assert by_difficulty["easy"]["score"]["mean"] == 70.0 and by_difficulty["hard"]["score"]["mean"] == 50.0
