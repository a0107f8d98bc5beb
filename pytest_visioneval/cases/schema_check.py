"""Check data against a JSON Schema: fast when it is valid, with paths and messages when it is not.

Every case's grader options and protocol fields are checked while a suite is
collected. jsonschema takes about 100 ms to import (a tenth of a pytest
process's start here) and checks about ten times slower than a schema compiled
by fastjsonschema. So a schema whose keywords mean the same in draft-07
(fastjsonschema's newest) and in 2020-12 (jsonschema's default) is compiled
once by fastjsonschema, and only data it rejects is checked again by
jsonschema, imported then, whose errors carry the path and wording that a
collection error needs. Any other schema (one that names another draft, uses
``$ref``, ``format``, array-form ``items`` or a keyword not listed below) is
checked by jsonschema alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import fastjsonschema

# Keywords whose meaning is the same in draft-07 and 2020-12 (``format`` is left out: draft-07 validators
# assert it, 2020-12 only annotates). Values of the first set are subschemas; of the second, maps of them;
# of the third, lists of them.
_SUBSCHEMA = frozenset({"items", "additionalProperties", "propertyNames", "contains", "not", "if", "then", "else"})
_SUBSCHEMA_MAPS = frozenset({"properties", "patternProperties"})
_SUBSCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf"})
_PLAIN = frozenset(
    {
        "type", "enum", "const", "required", "minProperties", "maxProperties", "minItems", "maxItems", "uniqueItems",
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
        "pattern", "default", "title", "description", "examples", "$comment",
    }
)  # fmt: skip
_DRAFTS_ALIKE = ("http://json-schema.org/draft-07/schema", "https://json-schema.org/draft/2020-12/schema")


@dataclass(frozen=True)
class Problem:
    path: tuple[str | int, ...]  # where in the data (empty: the data itself)
    message: str


class SchemaCheck:
    def __init__(self, schema: Mapping[str, Any]):
        self.schema = schema
        self._fast: Callable[[Any], Any] | None = None
        if _same_in_both_drafts(schema):
            plain = {k: v for k, v in schema.items() if k != "$schema"}
            # use_default=False: fastjsonschema would otherwise write the schema's defaults into the data.
            self._fast = fastjsonschema.compile(
                {**plain, "$schema": "http://json-schema.org/draft-07/schema#"}, use_default=False
            )

    @property
    def compiled(self) -> bool:
        """Whether valid data is accepted by the compiled check, without jsonschema."""
        return self._fast is not None

    def problems(self, data: Any) -> list[Problem]:
        """Every problem, sorted by path; an empty list for valid data."""
        fast_message = None
        if self._fast is not None:
            try:
                self._fast(data)
                return []
            except fastjsonschema.JsonSchemaException as exc:
                fast_message = str(exc)
        import jsonschema

        validator = jsonschema.validators.validator_for(self.schema)(self.schema)
        errors = sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
        if not errors and fast_message is not None:  # the two disagree: reject, on the safe side
            return [Problem((), fast_message)]
        return [Problem(tuple(e.absolute_path), e.message) for e in errors]


def _same_in_both_drafts(schema: Any) -> bool:
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, Mapping):
        return False
    declared = schema.get("$schema")
    if declared is not None and str(declared).rstrip("#") not in _DRAFTS_ALIKE:
        return False
    for keyword, value in schema.items():
        if keyword == "$schema" or keyword in _PLAIN:
            continue
        if keyword in _SUBSCHEMA:
            if keyword == "items" and not isinstance(value, (Mapping, bool)):
                return False  # a list of schemas: tuple validation in draft-07, an error in 2020-12
            if not _same_in_both_drafts(value):
                return False
        elif keyword in _SUBSCHEMA_MAPS:
            if not isinstance(value, Mapping) or not all(_same_in_both_drafts(v) for v in value.values()):
                return False
        elif keyword in _SUBSCHEMA_LISTS:
            if not isinstance(value, list) or not all(_same_in_both_drafts(v) for v in value):
                return False
        else:
            return False
    return True
