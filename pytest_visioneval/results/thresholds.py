"""Thresholds -> the run's verdict (decided on the controller only).

A threshold is checked against a mean (or a pass rate) and the interval
around it. It is ``missed`` when the mean misses it; ``inconclusive`` when the
mean meets it but the bound lies inside the interval, so that the cases at
hand cannot tell whether it is really met; ``met`` otherwise. Two policies
say whether an inconclusive threshold passes: ``on`` (``mean``: the mean
decides; ``bound``: the interval must clear the bound) and ``inconclusive``
(``pass`` or ``fail``, under ``on="mean"``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..cases.spec import Threshold
from ..errors import ConfigError
from .statistics import DEFAULT_CONFIDENCE

_THRESHOLD = re.compile(r"^(?P<suite>\*|[A-Za-z0-9][A-Za-z0-9_-]*)\.(?P<metric>[A-Za-z0-9_][A-Za-z0-9_.-]*)=(?P<value>.+)$")

THRESHOLD_ON = ("mean", "bound")  # --eval-threshold-on
INCONCLUSIVE = ("pass", "fail")  # --eval-inconclusive
STATUSES = ("met", "missed", "inconclusive")


@dataclass(frozen=True)
class ThresholdResult:
    threshold: Threshold
    observed: float | None
    passed: bool
    message: str
    model: str | None = None  # in a run of several models: the model this check is of
    status: str = ""  # met, missed or inconclusive; left empty: met if passed, else missed

    def __post_init__(self) -> None:
        if not self.status:
            object.__setattr__(self, "status", "met" if self.passed else "missed")
        consistent = self.status == "inconclusive" or (self.status == "met") == self.passed
        if self.status not in STATUSES or not consistent:
            raise ValueError(f"a threshold {self.status!r} cannot have passed={self.passed}")

    def for_model(self, label: str) -> ThresholdResult:
        return replace(self, model=label, message=f"[{label}] {self.message}")

    def as_dict(self) -> dict[str, Any]:
        t = self.threshold
        model = {} if self.model is None else {"model": self.model}
        return {
            **model,
            "suite": t.suite,
            "metric": t.metric,
            "min": t.min,
            "max": t.max,
            "source": t.source,
            "observed": self.observed,
            "passed": self.passed,
            "status": self.status,
            "message": self.message,
        }


def expand(thresholds: Iterable[Threshold], suites: Iterable[str]) -> list[Threshold]:
    """Replace each ``*`` threshold by one per suite that ran."""
    names = sorted(suites)
    out: list[Threshold] = []
    for t in thresholds:
        if t.suite == "*" and names:
            out.extend(Threshold(s, t.metric, t.min, t.max, t.source) for s in names)
        else:
            out.append(t)
    return out


def check(
    threshold: Threshold,
    suite_summary: Mapping[str, Any] | None,
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    on: str = "mean",
    inconclusive: str = "pass",
) -> ThresholdResult:
    """One threshold against one suite's aggregate; ``confidence`` is the level of its intervals (for the message)."""
    label = f"{threshold.suite}.{threshold.metric}"
    if suite_summary is None:
        return ThresholdResult(threshold, None, False, f"{label}: suite {threshold.suite!r} produced no results")
    if threshold.metric in suite_summary["metrics"]:
        stats = suite_summary["metrics"][threshold.metric]
        observed = stats["mean"]
        what = "mean"
    elif threshold.metric in suite_summary["gates"]:
        stats = suite_summary["gates"][threshold.metric]
        observed = stats["pass_rate"]
        what = "pass rate"
    else:
        skipped = _skipped_maker(threshold.metric, suite_summary.get("skipped_graders") or {})
        if skipped:
            # Missed, not "not checked": a run that forgot --judge must not go green (docs/case-format.md).
            return ThresholdResult(threshold, None, False, f"{label}: not measured: {skipped}")
        known = sorted(suite_summary["metrics"]) + sorted(suite_summary["gates"])
        errored = f"; {suite_summary['errors']} case(s) errored" if suite_summary["errors"] else ""
        return ThresholdResult(
            threshold,
            None,
            False,
            f"{label}: no case recorded this metric or gate (known: {', '.join(known) or 'none'}){errored}",
        )
    errors = suite_summary["errors"]
    if errors:
        return ThresholdResult(
            threshold,
            observed,
            False,
            f"{label}: {errors} case(s) errored, so the {what} ({observed:.6g}) over the others cannot confirm it",
        )
    if threshold.min is not None and observed < threshold.min:
        return ThresholdResult(
            threshold,
            observed,
            False,
            f"{label}: {what} {observed:.6g} < {threshold.min:g} (short by {threshold.min - observed:.3g})",
        )
    if threshold.max is not None and observed > threshold.max:
        return ThresholdResult(
            threshold,
            observed,
            False,
            f"{label}: {what} {observed:.6g} > {threshold.max:g} (over by {observed - threshold.max:.3g})",
        )
    bound = " and ".join(
        b
        for b in (
            f">= {threshold.min:g}" if threshold.min is not None else "",
            f"<= {threshold.max:g}" if threshold.max is not None else "",
        )
        if b
    )
    met = f"{label}: {what} {observed:.6g} {bound}"
    low, high = stats.get("ci_low"), stats.get("ci_high")
    inside = _bounds_inside(threshold, low, high)
    if not inside:
        return ThresholdResult(threshold, observed, True, met)
    passed = on == "mean" and inconclusive == "pass"
    policy = "--eval-threshold-on=bound" if on == "bound" else "--eval-inconclusive=fail"
    counted = "" if passed else f", counted as missed: {policy}"
    message = f"{met} but its {confidence * 100:g}% interval [{low:.3g}, {high:.3g}] reaches {inside} (inconclusive{counted})"
    return ThresholdResult(threshold, observed, passed, message, status="inconclusive")


def _skipped_maker(metric: str, skipped: Mapping[str, int]) -> str:
    """Why the grader that makes ``metric`` never ran ("" when no skipped grader makes it).

    ``skipped`` maps "grader: reason" to a number of cases; a grader named ``checklist``
    makes the gate ``checklist`` and the metrics ``checklist.*``.
    """
    for what, count in skipped.items():
        grader, _, reason = what.partition(": ")
        if metric == grader or metric.startswith(grader + "."):
            # The reason names the fix (a skipped judge grader's says "need --judge=openai:MODEL").
            return f"its grader {grader!r} was skipped in {count} case(s): {reason}"
    return ""


def _bounds_inside(threshold: Threshold, low: float | None, high: float | None) -> str:
    """Where the interval (low, high) reaches past a bound lying strictly inside it ("below 0.9"); "" when none does.

    A bound at an end of the interval is not inside it: a pass rate of 1 required
    and every case passed is met, though no number of cases could prove a rate of 1.
    """
    if low is None or high is None:
        return ""
    reaches = [
        f"below {threshold.min:g}" if threshold.min is not None and low < threshold.min < high else "",
        f"above {threshold.max:g}" if threshold.max is not None and low < threshold.max < high else "",
    ]
    return " and ".join(r for r in reaches if r)


def evaluate_thresholds(
    file_thresholds: Iterable[Threshold],
    cli_thresholds: Iterable[Threshold],
    aggregates: Mapping[str, Any],
    *,
    on: str = "mean",
    inconclusive: str = "pass",
) -> list[ThresholdResult]:
    """Check every threshold.

    Case-file thresholds apply to the suites that ran (deselecting a suite
    with ``-k`` does not fail its thresholds); a threshold given on the
    command line or in the ini must find its suite. ``on`` and ``inconclusive``
    say whether an inconclusive threshold passes (module docstring).
    """
    if on not in THRESHOLD_ON or inconclusive not in INCONCLUSIVE:
        raise ValueError(f"unknown threshold policy: on={on!r}, inconclusive={inconclusive!r}")
    suites = aggregates["suites"]
    policy = {"confidence": aggregates.get("confidence", DEFAULT_CONFIDENCE), "on": on, "inconclusive": inconclusive}
    results = [check(t, suites[t.suite], **policy) for t in file_thresholds if t.suite in suites]
    results += [check(t, suites.get(t.suite), **policy) for t in expand(cli_thresholds, suites)]
    return results


def parse_threshold(text: str, source: str = "--eval-fail-under") -> Threshold:
    match = _THRESHOLD.match(text.strip())
    if not match:
        raise ConfigError(f"{source} expects SUITE.METRIC=VALUE (e.g. ui.similarity.score=0.9), got {text!r}")
    try:
        value = float(match["value"])
    except ValueError:
        raise ConfigError(f"{source}: {match['value']!r} is not a number (in {text!r})") from None
    if not math.isfinite(value):
        raise ConfigError(f"{source}: the bound must be a finite number (in {text!r})")
    return Threshold(match["suite"], match["metric"], min=value, source=source)


def file_thresholds(records: list[dict[str, Any]]) -> list[Threshold]:
    seen: dict[tuple[Any, ...], Threshold] = {}
    for record in records:
        for t in record.get("thresholds", ()):
            key = (t["suite"], t["metric"], t["min"], t["max"], t["source"])
            seen.setdefault(key, Threshold(t["suite"], t["metric"], t["min"], t["max"], t["source"]))
    return [seen[k] for k in sorted(seen, key=str)]
