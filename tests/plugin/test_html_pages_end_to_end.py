"""HTML cases end to end: a chat reply -> extracted page -> Chromium screenshots -> graders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_visioneval.testing import FakeOpenAIServer
from tests.conftest import read_json

SUITE = """\
suite: pages
defaults:
  task: html_generation
  render: {width: 400, height: 300, screenshots: 2, interval_ms: 200}
  graders:
    - use: html
      options: {img_count: 1, required_text: ["Hello shop"]}
cases:
  - id: shop
    prompt: a shop page
  - id: empty
    prompt: a page that the model refuses to write
"""

GOOD_REPLY = (
    "Here is the page.\n```html\n<!doctype html><html><body><h1>Hello shop</h1>"
    '<img src="https://cdn.example.com/x.png" alt="a product"><script>console.error("oops")</script></body></html>\n```\n'
    "```css\nh1 { color: rgb(200, 0, 0); }\n```\n"
)


def reply_for(request) -> str:
    text = json.dumps(request.json["messages"])
    return GOOD_REPLY if "a shop page" in text else "Sorry, I can't help with that."


@pytest.fixture
def page_suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-pages")
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "pages.eval.yaml").write_text(SUITE)
    return pytester.path / "cases"


def test_reply_is_extracted_rendered_and_graded(pytester: pytest.Pytester, page_suite: Path, xdist_args: list[str]) -> None:
    with FakeOpenAIServer(text_reply=reply_for) as server:
        result = pytester.runpytest(
            "cases",
            "--model=openai:coder",
            f"--model-base-url={server.base_url}",
            "--eval-results=r.json",
            "--eval-output-dir=out",
            "--eval-run-id=r1",
            *xdist_args,
        )
    result.assert_outcomes(passed=1, errors=1)
    assert "ExtractionError: the reply holds no HTML or SVG to render (no code blocks" in result.stdout.str()
    cases = {c["uid"]: c for c in read_json(pytester.path / "r.json")["cases"]}
    shop = cases["pages/shop"]
    names = sorted(a["name"] for a in shop["artifacts"])
    assert names == [
        "dom-snapshot.txt",
        "fullpage.png",
        "page.html",
        "render.json",
        "reply.md",
        "screenshot-1.png",
        "screenshot-2.png",
    ]
    metrics = {m["name"]: m for m in shop["metrics"]}
    assert metrics["render.blocked_requests"]["value"] == 1 and "cdn.example.com" in metrics["render.blocked_requests"]["reason"]
    assert metrics["render.console_errors"]["value"] >= 1 and "oops" in metrics["render.console_errors"]["reason"]
    folder = pytester.path / "out" / "r1" / "openai_coder" / "pages" / "shop"
    page = (folder / "page.html").read_text()
    assert "color: rgb(200, 0, 0)" in page  # the css block was merged in
    provenance = read_json(folder / "provenance.json")
    assert {d["name"] for d in provenance["derived"]} >= {"page.html", "screenshot-1.png"}
    assert "extracted from reply.md (fenced html block, merged css)" in provenance["derived"][0]["how"]
    assert cases["pages/empty"]["status"] == "error"
