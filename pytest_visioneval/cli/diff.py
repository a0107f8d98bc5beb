"""Compare two results files: ``visioneval diff BEFORE.json AFTER.json``.

Prints a before/after table per suite (metric means, gate pass rates, case
pass rate) and exits 1 when anything regressed beyond the tolerance. A file
that holds several models is compared model by model, each with the same
model in the other file; models are never averaged together. Exits 2 when no
model is in both files.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..report.markdown import diff_summary
from ..report.terminal import delta_lines
from ..results.baseline import DEFAULT_BASELINE_TOLERANCE, compare, describe, parse_tolerances, regressions
from ..results.per_model import baseline_for
from .help_text import description, prog
from .markdown_args import add_markdown_arguments, write_markdown


def load(path: Path) -> dict[str, Any]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SystemExit(f"{path}: cannot read a results JSON ({exc})") from None
    if document.get("schema") != "pytest-visioneval/results":
        raise SystemExit(f"{path}: not a pytest-visioneval results file")
    return document


def model_parts(document: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """Each model of a results document -> its part (aggregates and cases), as a one-model run would have them."""
    sections = document.get("models")
    if isinstance(sections, Mapping) and sections:
        return {label: baseline_for(document, label) or {} for label in sections}
    return {str(document.get("run", {}).get("model") or ""): document}


def model_pairs(
    before: Mapping[str, Any], after: Mapping[str, Any], before_name: str, after_name: str
) -> tuple[list[tuple[str | None, Mapping[str, Any], Mapping[str, Any]]], list[str]]:
    """What to compare: (model or None, before part, after part) each, and notes on models left out.

    Two one-model files are compared whole, whatever their models. Otherwise each
    model is compared with the same model of the other file; ``ValueError`` when none is in both.
    """
    old, new = model_parts(before), model_parts(after)
    if len(old) == 1 and len(new) == 1:
        return [(None, before, after)], []
    shared = [label for label in new if label in old]
    if not shared:
        raise ValueError(
            f"no model is in both files ({before_name}: {', '.join(old) or '?'}; {after_name}: {', '.join(new) or '?'}); "
            "diff compares each model with the same model of the other file, never an average of models. "
            "To compare different models, use 'visioneval compare'"
        )
    notes = [f"compared model by model: {', '.join(shared)}"]
    notes += [f"not compared: model {label} is only in {before_name}" for label in old if label not in new]
    notes += [f"not compared: model {label} is only in {after_name}" for label in new if label not in old]
    return [(label, old[label], new[label]) for label in shared], notes


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog("diff"), description=description(__doc__))
    parser.add_argument("before", type=Path, help="the results JSON before (--eval-results)")
    parser.add_argument("after", type=Path, help="the results JSON after")
    parser.add_argument(
        "--tolerance",
        action="append",
        default=[],
        metavar="VALUE|NAME=VALUE",
        help=f"allowed worsening: a share of the value's scale (default {DEFAULT_BASELINE_TOLERANCE}) or a percentage "
        "of the value before (5%%); NAME=VALUE for one metric or gate",
    )
    parser.add_argument("--all", action="store_true", help="list unchanged values too")
    add_markdown_arguments(parser, "the verdict and the table")
    args = parser.parse_args(argv)
    try:
        default, per_name = parse_tolerances(args.tolerance)
    except ConfigError as exc:
        parser.error(str(exc))
    before, after = load(args.before), load(args.after)
    try:
        pairs, notes = model_pairs(before, after, args.before.name, args.after.name)
    except ValueError as exc:
        print(f"diff: {exc}", file=sys.stderr)
        return 2
    for note in notes:
        print(note)
    deltas = []
    for label, old, new in pairs:
        found = compare(old, new, default, per_name)
        deltas += found if label is None else [replace(delta, model=label) for delta in found]
    for line in delta_lines(deltas, only_changes=not args.all):
        print(line)
    write_markdown(args, lambda limit: diff_summary(deltas, args.before.name, args.after.name, notes, limit=limit))
    bad = regressions(deltas)
    print()
    if bad:
        print(f"{len(bad)} regression(s):")
        for delta in bad:
            print(f"  {describe(delta)}")
        return 1
    print("no regressions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
