"""Replaying a past run's folder grades the model's reply again, never the files that run derived from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_visioneval.testing import FakeOpenAIServer
from tests.conftest import read_json

SUITE = """\
suite: pages
defaults:
  task: html_generation
  render: {width: 400, height: 300}
  graders:
    - use: html
      options: {required_text: ["Hello shop"]}
cases:
  - id: shop
    prompt: a shop page
"""
REPLY = "```html\n<!doctype html><html><body><h1>Hello shop</h1></body></html>\n```\n"
EDITED = "```html\n<!doctype html><html><body><h1>Goodbye</h1></body></html>\n```\n"


@pytest.fixture
def first_run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A run of the suite on a model that answers with REPLY; its output folder."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-replay")
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "pages.eval.yaml").write_text(SUITE)
    with FakeOpenAIServer(text_reply=REPLY) as server:
        result = pytester.runpytest(
            "cases", "--model=openai:coder", f"--model-base-url={server.base_url}", "--eval-output-dir=out", "--eval-run-id=first"
        )
    result.assert_outcomes(passed=1)
    folder = pytester.path / "out" / "first" / "openai_coder"
    assert (folder / "pages" / "shop" / "page.html").is_file() and (folder / "pages" / "shop" / "screenshot-1.png").is_file()
    return folder


def replay(pytester: pytest.Pytester, folder: Path, run_id: str, xdist_args: list[str]) -> pytest.RunResult:
    return pytester.runpytest(
        "cases",
        f"--model=replay:{folder}",
        "--eval-output-dir=out",
        f"--eval-run-id={run_id}",
        "--eval-results=r.json",
        *xdist_args,
    )


def test_an_unchanged_folder_replays_to_the_same_verdict_with_each_file_once(
    pytester: pytest.Pytester, first_run: Path, xdist_args: list[str]
) -> None:
    replay(pytester, first_run, "again", xdist_args).assert_outcomes(passed=1)
    shop = read_json(pytester.path / "r.json")["cases"][0]
    names = [a["name"] for a in shop["artifacts"]]
    assert sorted(names) == ["dom-snapshot.txt", "fullpage.png", "page.html", "render.json", "reply.md", "screenshot-1.png"]
    [provenance_path] = (pytester.path / "out" / "again").glob("*/pages/shop/provenance.json")
    provenance = read_json(provenance_path)
    assert [a["name"] for a in provenance["artifacts"]] == ["reply.md"]
    assert provenance["params"]["ignored_derived"] == [
        "dom-snapshot.txt",
        "fullpage.png",
        "page.html",
        "render.json",
        "screenshot-1.png",
    ]


def test_an_edited_reply_is_what_gets_graded(pytester: pytest.Pytester, first_run: Path, xdist_args: list[str]) -> None:
    (first_run / "pages" / "shop" / "reply.md").write_text(EDITED)  # the stale page.html still says "Hello shop"
    result = replay(pytester, first_run, "edited", xdist_args)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*html.required_text*Hello shop*"])
    shop = read_json(pytester.path / "r.json")["cases"][0]
    page = next(Path(a["path"]) for a in shop["artifacts"] if a["name"] == "page.html")
    assert "Goodbye" in page.read_text() and "Hello shop" not in page.read_text()
