"""cases/: every problem of a case file in one error, each with its line; names get a did-you-mean."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_visioneval.cases.loader import load_yaml_text
from pytest_visioneval.cases.problems import combined
from pytest_visioneval.cases.suggest import did_you_mean, unknown_name
from pytest_visioneval.cases.suite import load_suite
from pytest_visioneval.errors import CaseFileError
from pytest_visioneval.graders import option_schemas


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


def test_combined_orders_by_line_and_keeps_the_first_as_its_fields(tmp_path: Path) -> None:
    path = tmp_path / "f.yaml"
    error = combined([CaseFileError(path, "late", line=9, field="b"), CaseFileError(path, "early", line=2, field="a")])
    assert (error.line, error.field, error.message) == (2, "a", "early")
    assert str(error) == f"{path}:2: field 'a': early\n{path}:9: field 'b': late"
    with pytest.raises(ValueError):
        combined([])
