"""Thresholds -> the run's verdict (decided on the controller only)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..cases.spec import Threshold
from ..errors import ConfigError

_THRESHOLD = re.compile(r"^(?P<suite>\*|[A-Za-z0-9][A-Za-z0-9_-]*)\.(?P<metric>[A-Za-z0-9_][A-Za-z0-9_.-]*)=(?P<value>.+)$")


@dataclass(frozen=True)
class ThresholdResult:
    threshold: Threshold
    observed: float | None
    passed: bool
    message: str
    model: str | None = None  # in a run of several models: the model this check is of

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


def check(threshold: Threshold, suite_summary: Mapping[str, Any] | None) -> ThresholdResult:
    label = f"{threshold.suite}.{threshold.metric}"
    if suite_summary is None:
        return ThresholdResult(threshold, None, False, f"{label}: suite {threshold.suite!r} produced no results")
    if threshold.metric in suite_summary["metrics"]:
        observed = suite_summary["metrics"][threshold.metric]["mean"]
        what = "mean"
    elif threshold.metric in suite_summary["gates"]:
        observed = suite_summary["gates"][threshold.metric]["pass_rate"]
        what = "pass rate"
    else:
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
    return ThresholdResult(threshold, observed, True, f"{label}: {what} {observed:.6g} {bound}")


def evaluate_thresholds(
    file_thresholds: Iterable[Threshold], cli_thresholds: Iterable[Threshold], aggregates: Mapping[str, Any]
) -> list[ThresholdResult]:
    """Check every threshold.

    Case-file thresholds apply to the suites that ran (deselecting a suite
    with ``-k`` does not fail its thresholds); a threshold given on the
    command line or in the ini must find its suite.
    """
    suites = aggregates["suites"]
    results = [check(t, suites[t.suite]) for t in file_thresholds if t.suite in suites]
    results += [check(t, suites.get(t.suite)) for t in expand(cli_thresholds, suites)]
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
