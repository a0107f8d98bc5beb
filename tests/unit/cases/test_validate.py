"""cases/validate.py: schema errors point at a line and a field."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest

from pytest_visioneval.cases.loader import load_yaml
from pytest_visioneval.cases.validate import BROKEN, case_file_schema, check_structure, validate_case_file
from pytest_visioneval.errors import CaseFileError


def validate(tmp_path: Path, text: str) -> None:
    path = tmp_path / "v.eval.yaml"
    path.write_text(text, encoding="utf-8")
    validate_case_file(load_yaml(path), path)


def error_of(tmp_path: Path, text: str) -> CaseFileError:
    with pytest.raises(CaseFileError) as info:
        validate(tmp_path, text)
    return info.value


def test_shipped_schema_is_a_valid_json_schema() -> None:
    schema = case_file_schema()
    jsonschema.validators.validator_for(schema).check_schema(schema)
    assert schema["required"] == ["cases"]


def test_valid_file_passes(tmp_path: Path) -> None:
    validate(
        tmp_path,
        "version: 1\n"
        "suite: demo\n"
        "thresholds:\n"
        "  similarity.score: 0.9\n"
        "  image.decodes: {min: 1.0}\n"
        "defaults: {task: image_generation, tags: [ui]}\n"
        "cases:\n"
        "  - id: a\n"
        "    prompt: hello\n"
        "    graders: [{use: image, options: {width: 4}}]\n",
    )


def test_unknown_key_names_line_field_and_suggestion(tmp_path: Path) -> None:
    err = error_of(
        tmp_path,
        "cases:\n  - id: a\n    task: image_generation\n    promt: a cat\n",
    )
    assert err.line == 4
    assert err.field == "cases[0].promt"
    assert "unknown key 'promt'" in err.message
    assert "did you mean 'prompt'?" in err.message
    assert "allowed keys:" in err.message and "prompt" in err.message
    assert str(err).startswith(f"{tmp_path / 'v.eval.yaml'}:4: field 'cases[0].promt':")


def test_unknown_key_without_close_match_has_no_hint(tmp_path: Path) -> None:
    err = error_of(tmp_path, "cases:\n  - id: a\n    zzzzzz: 1\n")
    assert err.field == "cases[0].zzzzzz"
    assert "did you mean" not in err.message


def test_unknown_top_level_key(tmp_path: Path) -> None:
    err = error_of(tmp_path, "suite: a\ncase:\n  - id: x\ncases:\n  - id: y\n")
    assert (err.line, err.field) == (2, "case")
    assert "did you mean 'cases'?" in err.message


def test_wrong_type(tmp_path: Path) -> None:
    err = error_of(tmp_path, "cases:\n  - id: a\n    task: image_generation\n    prompt: 5\n")
    assert (err.line, err.field) == (4, "cases[0].prompt")
    assert "is not of type 'string'" in err.message


def test_wrong_enum_value(tmp_path: Path) -> None:
    err = error_of(tmp_path, "cases:\n  - id: a\n    task: video\n")
    assert (err.line, err.field) == (3, "cases[0].task")
    assert "'video'" in err.message


def test_missing_cases(tmp_path: Path) -> None:
    err = error_of(tmp_path, "suite: demo\n")
    assert err.line == 1
    assert err.field is None
    assert err.message == "'cases' is required"


def test_missing_case_id(tmp_path: Path) -> None:
    err = error_of(tmp_path, "cases:\n  - prompt: p\n")
    assert (err.line, err.field) == (2, "cases[0]")
    assert err.message == "'id' is required"


def test_bad_threshold_has_a_readable_message(tmp_path: Path) -> None:
    err = error_of(tmp_path, "thresholds:\n  score: high\ncases:\n  - id: a\n")
    assert (err.line, err.field) == (2, "thresholds.score")
    assert "a threshold is a number" in err.message


def test_not_a_mapping(tmp_path: Path) -> None:
    err = error_of(tmp_path, "- id: a\n- id: b\n")
    assert err.line == 1
    assert "must be a mapping" in err.message


def test_several_problems_are_listed_in_file_order(tmp_path: Path) -> None:
    err = error_of(
        tmp_path,
        "cases:\n"
        "  - id: a\n"
        "    tags: notalist\n"  # line 3
        "    promt: x\n"  # line 4
        "  - id: 'has space'\n",  # line 5
    )
    # The first problem in file order is the primary one...
    assert (err.line, err.field) == (3, "cases[0].tags")
    text = str(err)
    lines = text.splitlines()
    assert len(lines) == 3
    assert ":3: field 'cases[0].tags'" in lines[0]
    assert ":4: field 'cases[0].promt'" in lines[1]
    assert ":5: field 'cases[1].id'" in lines[2]


def test_single_problem_message_is_one_line(tmp_path: Path) -> None:
    err = error_of(tmp_path, "cases:\n  - id: a\n    promt: x\n")
    assert "\n" not in str(err)


def test_fast_and_full_validators_agree(tmp_path: Path) -> None:
    """The fast path (fastjsonschema) must reject exactly what jsonschema rejects."""
    from pytest_visioneval.cases.validate import _fast_check, _validator

    samples = [
        {"cases": [{"id": "a", "task": "image_generation", "prompt": "p"}]},
        {"cases": [{"id": "a", "promt": "p"}]},
        {"cases": []},
        {"cases": [{"id": "a b"}]},
        {"suite": "x.y", "cases": [{"id": "a"}]},
        {"cases": [{"id": "a", "tags": ["and"]}]},
        {"cases": [{"id": "a", "tags": ["ok-tag", "ok_2"]}]},
        {"thresholds": {"m.s": {"min": 1, "max": 2}}, "cases": [{"id": "a"}]},
        {"thresholds": {"m.s": {}}, "cases": [{"id": "a"}]},
        {"thresholds": {"m.s": "high"}, "cases": [{"id": "a"}]},
        {"defaults": {"graders": [{"use": "image", "gate": "yes"}]}, "cases": [{"id": "a"}]},
        {"defaults": {"graders": [{"use": "Image"}]}, "cases": [{"id": "a"}]},
        {"version": 2, "cases": [{"id": "a"}]},
        {"cases": [{"id": "a", "images": "x.png"}]},
        {"cases": [{"id": "a", "task": "video"}]},
        {"cases": [{"id": "a", "params": {"n": 2}, "skip": ""}]},
    ]
    fast, full = _fast_check(), _validator()
    for sample in samples:
        try:
            fast(sample)
            fast_ok = True
        except Exception:
            fast_ok = False
        assert fast_ok == full.is_valid(sample), sample


def test_defaults_accept_every_case_field_but_the_case_only_ones() -> None:
    """The schema lists case fields twice (defaults and case); guard against drift."""
    from pytest_visioneval.cases.validate import case_file_schema

    defs = case_file_schema()["$defs"]
    case_keys = set(defs["case"]["properties"])
    default_keys = set(defs["defaults"]["properties"])
    assert case_keys - default_keys == {"id", "description", "skip", "xfail"}
    assert default_keys <= case_keys
    for key in default_keys:
        assert defs["defaults"]["properties"][key] == defs["case"]["properties"][key], key


def test_the_fast_check_never_writes_a_schema_default_into_the_data(monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_visioneval.cases import validate

    schema = {"type": "object", "properties": {"suite": {"type": "string", "default": "filled-in"}}, "$defs": {}}
    monkeypatch.setattr(validate, "case_file_schema", lambda: schema)
    validate._fast_check.cache_clear()
    try:
        data: dict[str, object] = {}
        validate._fast_check()(data)
        assert data == {}
    finally:
        validate._fast_check.cache_clear()


# -- check_structure: the problems, and the data without the parts that have them --------------------------------
def structure_of(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "s.eval.yaml"
    path.write_text(text, encoding="utf-8")
    return check_structure(load_yaml(path), path)


def test_valid_data_is_handed_back_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "s.eval.yaml"
    path.write_text("cases:\n  - {id: a, prompt: p}\n", encoding="utf-8")
    loaded = load_yaml(path)
    structure = check_structure(loaded, path)
    assert structure.problems == () and structure.pruned == frozenset()
    assert structure.data is loaded.data  # no copy for a file that is fine


def test_broken_parts_are_taken_out_and_list_items_keep_their_place(tmp_path: Path) -> None:
    structure = structure_of(
        tmp_path,
        "cases:\n"
        "  - id: a\n"
        "    prompt: 3\n"  # 3
        "    promt: x\n"  # 4
        "    images: [4, in.png]\n"  # 5
        "    graders: [{name: only}]\n"  # 6: 'use' is required; nothing is taken out for it
        "  - 5\n",  # 7
    )
    assert [(p.line, p.field) for p in structure.problems] == [
        (3, "cases[0].prompt"),
        (4, "cases[0].promt"),
        (5, "cases[0].images[0]"),
        (6, "cases[0].graders[0]"),
        (7, "cases[1]"),
    ]
    assert structure.data == {"cases": [{"id": "a", "images": [BROKEN, "in.png"], "graders": [{"name": "only"}]}, BROKEN]}
    assert structure.broken(("cases", 0, "prompt")) and structure.broken(("cases", 1))
    assert not structure.broken(("cases", 0, "graders"))
    assert not structure.broken(("cases", 0, "images", 1))


def test_a_misspelt_key_counts_its_likely_meaning_as_broken(tmp_path: Path) -> None:
    structure = structure_of(tmp_path, "cases:\n  - id: a\n    promt: x\n    zzzzzz: 1\n")
    assert structure.broken(("cases", 0, "prompt"))  # the prompt is not "missing": it was misspelt
    assert structure.pruned == frozenset({("cases", 0, "promt"), ("cases", 0, "zzzzzz")})


def test_a_bad_name_in_a_mapping_points_at_its_own_line(tmp_path: Path) -> None:
    structure = structure_of(tmp_path, "thresholds:\n  ok.x: 1\n  'bad name': 2\ncases:\n  - id: a\n")
    [problem] = structure.problems
    assert (problem.line, problem.field) == (3, "thresholds.bad name")
    assert problem.message.startswith("name 'bad name' does not match")
    assert structure.data["thresholds"] == {"ok.x": 1}


def test_when_the_two_validators_disagree_the_file_is_rejected_and_nothing_else_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_visioneval.cases import validate
    from pytest_visioneval.cases.suite import load_suite

    class Silent:
        def iter_errors(self, data: object) -> list[object]:
            return []

    monkeypatch.setattr(validate, "_validator", lambda: Silent())
    path = tmp_path / "s.eval.yaml"
    path.write_text("cases:\n  - id: a\n    promt: x\n    mask: gone.png\n", encoding="utf-8")
    with pytest.raises(CaseFileError) as info:
        load_suite(path)
    assert str(info.value).startswith(f"{path}: rejected by the case-file schema: ")
    assert "\n" not in str(info.value)  # the rest of the file was not read as if it were sound
