"""HTML cases end to end: a chat reply -> extracted page -> Chromium screenshots -> graders."""

from __future__ import annotations

import fnmatch
import io
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

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


@pytest.mark.slow
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


# -- the shipped product-pages suite on broken variants of its own references ------------------
SHIPPED = Path(__file__).resolve().parents[2] / "cases" / "web"
FIRST_IMG = re.compile(r'<img src="[^"]*"')


def first_img(src: str) -> Callable[[str], str]:
    return lambda html: FIRST_IMG.sub(f'<img src="{src}"', html, count=1)


# variant -> (how the page is broken, files put next to it, what the failure must say)
VARIANTS: dict[str, tuple[Callable[[str], str], dict[str, bytes], list[str]]] = {
    "js-error": (
        lambda html: html.replace("</body>", "<script>window.cart.add(1);</script></body>"),
        {},
        ["render_check.no_page_errors: 1 uncaught exception(s) (allowed 0): Cannot read properties of undefined (reading 'add')"],
    ),
    "body-hidden": (
        lambda html: html.replace("</head>", "<style>body{display:none}</style></head>"),
        {},
        [
            "render_check.visible: the page is hidden: <body> has display: none",
            "render_check.not_blank: every capture is blank",
            "html.required_text: * missing from the rendered page's visible text: *",
        ],
    ),
    "img-is-the-page": (
        first_img("page.html"),
        {},
        [
            "render_check.imgs_loaded: 1 of 3 <img> did not load: page.html (the browser could not decode it as an image)",
            "render_check.img_sources: 1 of 3 <img> do not show an image of the output: "
            "page.html (the page itself, not an image)",
        ],
    ),
    "img-is-a-screenshot": (  # a screenshot of an earlier run, left in the replayed folder
        first_img("screenshot-1.png"),
        {"screenshot-1.png": b""},
        [
            "render_check.img_sources: 1 of 3 <img> do not show an image of the output: "
            "screenshot-1.png (a capture the renderer writes, not an image of the output)"
        ],
    ),
    "img-is-the-fullpage-capture": (
        first_img("fullpage.png"),
        {},
        [
            "render_check.img_sources: 1 of 3 <img> do not show an image of the output: "
            "fullpage.png (a capture the renderer writes, not an image of the output)"
        ],
    ),
}


def replay_folder(root: Path, change: Callable[[str], str] = lambda html: html, files: dict[str, bytes] | None = None) -> Path:
    """The suite's reference pages, changed, as a replay folder (``DIR/product-pages/<case>/page.html``)."""
    for case in ("desk-lamp", "tea-kettle"):
        folder = root / "product-pages" / case
        folder.mkdir(parents=True)
        (folder / "page.html").write_text(change((SHIPPED / "pages" / f"{case}.html").read_text()))
        for name, data in (files or {}).items():
            (folder / name).write_bytes(data or png_bytes())
    return root


def png_bytes() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (800, 600), (90, 90, 90)).save(out, format="PNG")
    return out.getvalue()


@pytest.fixture
def product_pages(pytester: pytest.Pytester) -> Path:
    shutil.copytree(SHIPPED, pytester.path / "cases" / "web")
    return pytester.path / "cases"


def test_the_shipped_references_pass_when_replayed(pytester: pytest.Pytester, product_pages: Path) -> None:
    replay = replay_folder(pytester.path / "replay")
    result = pytester.runpytest("cases", f"--model=replay:{replay}", "--eval-results=r.json")
    result.assert_outcomes(passed=2)
    case = read_json(pytester.path / "r.json")["cases"][0]
    gates = {g["name"] for g in case["gates"]}
    assert {
        "render_check.visible",
        "render_check.imgs_loaded",
        "render_check.img_sources",
        "render_check.no_page_errors",
    } <= gates


@pytest.mark.slow
def test_render_times_are_timings_and_the_rest_is_identical_with_and_without_xdist(
    pytester: pytest.Pytester, product_pages: Path
) -> None:
    replay = replay_folder(pytester.path / "replay")
    pytester.runpytest("cases", f"--model=replay:{replay}", "--eval-results=serial.json").assert_outcomes(passed=2)
    pytester.runpytest("cases", f"--model=replay:{replay}", "--eval-results=parallel.json", "-n", "2").assert_outcomes(passed=2)
    serial, parallel = read_json(pytester.path / "serial.json"), read_json(pytester.path / "parallel.json")
    for case in serial["cases"]:
        assert case["timings"]["render.seconds"] > 0 and case["timings"]["case.seconds"] >= case["timings"]["render.seconds"]
        assert not any(m["name"].endswith(".seconds") for m in case["metrics"])
    assert serial["timings"]["product-pages"]["render.seconds"]["n"] == 2
    assert serial["aggregates"] == parallel["aggregates"] and serial["benchmarks"] == parallel["benchmarks"]

    def scores(document: dict[str, Any]) -> list[tuple[Any, ...]]:
        return [(c["uid"], c["status"], c["gates"], c["metrics"]) for c in document["cases"]]

    assert scores(serial) == scores(parallel)


def test_an_unchanged_model_passes_its_baseline_however_slow_the_machine(pytester: pytest.Pytester, product_pages: Path) -> None:
    replay = replay_folder(pytester.path / "replay")
    pytester.runpytest("cases", f"--model=replay:{replay}", "--eval-results=base.json").assert_outcomes(passed=2)
    base = read_json(pytester.path / "base.json")
    for case in base["cases"]:  # as if the baseline ran on a machine 100 times faster
        case["timings"] = {name: seconds / 100 for name, seconds in case["timings"].items()}
    (pytester.path / "base.json").write_text(json.dumps(base))
    result = pytester.runpytest("cases", f"--model=replay:{replay}", "--eval-baseline=base.json", "--eval-baseline-tolerance=0")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.OK and "seconds" not in result.stdout.str().split("against the baseline")[-1]


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_broken_variants_of_the_shipped_references_fail(pytester: pytest.Pytester, product_pages: Path, variant: str) -> None:
    change, files, messages = VARIANTS[variant]
    replay = replay_folder(pytester.path / "replay", change, files)
    result = pytester.runpytest("cases", f"--model=replay:{replay}")
    # A script error also misses the suite's render.page_errors threshold: the run-level visioneval::thresholds fails.
    result.assert_outcomes(failed=2 + (variant == "js-error"))
    for uid in ("product-pages/desk-lamp", "product-pages/tea-kettle"):
        failure = failure_of(result.stdout.str(), uid)
        for message in messages:
            assert fnmatch.fnmatch(failure, f"*\n  - {message}*"), (message, failure)


def failure_of(output: str, uid: str) -> str:
    """The gate failure message pytest printed for one case."""
    start = output.index(f"{uid}: ")
    return output[start : output.index("  output: ", start)]
