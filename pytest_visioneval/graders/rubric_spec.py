"""Rubrics: what a rubric judge asks, and the verdict rules applied to the answers.

A rubric is a YAML file (the four built-ins live in ``graders/rubrics/``)::

    name: ui_mockup
    instructions: ...            # or instructions_file: prompt.txt (next to the rubric)
    fields:
      - {name: text_rendering, kind: pass_fail, description: ...}
      - {name: layout_hierarchy, kind: score, description: ...}   # integer 0..scale
    scale: 5                     # optional, the top of every score (default 5)
    rules:                       # all must hold for the verdict to pass
      text_rendering: pass
      layout_hierarchy: ">= 3"
    failure_tags: [text_unreadable_or_garbled, ...]

The verdict is computed here from the field values; a judge is never asked
for, and never trusted with, a verdict of its own.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from ..cases.paths import PathEscapeError, resolve_inside

BUILTIN_RUBRICS = ("ui_mockup", "marketing_flyer", "virtual_tryon", "logo_edit")

_RULE = re.compile(r"^\s*(?P<op>>=|<=|>|<|==)\s*(?P<value>-?\d+(\.\d+)?)\s*$")
_OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
    "==": operator.eq,
}

RUBRIC_FILE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name", "fields", "rules"],
    "oneOf": [{"required": ["instructions"]}, {"required": ["instructions_file"]}],
    "properties": {
        "name": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
        "instructions": {"type": "string", "minLength": 1},
        "instructions_file": {"type": "string", "minLength": 1},
        "scale": {"type": "integer", "minimum": 1, "maximum": 100},
        "fields": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name", "kind", "description"],
                "properties": {
                    "name": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
                    "kind": {"enum": ["pass_fail", "score"]},
                    "description": {"type": "string", "minLength": 1},
                },
            },
        },
        "rules": {"type": "object", "additionalProperties": {"type": "string"}},
        "failure_tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"}},
    },
}


@dataclass(frozen=True)
class Field:
    name: str
    kind: str  # "pass_fail" | "score"
    description: str


@dataclass(frozen=True)
class Rule:
    field: str
    text: str  # as written, for messages
    check: Callable[[Any], bool]


@dataclass(frozen=True)
class Rubric:
    name: str
    instructions: str
    fields: tuple[Field, ...]
    rules: tuple[Rule, ...]
    failure_tags: tuple[str, ...]
    scale: int = 5

    def reply_schema(self) -> dict[str, Any]:
        """Strict JSON Schema of the judge's reply (reason before value, so it reasons first)."""

        def value_schema(f: Field) -> dict[str, Any]:
            if f.kind == "pass_fail":
                return {"type": "boolean"}
            return {"type": "integer", "minimum": 0, "maximum": self.scale}

        field_props = {
            f.name: {
                "type": "object",
                "additionalProperties": False,
                "required": ["reason", "value"],
                "properties": {"reason": {"type": "string"}, "value": value_schema(f)},
            }
            for f in self.fields
        }
        tags: dict[str, Any] = (
            {"type": "array", "items": {"enum": list(self.failure_tags)}}
            if self.failure_tags
            else {
                "type": "array",
                "maxItems": 0,
            }
        )
        return {
            "type": "object",
            "additionalProperties": False,
            "required": ["fields", "failure_tags"],
            "properties": {
                "fields": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": [f.name for f in self.fields],
                    "properties": field_props,
                },
                "failure_tags": tags,
            },
        }

    def prompt_text(self) -> str:
        lines = ["Fields to fill in:"]
        for f in self.fields:
            kind = "true (pass) or false (fail)" if f.kind == "pass_fail" else f"integer 0-{self.scale}"
            lines.append(f"- {f.name} ({kind}): {f.description}")
        if self.failure_tags:
            lines.append("failure_tags: list every one of these that applies, or none: " + ", ".join(self.failure_tags))
        lines.append('Reply with one JSON object: {"fields": {<name>: {"reason": ..., "value": ...}}, "failure_tags": [...]}.')
        return "\n".join(lines)


class RubricError(ValueError):
    pass


def parse_rubric(data: Any, origin: str, folder: Path | None = None) -> Rubric:
    """Check a rubric mapping and build a :class:`Rubric`; raise :class:`RubricError` with the reason."""
    errors = sorted(jsonschema.Draft202012Validator(RUBRIC_FILE_SCHEMA).iter_errors(data), key=lambda e: list(map(str, e.path)))
    if errors:
        where = "/".join(map(str, errors[0].absolute_path)) or "(top level)"
        raise RubricError(f"rubric {origin}: {where}: {errors[0].message}")
    fields = tuple(Field(f["name"], f["kind"], f["description"]) for f in data["fields"])
    by_name = {f.name: f for f in fields}
    if len(by_name) != len(fields):
        raise RubricError(f"rubric {origin}: two fields share a name")
    rules = tuple(_rule(name, text, by_name, origin) for name, text in data["rules"].items())
    instructions = data.get("instructions")
    if instructions is None:
        if folder is None:
            raise RubricError(f"rubric {origin}: instructions_file needs a rubric file")
        try:
            instructions = resolve_inside(folder, data["instructions_file"]).read_text(encoding="utf-8")
        except (OSError, PathEscapeError) as exc:
            raise RubricError(f"rubric {origin}: cannot read instructions_file: {exc}") from None
    return Rubric(data["name"], instructions, fields, rules, tuple(data.get("failure_tags", ())), data.get("scale", 5))


def _rule(name: str, text: str, fields: dict[str, Field], origin: str) -> Rule:
    if name not in fields:
        raise RubricError(f"rubric {origin}: rule names unknown field {name!r}")
    if fields[name].kind == "pass_fail":
        if text.strip() not in ("pass", "fail"):
            raise RubricError(f"rubric {origin}: rule for pass/fail field {name!r} must be 'pass' or 'fail', got {text!r}")
        want = text.strip() == "pass"

        def check_pass(value: Any) -> bool:
            return bool(value) == want

        return Rule(name, text.strip(), check_pass)
    match = _RULE.match(text)
    if not match:
        raise RubricError(f"rubric {origin}: rule for {name!r} must look like '>= 3', got {text!r}")
    op, bound = _OPS[match["op"]], float(match["value"])

    def check_score(value: Any) -> bool:
        return op(float(value), bound)

    return Rule(name, text.strip(), check_score)


@cache
def builtin_rubric(name: str) -> Rubric:
    text = resources.files(__package__).joinpath("rubrics", f"{name}.yaml").read_text(encoding="utf-8")
    return parse_rubric(yaml.safe_load(text), f"{name} (built-in)")


def load_rubric_file(path: Path) -> Rubric:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise RubricError(f"cannot read rubric file {path}: {exc}") from None
    return parse_rubric(data, str(path), path.parent)
