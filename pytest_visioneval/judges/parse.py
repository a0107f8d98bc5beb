"""Strict reading of a judge's reply: JSON that satisfies the reply schema.

A code fence around the JSON is tolerated (many models add one even when
asked for JSON only); anything else that is not exactly one JSON object
satisfying the schema is rejected with a reason, so the caller can ask again
and, in the end, report an error of the case.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

# Judge reply schemas are a few levels deep; a reply nested deeper than this is not an answer. Python's
# JSON reader recurses per level and stops with RecursionError near 1,000 levels, which must not escape
# as an internal error: a hostile or broken reply is rejected with a reason and the judge asked again.
MAX_REPLY_DEPTH = 64

_FENCE = re.compile(r"^\s*```(?:json)?\s*\n(?P<body>.*?)\n\s*```\s*$", re.DOTALL)


class ReplyRejected(ValueError):
    """The reply is not a JSON object satisfying the schema; ``str()`` says why, ``text`` is the reply."""

    text: str | None = None


def parse_reply(text: str | None, schema: dict) -> dict[str, Any]:
    if not text or not text.strip():
        raise ReplyRejected("the reply is empty")
    match = _FENCE.match(text)
    body = match["body"] if match else text
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise ReplyRejected(f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except RecursionError:
        raise ReplyRejected(
            f"nested too deeply to read (a {len(body):,}-character reply; at most {MAX_REPLY_DEPTH} levels are accepted)"
        ) from None
    if not isinstance(data, dict):
        raise ReplyRejected(f"expected a JSON object, got {type(data).__name__}")
    depth = nesting_depth(data)
    if depth > MAX_REPLY_DEPTH:
        raise ReplyRejected(f"nested {depth} levels deep, over the limit of {MAX_REPLY_DEPTH}")
    errors = sorted(_validator(json.dumps(schema, sort_keys=True)).iter_errors(data), key=lambda e: list(map(str, e.path)))
    if errors:
        first = errors[0]
        where = "/".join(map(str, first.absolute_path)) or "(top level)"
        raise ReplyRejected(f"does not match the reply schema at {where}: {first.message}")
    return data


def nesting_depth(value: Any) -> int:
    """How many objects and arrays deep ``value`` goes (a scalar: 0), walked without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        depth += 1
        deepest = max(deepest, depth)
        stack.extend((child, depth) for child in children)
    return deepest


@lru_cache(maxsize=64)
def _validator(schema_text: str) -> Any:
    import jsonschema  # on the first reply: a run answered from the cache never needs it

    schema = json.loads(schema_text)
    return jsonschema.validators.validator_for(schema)(schema)
