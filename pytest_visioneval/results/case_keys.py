"""How a case record is named when two documents' cases are paired: ``uid``, or ``uid[model]`` in a run of several models."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def case_keys(cases: Iterable[Mapping[str, Any]]) -> list[tuple[str, Mapping[str, Any]]]:
    """Each case record with its key; records without a uid (summaries, not cases) are left out."""
    records = [case for case in cases if "uid" in case]
    several = len({case.get("model") for case in records if case.get("task")}) > 1
    return [(f"{case['uid']}[{case.get('model')}]" if several else str(case["uid"]), case) for case in records]
