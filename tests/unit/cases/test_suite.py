"""cases/suite.py: defaults merged, paths resolved, graders checked, thresholds parsed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_visioneval.cases.spec import GraderSpec, Threshold
from pytest_visioneval.cases.suite import load_suite, suite_name_from_path
from pytest_visioneval.errors import CaseFileError
from pytest_visioneval.graders import option_schemas

WIDTH_SCHEMA: dict[str, Any] = {
    "image": {
        "type": "object",
        "additionalProperties": False,
        "properties": {"width": {"type": "integer", "minimum": 1}},
    },
    "similarity": {"type": "object"},
}


@pytest.fixture
def suite_dir(tmp_path: Path, make_image: Callable[..., Path]) -> Path:
    make_image("img/in.png")
    make_image("img/other.png", color=(0, 0, 255))
    make_image("img/mask.png")
    make_image("img/ref.png")
    make_image("img/ref2.png")
    return tmp_path


def write(folder: Path, text: str, name: str = "demo.eval.yaml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def load_error(path: Path, schemas: Any = None) -> CaseFileError:
    with pytest.raises(CaseFileError) as info:
        load_suite(path, schemas)
    return info.value


# -- names ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("file_name", "suite"),
    [("x.eval.yaml", "x"), ("ui-mockups.eval.yml", "ui-mockups"), ("plain.yaml", "plain"), ("a.b.eval.yaml", "a.b")],
)
def test_suite_name_from_path(file_name: str, suite: str) -> None:
    assert suite_name_from_path(Path("/some/dir") / file_name) == suite


def test_suite_name_derived_from_file_name(suite_dir: Path) -> None:
    path = write(suite_dir, "cases:\n  - {id: a, task: image_generation, prompt: p}\n", name="x.eval.yaml")
    suite = load_suite(path)
    assert suite.name == "x"
    assert suite.cases[0].suite == "x"
    assert suite.cases[0].uid == "x/a"


def test_explicit_suite_name_wins(suite_dir: Path) -> None:
    path = write(suite_dir, "suite: chosen\ncases:\n  - {id: a, task: image_generation, prompt: p}\n")
    assert load_suite(path).name == "chosen"


def test_invalid_suite_name_from_file_name(suite_dir: Path) -> None:
    path = write(suite_dir, "cases:\n  - {id: a, task: image_generation, prompt: p}\n", name="a.b.eval.yaml")
    err = load_error(path)
    assert "'a.b'" in err.message and "set 'suite:'" in err.message


def test_suite_level_fields(suite_dir: Path) -> None:
    path = write(
        suite_dir,
        "description: about\nprotocol: bench\ncases:\n  - {id: a, task: image_generation, prompt: p}\n",
    )
    suite = load_suite(path)
    assert (suite.protocol, suite.description, suite.path) == ("bench", "about", path)
    assert suite.cases[0].protocol == "bench"


def test_protocol_defaults_to_generic(suite_dir: Path) -> None:
    suite = load_suite(write(suite_dir, "cases:\n  - {id: a, task: image_generation, prompt: p}\n"))
    assert suite.protocol == "generic"
    assert suite.thresholds == ()


# -- a plain case -----------------------------------------------------------
def test_case_fields_and_resolved_paths(suite_dir: Path) -> None:
    path = write(
        suite_dir,
        "cases:\n"
        "  - id: edit-1\n"  # line 2
        "    task: image_editing\n"
        "    prompt: make it blue\n"
        "    criteria: blue\n"
        "    description: a case\n"
        "    images: [img/in.png, img/other.png]\n"
        "    mask: img/mask.png\n"
        "    reference: img/ref.png\n"
        "    skip: not today\n"
        "    xfail: known issue\n",
    )
    case = load_suite(path).cases[0]
    assert case.id == "edit-1"
    assert case.line == 2
    assert case.source == path
    assert case.task == "image_editing"
    assert (case.prompt, case.criteria, case.description) == ("make it blue", "blue", "a case")
    assert case.images == ((suite_dir / "img/in.png").resolve(), (suite_dir / "img/other.png").resolve())
    assert case.mask == (suite_dir / "img/mask.png").resolve()
    assert case.reference == (suite_dir / "img/ref.png").resolve()
    assert (case.skip, case.xfail) == ("not today", "known issue")
    assert case.graders == () and case.tags == () and dict(case.params) == {}


def test_grader_defaults(suite_dir: Path) -> None:
    path = write(
        suite_dir,
        "cases:\n"
        "  - id: a\n"
        "    task: image_generation\n"
        "    prompt: p\n"
        "    graders:\n"
        "      - use: image\n"
        "      - {use: similarity, name: close, gate: false, options: {min_score: 0.5}}\n",
    )
    graders = load_suite(path).cases[0].graders
    assert graders[0] == GraderSpec(use="image", name="image", gate=True, options={})
    assert graders[1] == GraderSpec(use="similarity", name="close", gate=False, options={"min_score": 0.5})


# -- defaults merging -------------------------------------------------------
MERGE_FILE = """\
defaults:
  task: image_generation
  prompt: default prompt
  reference: img/ref.png
  tags: [ui, mobile]
  params: {size: 64x64, quality: low}
  graders:
    - use: image
      options: {width: 64}
    - use: similarity
      options: {min_score: 0.8}
cases:
  - id: plain
  - id: custom
    prompt: own prompt
    reference: img/ref2.png
    tags: [text-heavy, ui]
    params: {quality: high, seed: 3}
    graders:
      - use: similarity
        options: {min_score: 0.95}
      - use: image
        name: second_image
        options: {width: 32}
"""


def test_defaults_apply_to_a_case_that_sets_nothing(suite_dir: Path) -> None:
    plain = load_suite(write(suite_dir, MERGE_FILE)).cases[0]
    assert plain.task == "image_generation"
    assert plain.prompt == "default prompt"
    assert plain.reference == (suite_dir / "img/ref.png").resolve()
    assert plain.tags == ("ui", "mobile")
    assert dict(plain.params) == {"size": "64x64", "quality": "low"}
    assert [g.name for g in plain.graders] == ["image", "similarity"]


def test_case_values_merge_over_defaults(suite_dir: Path) -> None:
    custom = load_suite(write(suite_dir, MERGE_FILE)).cases[1]
    # scalars and paths: the case replaces the default
    assert custom.prompt == "own prompt"
    assert custom.reference == (suite_dir / "img/ref2.png").resolve()
    # tags: the defaults' followed by the case's (a repeated tag once)
    assert custom.tags == ("ui", "mobile", "text-heavy")
    # params: merged key by key, the case wins
    assert dict(custom.params) == {"size": "64x64", "quality": "high", "seed": 3}
    # graders: a case grader with a default's name replaces it in place; others are appended
    assert [(g.name, dict(g.options)) for g in custom.graders] == [
        ("image", {"width": 64}),
        ("similarity", {"min_score": 0.95}),
        ("second_image", {"width": 32}),
    ]


def test_merging_does_not_leak_between_cases(suite_dir: Path) -> None:
    plain, custom = load_suite(write(suite_dir, MERGE_FILE)).cases
    assert dict(plain.params) == {"size": "64x64", "quality": "low"}
    assert custom.params is not plain.params
    assert dict(plain.graders[1].options) == {"min_score": 0.8}


def test_duplicate_grader_names_in_defaults_are_an_error(suite_dir: Path) -> None:
    path = write(
        suite_dir,
        "defaults:\n  graders: [{use: image}, {use: image}]\ncases:\n  - {id: a, task: image_generation, prompt: p}\n",
    )
    err = load_error(path)
    assert "two graders here share the name 'image'" in err.message


def test_duplicate_grader_names_in_one_case_are_an_error(suite_dir: Path) -> None:
    path = write(
        suite_dir,
        "cases:\n"
        "  - id: a\n"
        "    task: image_generation\n"
        "    prompt: p\n"
        "    graders:\n"
        "      - {use: image, options: {width: 10}}\n"
        "      - {use: image, options: {height: 10}}\n",
    )
    err = load_error(path)
    assert "two graders here share the name 'image'" in err.message


# -- required fields per task -----------------------------------------------
def test_task_is_required(suite_dir: Path) -> None:
    err = load_error(write(suite_dir, "cases:\n  - id: a\n    prompt: p\n"))
    assert (err.field, err.line) == ("cases[0]", 2)
    assert "'task' is required" in err.message


@pytest.mark.parametrize("task", ["image_generation", "html_generation"])
def test_generation_needs_a_prompt(suite_dir: Path, task: str) -> None:
    err = load_error(write(suite_dir, f"cases:\n  - id: a\n    task: {task}\n"))
    assert err.field == "cases[0]"
    assert f"a {task} case needs a 'prompt'" in err.message


def test_image_editing_without_images(suite_dir: Path) -> None:
    err = load_error(
        write(
            suite_dir,
            "cases:\n  - {id: ok, task: image_generation, prompt: p}\n  - id: b\n    task: image_editing\n    prompt: p\n",
        )
    )
    assert (err.field, err.line) == ("cases[1]", 3)
    assert "needs at least one input image" in err.message


def test_image_editing_with_images_from_defaults(suite_dir: Path) -> None:
    path = write(suite_dir, "defaults:\n  images: [img/in.png]\ncases:\n  - {id: a, task: image_editing, prompt: p}\n")
    assert load_suite(path).cases[0].images == ((suite_dir / "img/in.png").resolve(),)


# -- paths ------------------------------------------------------------------
def test_missing_image_names_field_and_line(suite_dir: Path) -> None:
    path = write(
        suite_dir,
        "cases:\n"
        "  - {id: a, task: image_generation, prompt: p}\n"
        "  - id: b\n"
        "    task: image_editing\n"
        "    prompt: p\n"
        "    images:\n"
        "      - img/nope.png\n",  # line 7
    )
    err = load_error(path)
    assert err.field == "cases[1].images[0]"
    assert err.line == 7
    assert "file not found: 'img/nope.png'" in err.message
    assert str(err).startswith(f"{path}:7: field 'cases[1].images[0]'")


def test_missing_mask_in_defaults(suite_dir: Path) -> None:
    err = load_error(
        write(suite_dir, "defaults:\n  mask: img/none.png\ncases:\n  - {id: a, task: image_generation, prompt: p}\n")
    )
    assert (err.field, err.line) == ("defaults.mask", 2)


def test_directory_is_not_a_file(suite_dir: Path) -> None:
    err = load_error(write(suite_dir, "cases:\n  - {id: a, task: image_generation, prompt: p, mask: img}\n"))
    assert err.field == "cases[0].mask"
    assert "file not found" in err.message


def test_reference_folder_needs_files(suite_dir: Path) -> None:
    (suite_dir / "empty").mkdir()
    err = load_error(write(suite_dir, "cases:\n  - {id: a, task: image_generation, prompt: p, reference: empty}\n"))
    assert err.field == "cases[0].reference"
    assert "file not found" in err.message
    (suite_dir / "empty" / "frame-1.png").write_bytes(b"x")
    suite = load_suite(write(suite_dir, "cases:\n  - {id: a, task: image_generation, prompt: p, reference: empty}\n"))
    assert suite.cases[0].reference == (suite_dir / "empty").resolve()


@pytest.mark.parametrize("bad", ["../outside.png", "/etc/passwd"])
def test_escaping_path_is_an_error(suite_dir: Path, bad: str) -> None:
    (suite_dir.parent / "outside.png").write_bytes(b"x")
    err = load_error(write(suite_dir, f"cases:\n  - id: a\n    task: image_generation\n    prompt: p\n    reference: '{bad}'\n"))
    assert (err.field, err.line) == ("cases[0].reference", 5)
    assert "absolute paths are not allowed" in err.message or "leaves the suite folder" in err.message


# -- case ids ---------------------------------------------------------------
def test_duplicate_case_id(suite_dir: Path) -> None:
    path = write(
        suite_dir,
        "cases:\n"
        "  - {id: same, task: image_generation, prompt: p}\n"
        "  - {id: other, task: image_generation, prompt: p}\n"
        "  - {id: same, task: image_generation, prompt: q}\n",
    )
    err = load_error(path)
    assert err.field == "cases[2].id"
    assert err.line == 4
    assert "duplicate case id 'same'" in err.message and "cases[0]" in err.message


# -- graders checked against option schemas ----------------------------------
def test_unknown_grader_with_schemas(suite_dir: Path) -> None:
    path = write(
        suite_dir,
        "cases:\n  - id: a\n    task: image_generation\n    prompt: p\n    graders:\n      - use: imgae\n",
    )
    err = load_error(path, WIDTH_SCHEMA)
    assert (err.field, err.line) == ("cases[0].graders[0].use", 6)
    assert "unknown grader 'imgae'" in err.message
    assert "known graders: image, similarity" in err.message


def test_unknown_grader_without_schemas_is_accepted(suite_dir: Path) -> None:
    path = write(suite_dir, "cases:\n  - {id: a, task: image_generation, prompt: p, graders: [{use: imgae}]}\n")
    assert load_suite(path).cases[0].graders[0].use == "imgae"


def test_bad_grader_option_names_the_option(suite_dir: Path) -> None:
    path = write(
        suite_dir,
        "cases:\n"
        "  - id: a\n"
        "    task: image_generation\n"
        "    prompt: p\n"
        "    graders:\n"
        "      - use: image\n"
        "        options:\n"
        "          width: wide\n",  # line 8
    )
    err = load_error(path, WIDTH_SCHEMA)
    assert (err.field, err.line) == ("cases[0].graders[0].options.width", 8)
    assert "'wide' is not of type 'integer'" in err.message


def test_unexpected_grader_option(suite_dir: Path) -> None:
    path = write(
        suite_dir, "cases:\n  - {id: a, task: image_generation, prompt: p, graders: [{use: image, options: {colour: red}}]}\n"
    )
    err = load_error(path, WIDTH_SCHEMA)
    assert err.field == "cases[0].graders[0].options.colour"
    assert err.message == "unknown option 'colour'; allowed: width"


def test_bad_option_in_defaults_grader(suite_dir: Path) -> None:
    path = write(
        suite_dir,
        "defaults:\n"
        "  graders:\n"
        "    - use: image\n"
        "      options: {width: 0}\n"  # line 4
        "cases:\n"
        "  - {id: a, task: image_generation, prompt: p}\n",
    )
    err = load_error(path, WIDTH_SCHEMA)
    assert err.field == "defaults.graders[0].options.width"
    assert err.line == 4


def test_builtin_option_schemas_accept_the_builtin_graders(suite_dir: Path) -> None:
    path = write(
        suite_dir,
        "cases:\n"
        "  - id: a\n"
        "    task: image_generation\n"
        "    prompt: p\n"
        "    reference: img/ref.png\n"
        "    graders:\n"
        "      - {use: image, options: {width: 8, height: 8, formats: [PNG]}}\n"
        "      - {use: similarity, options: {min_score: 0.9}}\n",
    )
    assert [g.use for g in load_suite(path, option_schemas()).cases[0].graders] == ["image", "similarity"]


# -- thresholds -------------------------------------------------------------
def test_thresholds_parsed(suite_dir: Path) -> None:
    path = write(
        suite_dir,
        "thresholds:\n"
        "  similarity.score: 0.9\n"
        "  image.not_blank: {min: 1.0}\n"
        "  latency: {max: 2.5}\n"
        "  band: {min: 0.2, max: 0.4}\n"
        "  count: 3\n"
        "cases:\n"
        "  - {id: a, task: image_generation, prompt: p}\n",
    )
    thresholds = load_suite(path, display_root=suite_dir).thresholds
    assert thresholds == (
        Threshold("demo", "similarity.score", min=0.9, source="demo.eval.yaml:2"),
        Threshold("demo", "image.not_blank", min=1.0, source="demo.eval.yaml:3"),
        Threshold("demo", "latency", max=2.5, source="demo.eval.yaml:4"),
        Threshold("demo", "band", min=0.2, max=0.4, source="demo.eval.yaml:5"),
        Threshold("demo", "count", min=3.0, source="demo.eval.yaml:6"),
    )
    assert isinstance(thresholds[4].min, float)


def test_threshold_source_without_display_root_is_the_full_path(suite_dir: Path) -> None:
    path = write(suite_dir, "thresholds:\n  s: 1\ncases:\n  - {id: a, task: image_generation, prompt: p}\n")
    assert load_suite(path).thresholds[0].source == f"{path}:2"


def test_nan_threshold_is_rejected(suite_dir: Path) -> None:
    path = write(suite_dir, "thresholds:\n  s: .nan\ncases:\n  - {id: a, task: image_generation, prompt: p}\n")
    with pytest.raises(CaseFileError):
        load_suite(path)


def test_schema_errors_come_with_the_building_ones(suite_dir: Path) -> None:
    err = load_error(write(suite_dir, "cases:\n  - id: a\n    promt: p\n"))
    assert str(err).splitlines() == [
        f"{suite_dir / 'demo.eval.yaml'}:2: field 'cases[0]': 'task' is required (in the case or in 'defaults')",
        f"{suite_dir / 'demo.eval.yaml'}:3: field 'cases[0].promt': unknown key 'promt' (did you mean 'prompt'?); "
        "allowed keys: criteria, description, fields, graders, id, images, mask, params, prompt, reference, render, "
        "repeat_policy, skip, tags, task, xfail",
    ]  # and not also "needs a 'prompt'": 'promt' was most likely meant to be it
