"""Check a loaded case file against the shipped JSON Schema.

Errors become one :class:`CaseFileError` naming the file, the line and the
field of the first problem (in file order), with every further problem listed
after it (see problems.py), so a user fixes a file in one pass.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import fastjsonschema

from ..errors import CaseFileError
from .loader import LoadedYaml, PathKey, format_field
from .problems import combined
from .suggest import unknown_name

if TYPE_CHECKING:
    import jsonschema  # imported when a file is rejected: the fast check accepts valid files without it

SCHEMA_RESOURCE = "case-file.schema.json"


@lru_cache(maxsize=1)
def case_file_schema() -> dict[str, Any]:
    text = resources.files(__package__).joinpath("schema", SCHEMA_RESOURCE).read_text(encoding="utf-8")
    return json.loads(text)


@lru_cache(maxsize=1)
def _validator() -> jsonschema.protocols.Validator:
    import jsonschema

    schema = case_file_schema()
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    # Resolving "$ref"s while validating is a large part of collection time
    # for big suites; the schema has no recursion, so they are inlined once.
    return cls(_inline_refs(schema, schema["$defs"]))


def _inline_refs(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            target = _inline_refs(defs[ref.removeprefix("#/$defs/")], defs)
            rest = {k: _inline_refs(v, defs) for k, v in node.items() if k != "$ref"}
            return {**target, **rest} if rest else target
        return {k: _inline_refs(v, defs) for k, v in node.items() if k != "$defs"}
    if isinstance(node, list):
        return [_inline_refs(v, defs) for v in node]
    return node


@lru_cache(maxsize=1)
def _fast_check() -> Callable[[Any], Any]:
    """The same schema compiled to Python by fastjsonschema: ~10x faster.

    Used only to accept valid files quickly; a file it rejects is validated
    again by jsonschema, whose errors carry the paths that messages need.
    The schema uses nothing that differs between draft-07 (fastjsonschema's
    newest) and 2020-12 once its "$ref"s are inlined.
    """
    schema = case_file_schema()
    flat = _inline_refs(schema, schema["$defs"])
    flat["$schema"] = "http://json-schema.org/draft-07/schema#"
    return fastjsonschema.compile(flat, use_default=False)  # never write a default into the loaded data


def validate_case_file(loaded: LoadedYaml, path: Path) -> None:
    """Raise :class:`CaseFileError` if ``loaded.data`` breaks the schema."""
    if not isinstance(loaded.data, dict):
        raise CaseFileError(path, "a case file must be a mapping with a 'cases' list", line=loaded.line_of(()))
    try:
        _fast_check()(loaded.data)
        return
    except fastjsonschema.JsonSchemaException as exc:
        fast_message = str(exc)
    problems = [p for err in _validator().iter_errors(loaded.data) for p in _describe(err, loaded)]
    if not problems:  # the two validators disagree: stay on the safe side
        raise CaseFileError(path, f"rejected by the case-file schema: {fast_message}")
    raise combined([CaseFileError(path, m, line=ln, field=f or None) for ln, f, m in problems])


def _describe(err: jsonschema.ValidationError, loaded: LoadedYaml) -> list[tuple[int | None, str, str]]:
    """One (line, field, message) per problem of ``err``: an unknown key each, with the closest known one."""
    where: PathKey = tuple(err.absolute_path)
    message = err.message
    if err.validator == "additionalProperties" and isinstance(err.instance, dict) and isinstance(err.schema, dict):
        allowed = set(err.schema.get("properties", {}))
        unknown = sorted(str(k) for k in err.instance if k not in allowed)
        if unknown:
            return [
                (loaded.line_of(where + (key,)), format_field(where + (key,)), unknown_name("key", key, allowed, "allowed keys"))
                for key in unknown
            ]
    elif err.validator == "required":
        message = err.message.replace("is a required property", "is required")
    elif err.validator == "oneOf" and where and where[0] == "thresholds":
        message = "a threshold is a number (the minimum) or a mapping with 'min' and/or 'max'"
    return [(loaded.line_of(where), format_field(where), message)]
