"""Agreement between the judges (a results JSON) and human labels (a CSV).

    python -m pytest_visioneval agreement results.json labels.csv [--json]

``labels.csv`` has the columns ``case`` (the case uid, ``suite/id``),
``name`` (a gate or metric name as in the results, e.g. ``rubric.verdict``,
``checklist.q7``, ``score.goal``) and ``label`` (the human's value: yes/no,
pass/fail, true/false, 1/0, or a number).

For yes/no labels: accuracy and Cohen's kappa. For numeric labels: Pearson,
Spearman and Kendall correlations (scipy). Labels whose case or name is not
in the results are counted as unmatched, never silently dropped.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from scipy import stats

_YES = {"yes", "pass", "passed", "true", "1", "y"}
_NO = {"no", "fail", "failed", "false", "0", "n"}


@dataclass
class Agreement:
    name: str
    kind: str  # "binary" or "numeric"
    n: int
    unmatched: int
    accuracy: float | None = None
    kappa: float | None = None
    pearson: float | None = None
    spearman: float | None = None
    kendall: float | None = None


def _as_bool(text: str) -> bool | None:
    low = text.strip().lower()
    return True if low in _YES else False if low in _NO else None


def judge_values(results: dict[str, Any]) -> dict[tuple[str, str], float]:
    """(case uid, name) -> the judged value: 1.0/0.0 for a gate, the number for a metric."""
    values: dict[tuple[str, str], float] = {}
    for case in results["cases"]:
        for gate in case.get("gates", ()):
            values[(case["uid"], gate["name"])] = 1.0 if gate["passed"] else 0.0
        for metric in case.get("metrics", ()):
            values[(case["uid"], metric["name"])] = float(metric["value"])
    return values


def cohen_kappa(a: Sequence[bool], b: Sequence[bool]) -> float | None:
    """Cohen's kappa of two raters' yes/no; None when chance agreement is total (kappa undefined)."""
    n = len(a)
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    pa, pb = sum(a) / n, sum(b) / n
    expected = pa * pb + (1 - pa) * (1 - pb)
    if math.isclose(expected, 1.0):
        return None
    return (observed - expected) / (1 - expected)


def _finite(value: float) -> float | None:
    return None if value is None or math.isnan(value) else float(value)


def compute(results: dict[str, Any], labels: list[dict[str, str]]) -> list[Agreement]:
    judged = judge_values(results)
    by_name: dict[str, list[tuple[str, float | None]]] = defaultdict(list)
    for row in labels:
        by_name[row["name"]].append((row["label"], judged.get((row["case"], row["name"]))))
    out = []
    for name, pairs in sorted(by_name.items()):
        matched = [(label, value) for label, value in pairs if value is not None]
        unmatched = len(pairs) - len(matched)
        human_bools = [_as_bool(label) for label, _ in matched]
        if matched and all(h is not None for h in human_bools):
            human = [bool(h) for h in human_bools]
            judge = [value >= 0.5 for _, value in matched]
            accuracy = sum(h == j for h, j in zip(human, judge, strict=True)) / len(human)
            out.append(Agreement(name, "binary", len(human), unmatched, accuracy=accuracy, kappa=cohen_kappa(human, judge)))
            continue
        numbers = [(float(label), value) for label, value in matched]
        human_n, judge_n = [h for h, _ in numbers], [j for _, j in numbers]
        agreement = Agreement(name, "numeric", len(numbers), unmatched)
        if len(numbers) >= 2:
            agreement.pearson = _finite(stats.pearsonr(human_n, judge_n).statistic)
            agreement.spearman = _finite(stats.spearmanr(human_n, judge_n).statistic)
            agreement.kendall = _finite(stats.kendalltau(human_n, judge_n).statistic)
        out.append(agreement)
    return out


def read_labels(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        missing = {"case", "name", "label"} - set(reader.fieldnames or ())
        if missing:
            raise SystemExit(f"{path}: missing column(s) {', '.join(sorted(missing))} (need case, name, label)")
        return list(reader)


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pytest_visioneval agreement", description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, help="results JSON written with --eval-results")
    parser.add_argument("labels", type=Path, help="CSV with columns case, name, label")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    try:
        results = json.loads(args.results.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise SystemExit(f"{args.results}: not JSON ({exc})") from None
    rows = compute(results, read_labels(args.labels))
    if args.json:
        print(json.dumps([asdict(r) for r in rows], indent=2))
        return 0
    print(
        f"{'name':32} {'kind':8} {'n':>4} {'unmatched':>9} {'accuracy':>8} {'kappa':>6} "
        f"{'pearson':>7} {'spearman':>8} {'kendall':>7}"
    )
    for r in rows:
        print(
            f"{r.name:32} {r.kind:8} {r.n:>4} {r.unmatched:>9} {_fmt(r.accuracy):>8} {_fmt(r.kappa):>6} "
            f"{_fmt(r.pearson):>7} {_fmt(r.spearman):>8} {_fmt(r.kendall):>7}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
