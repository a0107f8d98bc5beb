"""Benchmark scores per protocol, overall and per group, on the controller.

A case that errored is listed by uid. Under ``compat: improved`` it scores 0
on each of its protocol's scores, so every case counts; under ``compat:
official`` it is left out of the means, as the published harnesses do. A
protocol may also leave some scored cases out of the official means
(``excluded_from_mean``, listed as ``excluded``) and compute its published
numbers its own way (``headline_scores``, e.g. a mean of group means); both
hooks are optional (:class:`~pytest_visioneval.protocols.base.OfficialAggregation`).

A case whose scores could not be formed because a grader was skipped (no
``--judge``) is listed as unscored and left out of the means - the report says
how many. Skipped and xfailed cases are left out.

A case judged with soft checklists (a ``<grader>.soft_score`` metric: the
answers read from token probabilities, ``checklist`` with ``soft: true``) is
listed under ``soft``: its benchmark scores still come from the hard yes/no
answers, but not asked the way the published harness asks, so
:func:`describe` labels the numbers as not the official scoring.

Each mean may carry an interval (``ci_low``, ``ci_high``) over its cases: the
results layer hands in the function that computes it (a bootstrap of the
mean), since this layer may not import it.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .base import compat_mode, overall_means
from .registry import get_protocol

_EXCLUDED = ("skipped", "xfailed")
# The metric a soft checklist records (``checklist`` with ``soft: true``), after its grader's name.
SOFT_METRIC_SUFFIX = ".soft_score"
# The values of one mean -> its (low, high) interval.
Interval = Callable[[Sequence[float]], tuple[float, float]]


def protocol_scores(records: Iterable[Mapping[str, Any]], interval: Interval | None = None) -> dict[str, Any]:
    """``{protocol: {"compat", "scores", "headline", "groups", "cases", "errored", ...}}`` for registered protocols.

    With ``interval``, each score's and group's ``{mean, n}`` also gets ``ci_low`` and ``ci_high``.
    """
    by_protocol: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for record in sorted(records, key=lambda r: (r["uid"], r.get("nodeid", ""))):
        if record.get("status") in _EXCLUDED:
            continue
        by_protocol[record.get("protocol", "")].append(record)
    out: dict[str, Any] = {}
    for name in sorted(by_protocol):
        protocol = get_protocol(name)
        if protocol is None:
            continue
        summary = _summarize(name, [s.name for s in protocol.scores], protocol.group_by, by_protocol[name], protocol, interval)
        headline = getattr(protocol, "headline_scores", None)
        summary["headline"] = headline(summary, summary["compat"]) if headline is not None else overall_means(summary)
        out[name] = summary
    return out


def _case_values(protocol: str, score_names: list[str], record: Mapping[str, Any]) -> dict[str, float] | None:
    if record.get("status") == "error":
        return {name: 0.0 for name in score_names}
    metrics = {m["name"]: float(m["value"]) for m in record.get("metrics", ())}
    values = {name: metrics[f"{protocol}.{name}"] for name in score_names if f"{protocol}.{name}" in metrics}
    return values or None


def _summarize(
    protocol: str,
    score_names: list[str],
    group_by: tuple[str, ...],
    records: list[Mapping[str, Any]],
    hooks: object = None,
    interval: Interval | None = None,
) -> dict[str, Any]:
    overall: dict[str, list[float]] = defaultdict(list)
    groups: dict[str, dict[str, dict[str, list[float]]]] = {field: defaultdict(lambda: defaultdict(list)) for field in group_by}
    errored: list[str] = []
    unscored: list[str] = []
    excluded: list[str] = []
    modes: dict[str, int] = defaultdict(int)
    soft: list[str] = []
    counted = 0
    excluded_from_mean = getattr(hooks, "excluded_from_mean", None)
    for record in records:
        fields = record.get("fields") or {}
        compat = compat_mode(fields)
        modes[compat] += 1
        if any(str(m.get("name", "")).endswith(SOFT_METRIC_SUFFIX) for m in record.get("metrics", ())):
            soft.append(record["uid"])
        values = _case_values(protocol, score_names, record)
        if record.get("status") == "error":
            errored.append(record["uid"])
            if compat == "official":
                continue  # the published harnesses drop a case that produced nothing
        if values is None:
            unscored.append(record["uid"])
            continue
        if record.get("status") != "error" and excluded_from_mean is not None and excluded_from_mean(values, compat):
            excluded.append(record["uid"])
            continue
        counted += 1
        for name, value in values.items():
            overall[name].append(value)
            for field in group_by:
                if field in fields:
                    groups[field][str(fields[field])][name].append(value)
    return {
        "compat": next(iter(modes)) if len(modes) == 1 else "mixed",
        "compat_cases": dict(sorted(modes.items())),
        "cases": len(records),
        "scored": counted,  # cases in the means
        "errored": errored,  # counted as 0 under compat improved, left out of the means under official
        "unscored": unscored,  # left out of the means (a grader was skipped)
        "excluded": excluded,  # scored, but left out of the official means by the protocol's rule
        "soft": soft,  # judged with soft checklists (answers from token probabilities): not the official scoring
        "scores": {name: _stats(overall[name], interval) for name in score_names if overall.get(name)},
        "groups": {
            field: {
                value: {name: _stats(vals, interval) for name, vals in sorted(per.items())}
                for value, per in sorted(values.items())
            }
            for field, values in groups.items()
        },
    }


def _stats(values: list[float], interval: Interval | None) -> dict[str, Any]:
    ordered = sorted(values)
    stats: dict[str, Any] = {"mean": math.fsum(ordered) / len(ordered), "n": len(ordered)}
    if interval is not None:
        stats["ci_low"], stats["ci_high"] = interval(ordered)
    return stats


def describe(result: Mapping[str, Any]) -> str:
    """One line saying how a protocol's numbers were formed: mode, cases counted, errored, excluded, unscored."""
    compat = result.get("compat", "official")
    errored = result.get("errored", [])
    note = f"compat {compat}; {result['scored']}/{result['cases']} cases in the means"
    if errored:
        rule = "scored 0" if compat == "improved" else "left out" if compat == "official" else "0 or left out by mode"
        note += f"; {len(errored)} errored ({rule}): " + ", ".join(errored[:5]) + (" ..." if len(errored) > 5 else "")
    if result.get("excluded"):
        note += f"; {len(result['excluded'])} left out by the official rule"
    if result.get("unscored"):
        note += f"; {len(result['unscored'])} not scored (a grader was skipped, e.g. no --judge)"
    if result.get("soft"):
        note += f"; {len(result['soft'])} judged with soft checklists (token probabilities): NOT the official scoring"
    headline = result.get("headline") or {}
    if headline and headline != overall_means(result):
        note += "; published figure: " + ", ".join(f"{n} {v:.4g}" for n, v in headline.items())
    return note
