"""Judge graders in a real pytest run: skipped without --judge, gating with one, errors on bad replies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_visioneval.testing import FakeOpenAIServer
from tests.conftest import draw_png, read_json

SUITE = """\
suite: judged
defaults:
  task: image_generation
  graders:
    - use: image
    - use: checklist
      options:
        questions: ["Is there a blue box?", "Is the background white?", "Is there a title?"]
cases:
  - id: one
    prompt: a blue box on white with a title
    reference: refs/one.png
  - id: two
    prompt: a blue box on white
    reference: refs/two.png
"""


def answers(*yes: bool) -> str:
    return json.dumps(
        {"answers": [{"id": i, "reason": f"looked at {i}", "answer": "yes" if y else "no"} for i, y in enumerate(yes, 1)]}
    )


@pytest.fixture
def judged_suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-judge")
    root = pytester.path / "cases"
    draw_png(root / "refs" / "one.png")
    draw_png(root / "refs" / "two.png")
    (root / "judged.eval.yaml").write_text(SUITE)
    return root


def test_without_a_judge_judge_graders_are_skipped_and_said_so(
    pytester: pytest.Pytester, judged_suite: Path, xdist_args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # the skip and warning lines whole (at 80 columns they wrap)
    result = pytester.runpytest("cases", "--eval-results=r.json", "--eval-summary=full", *xdist_args)
    result.assert_outcomes(passed=2)  # the deterministic image grader still ran
    result.stdout.fnmatch_lines(
        ["*not graded in 2 case(s): checklist: no judge configured: judge graders need --judge=openai:MODEL*"]
    )
    assert "WARNING no --judge: judge graders did not run in 2 grader-case(s)" in result.stdout.str()
    assert read_json(pytester.path / "r.json")["exit"]["warnings"][0].startswith("no --judge")
    cases = read_json(pytester.path / "r.json")["cases"]
    assert all(c["skipped_graders"] == [{"name": "checklist", "reason": c["skipped_graders"][0]["reason"]}] for c in cases)
    assert all(any(g["name"] == "image.decodes" for g in c["gates"]) for c in cases)


def test_with_a_judge_a_no_answer_fails_the_case_with_the_question(
    pytester: pytest.Pytester, judged_suite: Path, xdist_args: list[str]
) -> None:
    def by_prompt(request) -> str:  # the same answers whatever order the workers ask in
        text = json.dumps(request.json["messages"][1]["content"])
        return answers(True, True, "with a title" in text)

    with FakeOpenAIServer(text_reply=by_prompt) as server:
        result = pytester.runpytest(
            "cases", "--judge=openai:judge-model", f"--judge-base-url={server.base_url}", "--eval-results=r.json", *xdist_args
        )
    result.assert_outcomes(passed=1, failed=1)
    assert 'checklist.answers: 2/3 answered yes (needs 100%); judge answered "no" to Q3 (Is there a title?): looked at 3' in (
        result.stdout.str()
    )
    document = read_json(pytester.path / "r.json")
    suite = document["aggregates"]["suites"]["judged"]
    assert suite["metrics"]["checklist.score"]["mean"] == pytest.approx((1 + 2 / 3) / 2)
    assert suite["metrics"]["checklist.q3"]["mean"] == pytest.approx(0.5)
    assert len(server.calls_to("/chat/completions")) == 2


def test_a_reply_that_never_parses_is_an_error_of_the_case(
    pytester: pytest.Pytester, judged_suite: Path, xdist_args: list[str]
) -> None:
    with FakeOpenAIServer(text_reply='{"answers": [{"id": 1, "reason": "cut') as server:
        result = pytester.runpytest(
            "cases", "--judge=openai:judge-model", f"--judge-base-url={server.base_url}", "--judge-retries=1", *xdist_args
        )
    result.assert_outcomes(errors=2)
    assert "JudgeOutputError: judge openai:judge-model gave no valid reply in 2 attempt(s)" in result.stdout.str()
    result.stdout.fnmatch_lines(["judged * 2 * 0 * 0 * 2 * 0.0%*"])  # the compact summary's row
    assert len(server.requests) == 4


def test_bad_judge_spec_is_a_usage_error(pytester: pytest.Pytester, judged_suite: Path) -> None:
    result = pytester.runpytest("cases", "--judge=gpt-4o")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*judges are named openai:MODEL*"])


def test_a_judge_renamed_in_the_case_file_is_offered_for_labelling_by_its_kind(
    pytester: pytest.Pytester, judged_suite: Path, xdist_args: list[str]
) -> None:
    from pytest_visioneval.report.html_cases import judged_items

    (judged_suite / "judged.eval.yaml").write_text(
        SUITE.replace("    - use: checklist\n", "    - use: checklist\n      name: style_check\n")
    )
    with FakeOpenAIServer(text_reply=answers(True, False, True)) as server:
        result = pytester.runpytest(
            "cases", "--judge=openai:judge-model", f"--judge-base-url={server.base_url}", "--eval-results=r.json", *xdist_args
        )
    result.assert_outcomes(failed=2)  # Q2 answered no in both cases
    for record in read_json(pytester.path / "r.json")["cases"]:
        assert record["graders"] == {"image": "image", "style_check": "checklist"}
        offered = {item[0] for item in judged_items(record)}
        assert {"style_check.answers", "style_check.q1", "style_check.q2", "style_check.q3"} <= offered
