"""Issue 35, the first hour: case files a new user fixes in one go, defaults a case can take back,
a threshold that says why it was not measured. Each runs pytest as a user would, at 80 and 200 columns."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import draw_png

WIDTHS = [80, 200]


@pytest.fixture(params=WIDTHS, ids=[f"{w}cols" for w in WIDTHS])
def columns(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setenv("COLUMNS", str(request.param))
    return int(request.param)


def write_suite(pytester: pytest.Pytester, text: str, name: str = "first.eval.yaml") -> Path:
    root = pytester.path / "cases"
    draw_png(root / "refs" / "logo.png")
    (root / "refs" / "page.html").write_text("<html><body><h1>Hello</h1></body></html>", encoding="utf-8")
    path = root / name
    path.write_text(text, encoding="utf-8")
    return path


def output_text(result: pytest.RunResult) -> str:
    return "\n".join(result.outlines + result.errlines)


# -- point 1: a threshold on a judge grader's metric, without --judge ------------------------------------------------
JUDGED = """\
suite: gen
defaults:
  task: image_generation
  graders:
    - use: image
    - use: checklist
      options: {questions: [Is there a logo?]}
thresholds:
  checklist.score: 0.7
cases:
  - {id: logo, prompt: a logo, reference: refs/logo.png}
  - {id: logo2, prompt: another logo, reference: refs/logo.png}
"""


def test_a_threshold_on_a_skipped_judge_graders_metric_fails_and_names_judge(pytester: pytest.Pytester, columns: int) -> None:
    write_suite(pytester, JUDGED)
    result = pytester.runpytest("cases", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # a CI that forgot --judge does not go green
    text = output_text(result)
    assert (
        "gen.checklist.score: not measured: its grader 'checklist' was skipped in 2 case(s): "
        "no judge configured: judge graders need --judge=openai:MODEL"
    ) in " ".join(text.split())  # the terminal may wrap it at 80 columns
    assert "no case recorded this metric or gate" not in text


# -- point 2: a case takes back what defaults give --------------------------------------------------------------------
TAKE_BACK = """\
suite: mixed
defaults:
  task: image_generation
  params: {size: 64x48}
  graders:
    - use: image
cases:
  - {id: logo, prompt: a logo, reference: refs/logo.png}
  - id: page
    task: html_generation
    prompt: a page
    reference: refs/page.html
    params: {size: null}
    graders:
      - {use: image, drop: true}
      - {use: html}
"""


def test_an_html_case_drops_the_image_grader_and_size_param_of_defaults(pytester: pytest.Pytester) -> None:
    write_suite(pytester, TAKE_BACK)
    result = pytester.runpytest("cases", "-p", "no:cacheprovider", "--eval-results=r.json")
    result.assert_outcomes(passed=2)
    import json

    cases = {c["uid"]: c for c in json.loads((pytester.path / "r.json").read_text())["cases"]}
    assert [g["name"] for g in cases["mixed/page"]["gates"] if g["name"].startswith("image")] == []
    assert any(g["name"].startswith("image") for g in cases["mixed/logo"]["gates"])


def test_without_the_drop_the_error_says_how_to_take_the_grader_back(pytester: pytest.Pytester, columns: int) -> None:
    write_suite(pytester, TAKE_BACK.replace("      - {use: image, drop: true}\n", ""))
    result = pytester.runpytest("cases", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # a broken case file fails the run
    text = output_text(result)
    assert "\ncases/first.eval.yaml:9: field 'cases[1] grader 'image''" in text  # from the rootdir, as typed
    assert "(a case can take it back: {use: image, drop: true})" in text


# -- point 3: every problem of a file at once, each with its line, with a did-you-mean --------------------------------
BROKEN = """\
defaults:
  task: image_generation
cases:
  - id: a
    prompt: a logo
    graders:
      - use: locality
        options: {max_changed_outsde: 0.1}
  - id: b
    prompt: a logo
    graders: [{use: similarty}]
  - id: c
    prompt: a logo
    graders: [{use: image, options: {width: wide}}]
"""


def test_a_file_with_three_problems_lists_all_three_in_one_run(pytester: pytest.Pytester, columns: int) -> None:
    write_suite(pytester, BROKEN)
    result = pytester.runpytest("cases", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # a broken case file fails the run
    problems = [line.removeprefix("cases/") for line in result.outlines if line.startswith("cases/first.eval.yaml:")]
    assert len(problems) == 4, problems
    # What only the grader can tell (case a is no edit) comes in the same run as the rest.
    assert problems.pop(0) == (
        "first.eval.yaml:4: field 'cases[0] grader 'locality'': "
        "the locality grader compares the output with the first input image, which this case lacks"
    )
    assert problems[0].startswith(
        "first.eval.yaml:8: field 'cases[0].graders[0].options.max_changed_outsde': "
        "unknown option 'max_changed_outsde' (did you mean 'max_changed_outside'?); allowed: mask_editable, "
    )
    assert problems[1].startswith(
        "first.eval.yaml:11: field 'cases[1].graders[0].use': unknown grader 'similarty' (did you mean 'similarity'?); "
        "known graders: checklist, "
    )
    assert problems[2] == "first.eval.yaml:14: field 'cases[2].graders[0].options.width': 'wide' is not of type 'integer'"
    assert "Additional properties are not allowed" not in output_text(result)
    result.stdout.fnmatch_lines(["*1 error*"])


def test_bad_yaml_keeps_the_pointer_to_its_cause(pytester: pytest.Pytester, columns: int) -> None:
    write_suite(pytester, 'cases:\n  - id: a\n    task: image_generation\n    prompt: "a logo\n')
    result = pytester.runpytest("cases", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # a broken case file fails the run
    [problem] = [line.removeprefix("cases/") for line in result.outlines if line.startswith("cases/first.eval.yaml:")]
    assert problem == (
        "first.eval.yaml:5: invalid YAML: found unexpected end of stream "
        "(while scanning a quoted scalar that starts at line 4, column 13)"
    )
