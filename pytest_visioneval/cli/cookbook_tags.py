"""Failure tags counted across a run: ``visioneval cookbook-tags results.json``.

A rubric grader records ``<grader>.failure_tag.<tag>`` for every tag its
rubric declares: the share of the case's judgements that listed it. This
counts, per tag, the cases where at least one judgement listed it, out of
the cases whose rubric offers that tag - the cookbook's "which failure modes
to work on first". Errored and unjudged cases have no such metrics and are
not counted.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .help_text import description, prog

_MARK = ".failure_tag."


def failure_tag_counts(cases: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, int]]:
    """``{tag: {"cases": listed, "of": offered}}``, most frequent first (then by name)."""
    counts: dict[str, dict[str, int]] = {}
    for case in cases:
        seen: dict[str, bool] = {}
        for metric in case.get("metrics", ()):
            name = str(metric["name"])
            if _MARK in name:
                tag = name.split(_MARK, 1)[1]
                seen[tag] = seen.get(tag, False) or float(metric["value"]) > 0
        for tag, listed in seen.items():
            entry = counts.setdefault(tag, {"cases": 0, "of": 0})
            entry["of"] += 1
            entry["cases"] += int(listed)
    return dict(sorted(counts.items(), key=lambda item: (-item[1]["cases"], item[0])))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog("cookbook-tags"), description=description(__doc__))
    parser.add_argument("results", type=Path, help="the results JSON of a run (--eval-results)")
    args = parser.parse_args(argv)
    try:
        document = json.loads(args.results.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"error: cannot read {args.results}: {exc}", file=sys.stderr)
        return 1
    counts = failure_tag_counts(document.get("cases", ()))
    if not counts:
        print("no failure tags recorded (no rubric judged any case)")
        return 0
    width = max(len(tag) for tag in counts)
    print(f"{'failure tag'.ljust(width)}  cases")
    for tag, entry in counts.items():
        print(f"{tag.ljust(width)}  {entry['cases']}/{entry['of']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
