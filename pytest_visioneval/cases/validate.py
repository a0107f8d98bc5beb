"""Check a loaded case file against the shipped JSON Schema.

Errors become one :class:`CaseFileError` naming the file, the line and the
field of the first problem (in file order), with every further problem listed
after it (see problems.py), so a user fixes a file in one pass.

:func:`check_structure` also hands back the data with each part that broke
the schema taken out (a list item is replaced by :data:`BROKEN`, so the items
after it keep their index and line), and the paths taken out. What is left
fits the schema but for keys it requires, so the checks that come after it
(grader names and options, files, ids, thresholds) run on every part of the
file whose structure is sound, and the error lists their problems too.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import fastjsonschema

from ..errors import CaseFileError
from .compiled_schema import compiled_validator
from .loader import LoadedYaml, PathKey, format_field
from .problems import combined
from .suggest import closest, unknown_name

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
    """The same schema compiled to Python by fastjsonschema (kept on disk: compiled_schema.py): ~10x faster.

    Used only to accept valid files quickly; a file it rejects is validated
    again by jsonschema, whose errors carry the paths that messages need.
    The schema uses nothing that differs between draft-07 (fastjsonschema's
    newest) and 2020-12 once its "$ref"s are inlined.
    """
    schema = case_file_schema()
    flat = _inline_refs(schema, schema["$defs"])
    flat["$schema"] = "http://json-schema.org/draft-07/schema#"
    return compiled_validator(flat)  # never writes a default into the loaded data


class _Broken:
    """Stands for a list item that broke the schema; the checks after the schema pass it by."""

    def __repr__(self) -> str:
        return "BROKEN"


BROKEN: Any = _Broken()


@dataclass(frozen=True)
class Structure:
    """A case file after the schema: its problems, and its data with the broken parts taken out."""

    data: dict[str, Any]
    problems: tuple[CaseFileError, ...] = ()
    pruned: frozenset[PathKey] = frozenset()  # the paths taken out of ``data``
    # The paths taken out, and the keys that misspelt unknown keys were most likely meant to be
    # ('promt' -> 'prompt'): a check of the merged case does not also call that prompt missing.
    doubtful: frozenset[PathKey] = frozenset()

    def broken(self, prefix: PathKey) -> bool:
        """Whether the schema took out ``prefix`` or anything below it, or a misspelling of it."""
        n = len(prefix)
        return any(p[:n] == prefix for p in self.doubtful)


def validate_case_file(loaded: LoadedYaml, path: Path) -> None:
    """Raise :class:`CaseFileError` if ``loaded.data`` breaks the schema."""
    structure = check_structure(loaded, path)
    if structure.problems:
        raise combined(structure.problems)


def check_structure(loaded: LoadedYaml, path: Path) -> Structure:
    """Every schema problem of ``loaded``, and its data without the parts that have them.

    A file that is not a mapping raises: nothing in it can be checked further.
    Valid data is handed back as it is (the fast check costs a few
    microseconds per case; only a rejected file is copied).
    """
    if not isinstance(loaded.data, dict):
        raise CaseFileError(path, "a case file must be a mapping with a 'cases' list", line=loaded.line_of(()))
    try:
        _fast_check()(loaded.data)
        return Structure(loaded.data)
    except fastjsonschema.JsonSchemaException as exc:
        fast_message = str(exc)
    described = [d for err in _validator().iter_errors(loaded.data) for d in _describe(err, loaded)]
    if not described:  # the two validators disagree: stay on the safe side, and check nothing further
        problem = CaseFileError(path, f"rejected by the case-file schema: {fast_message}")
        return Structure({}, (problem,), frozenset({()}), frozenset({()}))
    data = copy.deepcopy(loaded.data)
    pruned = {d.prune for d in described if d.prune is not None}
    for where in sorted(pruned, key=len):
        _take_out(data, where)
    described.sort(key=lambda d: (d.line or 0, format_field(d.where)))
    problems = tuple(CaseFileError(path, d.message, line=d.line, field=format_field(d.where) or None) for d in described)
    meant = {d.meant for d in described if d.meant is not None}
    return Structure(data, problems, frozenset(pruned), frozenset(pruned | meant))


def _take_out(data: Any, where: PathKey) -> None:
    """Remove the value at ``where`` (a list item becomes BROKEN); nothing when an ancestor is gone already."""
    parent = data
    for part in where[:-1]:
        try:
            parent = parent[part]
        except (KeyError, IndexError, TypeError):
            return
    last = where[-1]
    if isinstance(parent, dict):
        parent.pop(last, None)
    elif isinstance(parent, list) and isinstance(last, int) and last < len(parent):
        parent[last] = BROKEN


@dataclass(frozen=True)
class _Described:
    where: PathKey  # the field the message is about
    line: int | None
    message: str
    prune: PathKey | None  # the part to take out of the data; None: nothing (a required key is missing)
    meant: PathKey | None = None  # an unknown key's closest allowed key


def _describe(err: jsonschema.ValidationError, loaded: LoadedYaml) -> list[_Described]:
    """One problem per unknown key (with the closest known one), else one per error."""
    where: PathKey = tuple(err.absolute_path)
    message = err.message
    prune: PathKey | None = where
    if err.validator == "additionalProperties" and isinstance(err.instance, dict) and isinstance(err.schema, dict):
        allowed = set(err.schema.get("properties", {}))
        unknown = sorted(str(k) for k in err.instance if k not in allowed)
        if unknown:
            out = []
            for key in unknown:
                here, close = where + (key,), closest(key, allowed)
                message = unknown_name("key", key, allowed, "allowed keys")
                out.append(_Described(here, loaded.line_of(here), message, here, None if close is None else where + (close,)))
            return out
    elif "propertyNames" in err.relative_schema_path and isinstance(err.instance, str):
        where = prune = where + (err.instance,)  # the name is the problem: point at its own line
        message = f"name {err.message}"
    elif err.validator == "required":
        message = err.message.replace("is a required property", "is required")
        prune = None
    elif err.validator == "oneOf" and where and where[0] == "thresholds":
        message = "a threshold is a number (the minimum) or a mapping with 'min' and/or 'max'"
    if not where:
        prune = None  # the file itself is a mapping (checked first): a top-level problem takes nothing out
    return [_Described(where, loaded.line_of(where), message, prune)]
