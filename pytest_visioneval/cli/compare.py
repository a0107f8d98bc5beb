"""Compare models case by case: ``visioneval compare A.json B.json [C.json ...]``.

Differences of benchmark scores and metrics (B - A) with paired bootstrap
intervals, pass rates with McNemar's exact test, the cases that flipped and
the largest changes per metric; in the terminal, and with ``--html`` /
``--json`` as a page and as data. More than two runs: each against the first,
or every pair with ``--pairs``. One results file holding several models
compares its models. Exits 0 unless ``--fail-on-regression`` finds a
significant regression (1); 2 for input it cannot compare. docs/compare.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..artifacts import write_atomic
from ..report.compare_html import write_compare_html
from ..report.compare_text import compare_lines
from ..report.markdown import compare_summary
from ..results.compare import DEFAULT_ALPHA, DEFAULT_MIN_PAIRS, DEFAULT_TOP, Settings, compare_runs, sides_of
from ..results.statistics import DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, DEFAULT_SEED
from .diff import load
from .help_text import description, prog
from .markdown_args import add_markdown_arguments, write_markdown


def open_fraction(text: str) -> float:
    value = float(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text}")
    return value


def whole_number(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {text}")
    return value


def show(
    document: Mapping[str, Any],
    lines: Iterable[str],
    args: argparse.Namespace,
    write_html: Callable[[Mapping[str, Any], Path], None],
) -> None:
    """Print the terminal view; write the document to ``--json`` and its page to ``--html`` when asked."""
    for line in lines:
        print(line)
    if args.json is not None:
        write_atomic(args.json, (json.dumps(document, indent=2) + "\n").encode("utf-8"))
    if args.html is not None:
        write_html(document, args.html)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog("compare"), description=description(__doc__))
    p.add_argument("results", type=Path, nargs="+", help="results JSON files (--eval-results); the first is the baseline")
    p.add_argument("--pairs", action="store_true", help="compare every pair of runs, not each run against the first")
    p.add_argument("--confidence", type=open_fraction, default=DEFAULT_CONFIDENCE, help="interval level (default 0.95)")
    p.add_argument("--resamples", type=whole_number, default=DEFAULT_RESAMPLES, help="bootstrap resamples (default 10000)")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help="bootstrap seed (default 0): same inputs, same intervals")
    p.add_argument("--top", type=whole_number, default=DEFAULT_TOP, help="largest changes listed per metric (default 5)")
    p.add_argument("--alpha", type=open_fraction, default=DEFAULT_ALPHA, help="McNemar significance level (default 0.05)")
    p.add_argument(
        "--min-pairs", type=whole_number, default=DEFAULT_MIN_PAIRS, help="paired cases a score needs for a verdict (default 10)"
    )
    p.add_argument("--fail-on-regression", action="store_true", help="exit 1 when a score or a pass rate got significantly worse")
    p.add_argument("--html", type=Path, metavar="FILE", help="also write the comparison as an HTML page")
    p.add_argument("--json", type=Path, metavar="FILE", help="also write the comparison as JSON")
    add_markdown_arguments(p, "the comparison")
    p.add_argument("--flips", type=whole_number, default=20, help="flips listed in the terminal per pair (default 20)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    if args.resamples < 1:
        p.error("--resamples must be at least 1")
    try:
        documents = [(str(path), load(path)) for path in args.results]
    except SystemExit as exc:  # an unreadable file is bad input (2), never mistaken for a regression (1)
        print(f"compare: {exc}", file=sys.stderr)
        return 2
    settings = Settings(
        confidence=args.confidence,
        resamples=args.resamples,
        seed=args.seed,
        top=args.top,
        alpha=args.alpha,
        min_pairs=args.min_pairs,
    )
    try:
        comparison = compare_runs(sides_of(documents), settings, all_pairs=args.pairs)
    except ValueError as exc:
        print(f"compare: {exc}", file=sys.stderr)
        return 2
    show(comparison, compare_lines(comparison, flips_shown=args.flips), args, write_compare_html)
    write_markdown(args, lambda limit: compare_summary(comparison, limit=limit))
    print()
    found = comparison["regressions"]
    if not found:
        print("no significant regression")
        return 0
    print("significant regressions:")
    for reason in found:
        print(f"  {reason}")
    more = f" (and {len(found) - 1} more above)" if len(found) > 1 else ""
    print(f"REGRESSION: {found[0]}{more}")
    return 1 if args.fail_on_regression else 0


if __name__ == "__main__":
    sys.exit(main())
