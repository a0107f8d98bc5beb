"""cases/suite.py: a case takes back a grader (``drop: true``) or a param (``null``) that defaults give."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_visioneval.cases.suite import load_suite
from pytest_visioneval.errors import CaseFileError
from pytest_visioneval.graders import option_schemas

DEFAULTS = (
    "defaults:\n"
    "  task: image_generation\n"
    "  params: {size: 1024x1024, quality: high}\n"
    "  graders:\n"
    "    - use: image\n"
    "    - {use: similarity, name: look}\n"
)


def load(tmp_path: Path, cases: str):
    path = tmp_path / "demo.eval.yaml"
    path.write_text(DEFAULTS + "cases:\n" + cases, encoding="utf-8")
    return load_suite(path, option_schemas())


def error(tmp_path: Path, cases: str) -> CaseFileError:
    with pytest.raises(CaseFileError) as info:
        load(tmp_path, cases)
    return info.value


def test_a_case_drops_an_inherited_grader_by_its_name_and_keeps_the_others(tmp_path: Path) -> None:
    suite = load(
        tmp_path,
        "  - id: page\n    task: html_generation\n    prompt: p\n    graders:\n      - {use: image, drop: true}\n"
        "  - {id: pic, prompt: q}\n",
    )
    page, pic = suite.cases
    assert [g.name for g in page.graders] == ["look"]
    assert [g.name for g in pic.graders] == ["image", "look"]  # the other case still inherits both
    assert suite.default_graders == ("image", "look")


def test_a_grader_named_apart_from_its_type_is_dropped_by_its_name(tmp_path: Path) -> None:
    suite = load(tmp_path, "  - id: a\n    prompt: p\n    graders: [{use: similarity, name: look, drop: true}]\n")
    assert [g.name for g in suite.cases[0].graders] == ["image"]


def test_a_null_param_takes_the_default_away(tmp_path: Path) -> None:
    suite = load(tmp_path, "  - id: a\n    prompt: p\n    params: {size: null, quality: low}\n")
    assert dict(suite.cases[0].params) == {"quality": "low"}


def test_dropping_a_grader_defaults_do_not_give_names_what_they_give(tmp_path: Path) -> None:
    err = error(tmp_path, "  - id: a\n    prompt: p\n    graders:\n      - {use: imgae, drop: true}\n")
    assert (err.field, err.line) == ("cases[0].graders[0]", 11)
    assert err.message == "nothing to drop: no grader named 'imgae' comes from defaults (they give: image, look)"


def test_drop_in_defaults_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "demo.eval.yaml"
    path.write_text("defaults:\n  graders: [{use: image, drop: true}]\ncases:\n  - {id: a, task: image_generation, prompt: p}\n")
    with pytest.raises(CaseFileError) as info:
        load_suite(path, option_schemas())
    assert (info.value.field, str(info.value).count("\n")) == ("defaults.graders[0].drop", 0)  # one problem only
    assert "it belongs in a case, not in defaults" in info.value.message


def test_a_dropped_grader_with_options_says_they_would_be_ignored(tmp_path: Path) -> None:
    err = error(tmp_path, "  - id: a\n    prompt: p\n    graders: [{use: image, drop: true, options: {width: 5}}]\n")
    assert err.message == "a grader with 'drop: true' is taken away; its options would be ignored: remove them"
