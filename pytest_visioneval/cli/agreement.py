"""Agreement between the judges (a results JSON) and human labels (a CSV).

    python -m pytest_visioneval agreement results.json labels.csv [--kind NAME=binary|numeric ...]
        [--by suite|FIELD|none] [--confidence 0.95] [--resamples 1000] [--seed 0]
        [--floor STAT=VALUE | NAME:STAT=VALUE ...] [--json]

``labels.csv`` has the columns ``case`` (the case uid, ``suite/id``; in a run
of several models ``suite/id[model]``), ``name`` (a gate or metric name as in
the results, e.g. ``rubric.verdict``, ``checklist.q7``, ``score.goal``),
``label`` (yes/no, pass/fail, true/false, 1/0, or a number) and, optionally,
``rater`` (several people may label the same case). See
:mod:`pytest_visioneval.results.agreement` for what is computed.

The first file may instead be a pairwise document (``visioneval pairwise
--json``): then each pair of runs is one name, ``pairwise A vs B``, labelled
``a``, ``b`` or ``tie`` (which output is better), as the pairwise page's
labels export them; accuracy and Cohen's kappa over the three answers. Exits 1 when
a ``--floor`` is not met, 2 for a label file that cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from ..results.agreement import (
    KINDS,
    Agreement,
    Estimate,
    LabelError,
    Settings,
    below_floor,
    cohen_kappa,
    compute,
    read_labels,
)
from .help_text import description, prog

__all__ = ["cohen_kappa", "compute", "main", "read_labels"]


def _pairs(items: Sequence[str], what: str) -> dict[str, str]:
    out = {}
    for item in items:
        key, sep, value = item.rpartition("=")
        if not sep or not key:
            raise SystemExit(f"{what} expects KEY=VALUE, got {item!r}")
        out[key] = value
    return out


def _estimate(estimate: Estimate | None) -> str:
    if estimate is None or estimate.value is None:
        return "-"
    if estimate.low is None or estimate.high is None:
        return f"{estimate.value:.3f}"
    return f"{estimate.value:.3f} [{estimate.low:.3f}, {estimate.high:.3f}]"


def table(rows: Sequence[Agreement], confidence: float) -> list[str]:
    lines = [f"judge against people, {confidence:.0%} bootstrap intervals over cases; ceiling: each rater against the others"]
    for row in rows:
        raters = f", {row.raters} raters" if row.raters > 1 else ""
        ties = f", {row.ties} tied" if row.ties else ""
        head = f"{row.name} [{row.group}] {row.kind}: n={row.n}, unmatched {row.unmatched}{raters}{ties}"
        lines.append(head)
        lines.append("    " + "; ".join(f"{stat} {_estimate(e)}" for stat, e in row.stats.items()))
        if row.raters > 1:
            ceiling = "; ".join(
                f"{stat} {e.value:.3f} ({e.low:.3f}-{e.high:.3f})" for stat, e in row.ceiling.items() if e.value is not None
            )
            lines.append(f"    raters: Krippendorff's alpha {_estimate(row.alpha)}; human ceiling {ceiling or '-'}")
    return lines


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog("agreement"), description=description(__doc__))
    p.add_argument("results", type=Path, help="results JSON written with --eval-results, or a pairwise JSON (pairwise --json)")
    p.add_argument("labels", type=Path, help="CSV with columns case, name, label (and rater)")
    p.add_argument("--kind", action="append", default=[], metavar="NAME=KIND", help="binary or numeric (NAME * for all)")
    p.add_argument("--by", default="suite", help="group cases by suite (default), a case field, or none")
    p.add_argument("--confidence", type=float, default=0.95, help="interval level (default 0.95)")
    p.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--floor", action="append", default=[], metavar="[NAME:]STAT=VALUE", help="exit 1 below it (e.g. kappa=0.4)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    kinds = _pairs(args.kind, "--kind")
    for name, kind in kinds.items():
        if kind not in KINDS:
            raise SystemExit(f"--kind {name}={kind}: the kind is one of {', '.join(KINDS)}")
    try:
        floors = {key: float(value) for key, value in _pairs(args.floor, "--floor").items()}
    except ValueError:
        raise SystemExit(f"--floor expects numbers, got {args.floor}") from None
    if not 0 < args.confidence < 1 or args.resamples < 1:
        raise SystemExit("--confidence must lie between 0 and 1 and --resamples be at least 1")
    try:
        results = json.loads(args.results.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SystemExit(f"{args.results}: cannot read the results ({exc})") from None
    settings = Settings(args.confidence, args.resamples, args.seed, kinds, "" if args.by == "none" else args.by)
    try:
        rows = compute(results, read_labels(args.labels), settings)
    except LabelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    low = below_floor(rows, floors)
    if args.json:
        print(json.dumps({"agreement": [r.as_dict() for r in rows], "below_floor": low}, indent=2))
    else:
        for line in table(rows, args.confidence):
            print(line)
        for line in low:
            print(f"BELOW FLOOR {line}")
    return 1 if low else 0


if __name__ == "__main__":
    sys.exit(main())
