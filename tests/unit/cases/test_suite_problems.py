"""cases/: every problem of a case file in one error, each with its line; names get a did-you-mean."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_visioneval.cases.loader import load_yaml_text
from pytest_visioneval.cases.problems import CaseFileProblems
from pytest_visioneval.cases.spec import CaseSpec, GraderSpec
from pytest_visioneval.cases.suggest import did_you_mean, unknown_name
from pytest_visioneval.cases.suite import load_suite
from pytest_visioneval.errors import CaseFileError
from pytest_visioneval.graders import option_schemas
from pytest_visioneval.protocols.case_files import load_case_file


def error(tmp_path: Path, text: str) -> CaseFileError:
    path = tmp_path / "demo.eval.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CaseFileError) as info:
        load_suite(path, option_schemas())
    return info.value


def test_every_grader_problem_of_a_file_is_listed_with_its_line(tmp_path: Path) -> None:
    err = error(
        tmp_path,
        "defaults:\n"
        "  task: image_generation\n"
        "cases:\n"
        "  - id: a\n"
        "    prompt: p\n"
        "    graders:\n"
        "      - use: locality\n"
        "        options: {max_changed_outsde: 0.1}\n"  # line 8
        "  - id: b\n"
        "    prompt: p\n"
        "    graders: [{use: similarty}]\n"  # line 11
        "  - id: c\n"
        "    prompt: p\n"
        "    graders: [{use: image, options: {width: wide}}]\n",  # line 14
    )
    lines = str(err).splitlines()
    assert len(lines) == 3
    assert lines[0].endswith(
        ":8: field 'cases[0].graders[0].options.max_changed_outsde': unknown option 'max_changed_outsde' "
        "(did you mean 'max_changed_outside'?); allowed: " + ", ".join(sorted(option_schemas()["locality"]["properties"]))
    )
    assert (
        ":11: field 'cases[1].graders[0].use': unknown grader 'similarty' (did you mean 'similarity'?); known graders: "
        in lines[1]
    )
    assert lines[2].endswith(":14: field 'cases[2].graders[0].options.width': 'wide' is not of type 'integer'")
    assert (err.line, err.field) == (8, "cases[0].graders[0].options.max_changed_outsde")  # the first one


def test_missing_files_and_case_problems_come_together(tmp_path: Path) -> None:
    err = error(
        tmp_path,
        "cases:\n"
        "  - {id: a, task: image_editing, prompt: p, images: [gone.png]}\n"
        "  - {id: b, task: image_generation}\n"
        "  - {id: a, task: image_generation, prompt: p}\n",
    )
    lines = str(err).splitlines()
    assert [line.split(": field ")[1].split(":")[0] for line in lines] == ["'cases[0].images[0]'", "'cases[1]'", "'cases[2].id'"]
    assert "file not found: 'gone.png'" in lines[0]
    assert "a image_generation case needs a 'prompt'" in lines[1]
    assert "duplicate case id 'a'" in lines[2]


def test_bad_yaml_keeps_the_context_pyyaml_gives(tmp_path: Path) -> None:
    with pytest.raises(CaseFileError) as info:
        load_yaml_text('cases:\n  - id: a\n    prompt: "open\n    task: image_generation\n', tmp_path / "x.eval.yaml")
    assert info.value.message == (
        "invalid YAML: found unexpected end of stream (while scanning a quoted scalar that starts at line 3, column 13)"
    )


def test_did_you_mean_only_when_close() -> None:
    assert did_you_mean("similarty", ["image", "similarity"]) == " (did you mean 'similarity'?)"
    assert did_you_mean("zzz", ["image", "similarity"]) == ""
    assert unknown_name("option", "x", []) == "unknown option 'x'; allowed: none"


# -- across stages: the schema's problems and, on every sound part, the checks after it -------------------------------
def test_a_case_with_a_broken_part_still_has_its_graders_and_files_checked(tmp_path: Path) -> None:
    err = error(
        tmp_path,
        "defaults:\n"
        "  task: image_generation\n"
        "cases:\n"
        "  - id: a\n"
        "    prompt: 3\n"  # 5: the schema's
        "    mask: gone.png\n"  # 6: a missing file
        "    graders:\n"
        "      - use: similarty\n"  # 8: an unknown grader
        "      - {use: image, options: {widht: 4}}\n",  # 9: an unknown option
    )
    lines = str(err).splitlines()
    assert [line.split(": field ")[0].rsplit(":", 1)[1] for line in lines] == ["5", "6", "8", "9"]
    assert lines[0].endswith("field 'cases[0].prompt': 3 is not of type 'string'")
    assert "needs a 'prompt'" not in str(err)  # the prompt is there, of the wrong type: said once


def test_checks_that_need_a_broken_part_are_left_out(tmp_path: Path) -> None:
    err = error(
        tmp_path,
        "defaults: {task: 5}\n"  # 1: 'task' is then unknown to every case
        "cases:\n"
        "  - {id: a, prompt: p, graders: [{use: image, options: 3}]}\n"  # 3: options of the wrong type
        "  - {id: b, task: image_editing, prompt: p, images: [7]}\n",  # 4: its only image is broken
    )
    assert [p.message for p in err.problems] == [
        "5 is not one of ['image_generation', 'image_editing', 'html_generation']",
        "3 is not of type 'object'",
        "7 is not of type 'string'",
    ]  # not also "'task' is required", "needs at least one input image" or the image options' own complaints


def test_a_taken_id_does_not_hide_the_problems_of_its_case(tmp_path: Path) -> None:
    err = error(
        tmp_path,
        "cases:\n  - {id: a, task: image_generation, prompt: p}\n  - {id: a, task: image_generation, prompt: p, mask: x.png}\n",
    )
    assert [(p.line, p.field) for p in err.problems] == [(3, "cases[1].id"), (3, "cases[1].mask")]


def test_duplicate_yaml_keys_come_with_the_other_problems(tmp_path: Path) -> None:
    err = error(tmp_path, "cases:\n  - id: a\n    task: image_generation\n    task: image_editing\n    prompt: p\n")
    assert [(p.line, p.field) for p in err.problems] == [(2, "cases[0]"), (4, "cases[0].task")]
    assert err.problems[0].message == "an image_editing case needs at least one input image in 'images'"  # the later value


def test_a_bad_suite_name_from_the_file_name_does_not_stop_the_checks(tmp_path: Path) -> None:
    path = tmp_path / "my.suite.eval.yaml"
    path.write_text("cases:\n  - {id: a, task: image_generation, prompt: p, mask: x.png}\n", encoding="utf-8")
    with pytest.raises(CaseFileError) as info:
        load_suite(path, option_schemas())
    assert [p.field for p in info.value.problems] == [None, "cases[0].mask"]  # type: ignore[attr-defined]
    assert "suite name 'my.suite' taken from the file name is not valid" in str(info.value)


# -- the caller's check of each grader on a built case ------------------------------------------------------------------
def refuse_similarity(case: CaseSpec, grader: GraderSpec) -> str | None:
    return f"{grader.use} needs a 'reference' ({case.id})" if grader.use == "similarity" and case.reference is None else None


def test_the_callers_check_comes_with_the_files_other_problems(tmp_path: Path) -> None:
    path = tmp_path / "demo.eval.yaml"
    path.write_text(
        "defaults:\n"
        "  task: image_generation\n"
        "  graders: [{use: similarity}]\n"
        "sweep: {quality: [low, high]}\n"
        "cases:\n"
        "  - {id: a, prompt: p}\n"  # 6: similarity from defaults, no reference
        "  - {id: b, prompt: p, mask: gone.png}\n",  # 7: the same, and a missing file
        encoding="utf-8",
    )
    asked: list[str] = []

    def check(case: CaseSpec, grader: GraderSpec) -> str | None:
        asked.append(case.id)
        return refuse_similarity(case, grader)

    with pytest.raises(CaseFileProblems) as info:
        load_suite(path, option_schemas(), case_check=check)
    assert asked == ["a", "b"]  # once per case, before the sweep multiplies it; a missing file does not stop it
    fix = "(a case can take it back: {use: similarity, drop: true})"
    assert [(p.line, p.field, p.message) for p in info.value.problems] == [
        (6, "cases[0] grader 'similarity'", f"similarity needs a 'reference' (a) {fix}"),
        (7, "cases[1] grader 'similarity'", f"similarity needs a 'reference' (b) {fix}"),
        (7, "cases[1].mask", f"file not found: 'gone.png' (looked for {tmp_path / 'gone.png'})"),
    ]
    assert [c.id for c in info.value.cases][:2] == ["a[quality=low]", "a[quality=high]"]  # for the caller's own checks


def test_a_file_the_callers_check_accepts_loads(tmp_path: Path) -> None:
    path = tmp_path / "demo.eval.yaml"
    path.write_text("cases:\n  - {id: a, task: image_generation, prompt: p, graders: [{use: image}]}\n", encoding="utf-8")
    assert [c.id for c in load_suite(path, option_schemas(), case_check=refuse_similarity).cases] == ["a"]


# -- thresholds: their names are checked when the graders and protocols are known ---------------------------------------
def test_threshold_names_are_checked_with_the_registries(tmp_path: Path) -> None:
    path = tmp_path / "demo.eval.yaml"
    path.write_text(
        "protocol: cookbook\n"
        "thresholds:\n"
        "  image.not_blank: 1.0\n"
        "  imgae.not_blank: 1.0\n"  # 4
        "  cookbook.verdcit: 0.5\n"  # 5
        "  cookbook.verdict: 0.5\n"
        "cases:\n"
        "  - {id: a, task: image_generation, prompt: p, graders: [{use: image}]}\n",
        encoding="utf-8",
    )
    with pytest.raises(CaseFileError) as info:
        load_case_file(path)
    lines = str(info.value).splitlines()
    assert len(lines) == 2
    assert ":4: field 'thresholds.imgae.not_blank': no grader of this suite is named 'imgae' (did you mean 'image'?)" in lines[0]
    assert lines[1].endswith(
        ":5: field 'thresholds.cookbook.verdcit': protocol 'cookbook' has no score 'verdcit' (did you mean 'verdict'?); "
        "its scores: quality, verdict"
    )
    path.write_text(path.read_text().replace("  imgae.not_blank: 1.0\n  cookbook.verdcit: 0.5\n", ""), encoding="utf-8")
    assert [t.metric for t in load_case_file(path).thresholds] == ["image.not_blank", "cookbook.verdict"]


def test_shipped_suites_name_only_what_they_record() -> None:
    root = Path(__file__).parents[3] / "cases"
    files = sorted(root.rglob("*.eval.yaml"))
    assert len(files) >= 10
    for path in files:
        load_case_file(path)  # raises on any problem, thresholds included


@pytest.mark.parametrize(
    ("case", "accepted"),
    [
        ("{id: a, task: image_generation, prompt: p, graders: [{use: image}]}", False),  # nothing renders
        ("{id: a, task: html_generation, prompt: p, render: true, graders: [{use: html}]}", True),
        ("{id: a, task: html_generation, prompt: p, render: {widht: 9}, graders: [{use: html}]}", True),  # unknown: broken
    ],
)
def test_render_metrics_are_named_only_where_a_case_may_render(tmp_path: Path, case: str, accepted: bool) -> None:
    path = tmp_path / "demo.eval.yaml"
    path.write_text(f"thresholds:\n  render.page_errors: {{max: 0}}\ncases:\n  - {case}\n", encoding="utf-8")
    try:
        load_case_file(path)
        problems = []
    except CaseFileProblems as err:
        problems = [p.field for p in err.problems]
    assert ("thresholds.render.page_errors" not in problems) is accepted, problems


@pytest.mark.parametrize(
    "broken",
    [
        "  - 5\n",  # a case that is not one
        "  - {id: b, task: image_generation, prompt: p, graders: 3}\n",  # a graders list that is not one
        "  - {id: b, task: image_generation, prompt: p, graders: [{use: similarity, name: Look}]}\n",  # a bad name
    ],
)
def test_a_threshold_is_not_called_unknown_when_a_grader_name_could_not_be_read(tmp_path: Path, broken: str) -> None:
    path = tmp_path / "demo.eval.yaml"
    path.write_text(
        "thresholds:\n  look.score: 0.9\ncases:\n  - {id: a, task: image_generation, prompt: p, graders: [{use: image}]}\n"
        + broken,
        encoding="utf-8",
    )
    with pytest.raises(CaseFileProblems) as info:
        load_case_file(path)
    assert [p.line for p in info.value.problems] == [5]  # the broken part only: 'look' may be the grader lost there


def test_a_broken_grader_option_still_lets_thresholds_be_checked(tmp_path: Path) -> None:
    path = tmp_path / "demo.eval.yaml"
    path.write_text(
        "thresholds:\n  look.score: 0.9\ncases:\n"
        "  - {id: a, task: image_generation, prompt: p, graders: [{use: image, options: 3}]}\n",
        encoding="utf-8",
    )
    with pytest.raises(CaseFileProblems) as info:
        load_case_file(path)
    assert [(p.line, p.field) for p in info.value.problems] == [(2, "thresholds.look.score"), (4, "cases[0].graders[0].options")]
