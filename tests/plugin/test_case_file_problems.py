"""Issue 35, point 3, across stages: one run lists every problem of a case file (structure, grader names and
options, files, ids, thresholds), each with its line, first line first; the other files still run."""

from __future__ import annotations

import pytest

from tests.conftest import draw_png

WIDTHS = [80, 200]

GOOD = """\
suite: good
cases:
  - {id: ok, task: image_generation, prompt: a logo, reference: refs/logo.png, graders: [{use: image}]}
"""

# The file of the issue: before, only its first line's problem came, the others one run after another.
ISSUE_FILE = """\
suite: bad
defaults:
  task: image_generation
cases:
  - id: logo
    prompt: 3
    reference: refs/missing.png
    graders:
      - use: similarty
      - use: image
        options: {widht: 64}
"""


@pytest.fixture(params=WIDTHS, ids=[f"{w}cols" for w in WIDTHS])
def columns(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setenv("COLUMNS", str(request.param))
    return int(request.param)


def run_with(pytester: pytest.Pytester, bad: str) -> tuple[pytest.RunResult, list[str]]:
    """Run ``cases/`` holding a good file and ``bad``; the bad file's problem lines, from the rootdir."""
    root = pytester.path / "cases"
    draw_png(root / "refs" / "logo.png")
    (root / "good.eval.yaml").write_text(GOOD, encoding="utf-8")
    (root / "bad.eval.yaml").write_text(bad, encoding="utf-8")
    result = pytester.runpytest("cases", "-p", "no:cacheprovider")
    return result, [line for line in result.outlines if line.startswith("cases/bad.eval.yaml:")]


def test_the_issue_file_reports_its_four_problems_in_one_run(pytester: pytest.Pytester, columns: int) -> None:
    result, problems = run_with(pytester, ISSUE_FILE)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    looked_for = pytester.path / "cases" / "refs" / "missing.png"
    assert problems == [
        "cases/bad.eval.yaml:6: field 'cases[0].prompt': 3 is not of type 'string'",
        f"cases/bad.eval.yaml:7: field 'cases[0].reference': file not found: 'refs/missing.png' (looked for {looked_for})",
        "cases/bad.eval.yaml:9: field 'cases[0].graders[0].use': unknown grader 'similarty' (did you mean 'similarity'?); "
        "known graders: checklist, checklist_points, colour, distinct_images, html, image, image_quality, locality, "
        "marked_score, render_check, rubric, score, screen_match, similarity, ssim, text, trajectory, viescore, vqascore",
        "cases/bad.eval.yaml:11: field 'cases[0].graders[1].options.widht': unknown option 'widht' (did you mean 'width'?); "
        "allowed: aspect, aspect_tolerance, blank_std, count, differs_from_input, fills_canvas, formats, height, "
        "match_input, min_changed, min_content, min_extent, min_extent_of_reference, min_jpeg_quality, min_named_share, "
        "named_colours, width",
    ]
    result.assert_outcomes(passed=1, errors=1)  # the good file still ran; the bad one is one collection error


def test_fixing_what_was_reported_leaves_nothing_for_a_second_run(pytester: pytest.Pytester) -> None:
    draw_png(pytester.path / "cases" / "refs" / "missing.png")
    fixed = ISSUE_FILE.replace("prompt: 3", "prompt: a logo").replace("similarty", "similarity").replace("widht", "width")
    result, problems = run_with(pytester, fixed)
    assert problems == []
    result.assert_outcomes(passed=2)


def test_duplicate_keys_broken_parts_ids_and_thresholds_come_together(pytester: pytest.Pytester) -> None:
    result, problems = run_with(
        pytester,
        "suite: bad\n"
        "defaults:\n"
        "  task: image_generation\n"
        "  graders: [{use: image}]\n"
        "thresholds:\n"
        "  imgae.not_blank: 1.0\n"  # 6: no grader of that name
        "cases:\n"
        "  - id: one\n"
        "    prompt: a\n"
        "    tags: flyer\n"  # 10: the wrong type, and the rest of the case is still checked
        "    images: [refs/logo.png, gone.png]\n"  # 11: one file is missing
        "    graders: [{use: locality, options: {max_changed_outsde: 0.1}}]\n"  # 12
        "    prompt: b\n"  # 13: a duplicate key
        "  - {id: two, task: video, prompt: d}\n"  # 14: no such task
        "  - id: one\n"  # 15: the id is taken
        "    prompt: c\n",
    )
    assert [line.split(": field ")[0] for line in problems] == [f"cases/bad.eval.yaml:{n}" for n in (6, 10, 11, 12, 13, 14, 15)]
    assert "no grader of this suite is named 'imgae' (did you mean 'image'?)" in problems[0]
    assert problems[1].endswith("field 'cases[0].tags': 'flyer' is not of type 'array'")
    assert "field 'cases[0].images[1]': file not found: 'gone.png'" in problems[2]
    assert "unknown option 'max_changed_outsde' (did you mean 'max_changed_outside'?)" in problems[3]
    assert problems[4].endswith("field 'cases[0].prompt': duplicate key (first at line 9; the later value is the one read)")
    assert problems[5].endswith(
        "field 'cases[1].task': 'video' is not one of ['image_generation', 'image_editing', 'html_generation']"
    )
    assert problems[6].endswith("field 'cases[2].id': duplicate case id 'one' (first used in cases[0])")
    result.assert_outcomes(passed=1, errors=1)


def test_a_file_that_does_not_parse_reports_only_pyyamls_pointer(pytester: pytest.Pytester) -> None:
    result, problems = run_with(pytester, 'cases:\n  - id: a\n    promt: x\n    graders: [{use: similarty}]\n    prompt: "open\n')
    assert problems == [
        "cases/bad.eval.yaml:6: invalid YAML: found unexpected end of stream "
        "(while scanning a quoted scalar that starts at line 5, column 13)"
    ]
    result.assert_outcomes(passed=1, errors=1)


def test_what_only_the_graders_know_comes_in_the_same_run(pytester: pytest.Pytester) -> None:
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "copy.eval.yaml").write_text(
        "suite: bad\ncases:\n  - {id: logo, task: image_generation, prompt: p}\n", encoding="utf-8"
    )
    result, problems = run_with(
        pytester,
        "suite: bad\n"
        "defaults:\n"
        "  task: image_generation\n"
        "  graders: [{use: image}]\n"
        "cases:\n"
        "  - id: page\n"  # 6: the image grader from defaults cannot grade a page
        "    task: html_generation\n"
        "    prompt: a page\n"
        "    graders: [{use: html, options: {min_imgz: 1}}]\n"  # 9
        "  - id: logo\n"
        "    prompt: a logo\n"
        "    mask: gone.png\n",  # 12
    )
    assert [line.split(": field ")[0] for line in problems] == [f"cases/bad.eval.yaml:{n}" for n in (6, 9, 12)]
    assert problems[0].endswith(
        "field 'cases[0] grader 'image'': the image grader grades image outputs; this case's task is html_generation "
        "(a case can take it back: {use: image, drop: true})"
    )
    assert "unknown option 'min_imgz'" in problems[1]
    assert "file not found: 'gone.png'" in problems[2]
    copy_problem = "cases/copy.eval.yaml:3: field 'cases[0].id': case 'bad/logo' is also defined at "
    assert f"{copy_problem}{pytester.path / 'cases' / 'bad.eval.yaml'}:10" in result.outlines
    result.assert_outcomes(passed=1, errors=2)
