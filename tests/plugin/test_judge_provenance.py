"""The results say which judge answered and how it was asked; compare reports a changed judge."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_visioneval.cli.compare import main as compare_main
from pytest_visioneval.testing import FakeOpenAIServer
from tests.conftest import draw_png, read_json

SUITE = """\
suite: judged
defaults:
  task: image_generation
  graders:
    - use: score
      options: {dimensions: {quality: overall visual quality}, scale: 10}
cases:
  - {id: one, prompt: a red square, reference: refs/one.png}
  - {id: two, prompt: a blue square, reference: refs/two.png}
"""
REPLY = '{"scores": {"quality": {"reason": "clean", "score": 8}}}'


@pytest.fixture
def judged_suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local")
    root = pytester.path / "cases"
    draw_png(root / "refs" / "one.png", color=(200, 30, 30))
    draw_png(root / "refs" / "two.png", color=(30, 30, 200))
    (root / "judged.eval.yaml").write_text(SUITE)
    return root


def test_judge_provenance_is_recorded_and_a_changed_judge_is_reported(
    pytester: pytest.Pytester, judged_suite: Path, xdist_args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOpenAIServer(text_reply=REPLY) as server:
        judge = ["--judge=openai:grader", f"--judge-base-url={server.base_url}", "--eval-cache=off"]
        before = pytester.runpytest("cases", *judge, "--judge-seed=5", "--eval-results=a.json", *xdist_args)
        before.assert_outcomes(passed=2)
        server.served_model = "grader-2026-11-01"  # the provider moved the name to a new snapshot
        after = pytester.runpytest(
            "cases", *judge, "--judge-seed=5", "--judge-temperature=0.3", "--eval-results=b.json", *xdist_args
        )
        after.assert_outcomes(passed=2)
    a, b = read_json(pytester.path / "a.json"), read_json(pytester.path / "b.json")
    provenance = a["judges"]["openai:grader"]
    assert provenance["served_by"] == ["grader"] and provenance["seed"] == [5] and provenance["temperature"] == [0.0]
    assert provenance["endpoint"] == [server.base_url.rstrip("/")]
    assert len(provenance["instructions_sha256"]) == 1
    assert b["judges"]["openai:grader"]["served_by"] == ["grader-2026-11-01"]
    assert b["judges"]["openai:grader"]["temperature"] == [0.3]
    capsys.readouterr()
    compare_main([str(pytester.path / "a.json"), str(pytester.path / "b.json"), "--resamples", "100"])
    out = capsys.readouterr().out
    assert "JUDGE CHANGED: judge openai:grader served_by: ['grader'] -> ['grader-2026-11-01']" in out
    assert "JUDGE CHANGED: judge openai:grader temperature: [0.0] -> [0.3]" in out


def test_judge_sampling_options_are_checked(pytester: pytest.Pytester, judged_suite: Path) -> None:
    result = pytester.runpytest("cases", "--judge=openai:grader", "--judge-seed=abc")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*visioneval_judge_seed must be a whole number, got 'abc'*"])
    negative = pytester.runpytest("cases", "--judge=openai:grader", "--judge-temperature=-1")
    assert negative.ret == pytest.ExitCode.USAGE_ERROR
