"""cases/schema_check.py: a compiled check for valid data, jsonschema's paths and words for the rest."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_visioneval.cases.schema_check import Problem, SchemaCheck
from pytest_visioneval.graders.registry import option_schemas
from pytest_visioneval.protocols import BUILTIN_PROTOCOLS, get_protocol

OPTIONS = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "width": {"type": "integer", "minimum": 1, "default": 64},
        "names": {"type": "array", "items": {"type": "string", "minLength": 1}},
        "mode": {"enum": ["fast", "exact"]},
    },
}


def test_valid_data_passes_the_compiled_check_and_keeps_its_shape() -> None:
    check = SchemaCheck(OPTIONS)
    assert check.compiled
    data: dict[str, Any] = {"names": ["a"]}
    assert check.problems(data) == []
    assert data == {"names": ["a"]}  # the schema's default is not written into the data


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({"width": 0}, Problem(("width",), "0 is less than the minimum of 1")),
        ({"names": ["ok", ""]}, Problem(("names", 1), "'' should be non-empty")),
        ({"colour": 1}, Problem((), "Additional properties are not allowed ('colour' was unexpected)")),
    ],
)
def test_invalid_data_gets_jsonschemas_path_and_message(data: dict[str, Any], problem: Problem) -> None:
    assert SchemaCheck(OPTIONS).problems(data) == [problem]


@pytest.mark.parametrize(
    ("data", "problems"),
    [
        ({"colour": 1}, [Problem(("colour",), "unknown option 'colour'; allowed: mode, names, width")]),
        (
            {"widht": 1, "mdoe": "fast"},
            [
                Problem(("mdoe",), "unknown option 'mdoe' (did you mean 'mode'?); allowed: mode, names, width"),
                Problem(("widht",), "unknown option 'widht' (did you mean 'width'?); allowed: mode, names, width"),
            ],
        ),
    ],
)
def test_unknown_keys_get_a_did_you_mean_when_named(data: dict[str, Any], problems: list[Problem]) -> None:
    assert SchemaCheck(OPTIONS).problems(data, "option") == problems


def test_problems_come_sorted_by_path() -> None:
    problems = SchemaCheck(OPTIONS).problems({"width": 0, "mode": "slow"})
    assert [p.path for p in problems] == [("mode",), ("width",)]


@pytest.mark.parametrize(
    "schema",
    [
        {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"},
        {"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"type": "string"}}},
        {"type": "string", "format": "email"},
        {"type": "array", "items": [{"type": "string"}]},
        {"type": "array", "prefixItems": [{"type": "string"}]},
        {"type": "object", "dependentRequired": {"a": ["b"]}},
    ],
    ids=["other-draft", "ref", "format", "items-list", "2020-keyword", "2019-keyword"],
)
def test_a_schema_that_may_mean_otherwise_in_draft_07_is_left_to_jsonschema(schema: dict[str, Any]) -> None:
    assert not SchemaCheck(schema).compiled


def test_a_schema_left_to_jsonschema_is_still_checked() -> None:
    check = SchemaCheck({"type": "array", "prefixItems": [{"type": "string"}]})
    assert check.problems(["a", 1]) == []
    assert check.problems([1]) == [Problem((0,), "1 is not of type 'string'")]


def test_every_built_in_grader_options_and_protocol_fields_schema_is_compiled() -> None:
    schemas = dict(option_schemas())
    schemas |= {f"protocol {name}": get_protocol(name).fields_schema for name in BUILTIN_PROTOCOLS}  # type: ignore[union-attr]
    assert [name for name, schema in schemas.items() if not SchemaCheck(schema).compiled] == []
