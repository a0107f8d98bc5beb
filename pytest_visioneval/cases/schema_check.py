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
from typing import TYPE_CHECKING, Any

import fastjsonschema

from .compiled_schema import compiled_validator
from .suggest import unknown_name

if TYPE_CHECKING:
    import jsonschema

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
            self._fast = compiled_validator({**plain, "$schema": "http://json-schema.org/draft-07/schema#"})

    @property
    def compiled(self) -> bool:
        """Whether valid data is accepted by the compiled check, without jsonschema."""
        return self._fast is not None

    def problems(self, data: Any, key_word: str | None = None) -> list[Problem]:
        """Every problem, sorted by path; an empty list for valid data.

        With ``key_word`` (what the keys are: "option"), a key the schema does not
        allow is one problem of its own, at its path, with the closest allowed key;
        without it, jsonschema's own words.
        """
        fast_message = None
        if self._fast is not None:
            try:
                self._fast(data)
                return []
            except fastjsonschema.JsonSchemaException as exc:
                fast_message = str(exc)
        import jsonschema

        validator = jsonschema.validators.validator_for(self.schema)(self.schema)
        found = [p for e in validator.iter_errors(data) for p in _worded(e, key_word)]
        if not found and fast_message is not None:  # the two disagree: reject, on the safe side
            return [Problem((), fast_message)]
        return sorted(found, key=lambda p: list(map(str, p.path)))


def _worded(error: jsonschema.ValidationError, key_word: str | None) -> list[Problem]:
    """jsonschema's error as problems: "Additional properties are not allowed" becomes one per unknown key."""
    where = tuple(error.absolute_path)
    schema = error.schema
    unknown_keys = error.validator == "additionalProperties" and isinstance(error.instance, dict)
    if key_word and unknown_keys and isinstance(schema, Mapping):
        allowed = set(schema.get("properties", {}))
        unknown = sorted(str(k) for k in error.instance if k not in allowed and not _pattern_allows(schema, str(k)))
        if unknown:
            return [Problem(where + (key,), unknown_name(key_word, key, allowed)) for key in unknown]
    return [Problem(where, error.message)]


def _pattern_allows(schema: Mapping[str, Any], key: str) -> bool:
    import re

    return any(re.search(pattern, key) for pattern in schema.get("patternProperties", {}))


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
