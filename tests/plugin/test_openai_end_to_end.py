"""``--model=openai:...`` through the real SDK against a local OpenAI-compatible server."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_visioneval.testing import FakeOpenAIServer
from tests.conftest import draw_png, read_json

SECRET = "sk-local-test-key-93a1f0"

SUITE = """\
suite: api
defaults:
  params: {size: 64x48, quality: low}
  graders:
    - use: image
      options: {width: 64, height: 48, count: 1}
cases:
  - id: generate-one
    task: image_generation
    prompt: a red square on white
  - id: generate-two
    task: image_generation
    prompt: a small square on white
  - id: edit-one
    task: image_editing
    prompt: make the square blue
    images: [in/source.png]
    mask: in/mask.png
"""


@pytest.fixture
def api_suite(pytester: pytest.Pytester) -> Path:
    root = pytester.path / "cases"
    draw_png(root / "in" / "source.png", color=(250, 0, 0))
    draw_png(root / "in" / "mask.png", color=(0, 0, 0))
    (root / "api.eval.yaml").write_text(SUITE)
    return root


def test_openai_model_generates_and_edits_through_the_sdk(
    pytester: pytest.Pytester, api_suite: Path, xdist_args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with FakeOpenAIServer() as server:
        result = pytester.runpytest(
            "cases",
            "--model=openai:gpt-image-1",
            f"--model-base-url={server.base_url}",
            "--eval-results=results.json",
            "--eval-output-dir=out",
            "--eval-run-id=r1",
            *xdist_args,
        )
    result.assert_outcomes(passed=3)
    generations = server.calls_to("/images/generations")
    edits = server.calls_to("/images/edits")
    assert sorted(r.json["prompt"] for r in generations) == ["a red square on white", "a small square on white"]
    assert all(r.json["model"] == "gpt-image-1" and r.json["size"] == "64x48" for r in generations)
    (edit,) = edits
    assert edit.files["image"][0][0] == "source.png"
    assert edit.files["mask"][0][0] == "mask.png"
    assert edit.headers["authorization"] == f"Bearer {SECRET}"
    document = read_json(pytester.path / "results.json")
    assert document["run"]["model"] == "openai:gpt-image-1"
    assert {c["model"] for c in document["cases"]} == {"openai:gpt-image-1"}
    provenance = read_json(pytester.path / "out" / "r1" / "openai_gpt-image-1" / "api" / "edit-one" / "provenance.json")
    assert provenance["usage"]["total_tokens"] == 110
    # The key is sent to the API, and kept nowhere else.
    assert SECRET not in (pytester.path / "results.json").read_text()
    for path in (pytester.path / "out").rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_api_failure_is_retried_then_reported_as_an_error(
    pytester: pytest.Pytester, api_suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with FakeOpenAIServer() as server:
        server.fail_next(2, status=503, retry_after="0")  # the first case's request and its first retry
        ok = pytester.runpytest(
            "cases", "--model=openai:gpt-image-1", f"--model-base-url={server.base_url}", "-k", "generate-one"
        )
        ok.assert_outcomes(passed=1)
        assert len(server.requests) == 3
        server.fail_next(10, status=500, retry_after="0")
        bad = pytester.runpytest(
            "cases",
            "--model=openai:gpt-image-1",
            f"--model-base-url={server.base_url}",
            "--model-max-retries=1",
            "-k",
            "generate-two",
        )
    bad.assert_outcomes(errors=1)
    assert "ModelError: openai:gpt-image-1: HTTP 500 from the API after 2 attempt(s)" in bad.stdout.str()
    assert len(server.requests) == 3 + 2


def test_missing_api_key_is_a_clear_error(pytester: pytest.Pytester, api_suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = pytester.runpytest("cases", "--model=openai:gpt-image-1", "--model-base-url=http://127.0.0.1:9/v1")
    result.assert_outcomes(errors=3)
    assert "no API key: set the environment variable OPENAI_API_KEY" in result.stdout.str()
