"""Compare two runs' results: per suite, every metric mean and gate pass rate.

A change is a *regression* when it goes the wrong way (a metric's
``higher_is_better`` says which way is right; gate pass rates and case pass
rates are better higher) by more than the tolerance. Names present on one
side only are listed as ``new`` or ``gone``, never silently ignored.

A tolerance is either a share of the value's scale (``0.01``: one hundredth
of 0-1 for most metrics, one point on a protocol score of 0-100, 1.0 deltaE00
on ``mean_delta_e``, a tenth of a point on a 0-10 judge score; the scale
comes from the protocol's :class:`~pytest_visioneval.protocols.base.ScoreSpec`,
else from :mod:`.metric_scales`) or relative to the value before (``5%``).

When both runs hold case records, a change is also tested for noise: the
cases both runs scored are paired, and a paired bootstrap interval of the
difference is computed (:func:`~.statistics.paired_bootstrap`). A change past
the tolerance whose interval holds 0 strictly inside is ``noise``, not a
regression (an interval that ends at 0 is a change one way only): an
unchanged model under a noisy judge moves its means by chance, a real drop
moves them together.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..errors import ConfigError
from .case_keys import case_keys
from .metric_scales import declared_scale
from .statistics import DEFAULT_CONFIDENCE, paired_bootstrap

DEFAULT_BASELINE_TOLERANCE = 0.01


@dataclass(frozen=True)
class Tolerance:
    value: float
    relative: bool = False  # True: a share of the value before ("5%"); False: a share of the scale

    def absolute(self, before: float | None, scale: float) -> float:
        if self.relative:
            return self.value * abs(before or 0.0)
        return self.value * scale

    def __str__(self) -> str:
        return f"{self.value * 100:g}%" if self.relative else f"{self.value:g}"


def scale_of(name: str) -> float:
    """The width of a metric's scale: a protocol score's declared range (``bizgeneval.all``: 100), a metric's declared
    scale (:mod:`.metric_scales`: ``mean_delta_e`` 100, a 0-10 judge score 10), else 1."""
    from ..protocols.registry import get_protocol  # on first use: baseline checks stay light to import

    protocol_name, _, score = name.partition(".")
    protocol = get_protocol(protocol_name) if score else None
    for spec in getattr(protocol, "scores", ()):
        if spec.name == score:
            low, high = spec.scale
            return float(high - low)
    return declared_scale(name) or 1.0


@dataclass(frozen=True)
class Delta:
    suite: str
    name: str  # a metric, a gate, or "pass_rate" (the suite's case pass rate)
    before: float | None
    after: float | None
    higher_is_better: bool
    tolerance: float
    model: str | None = None  # in a run of several models: whose value this is
    interval: tuple[float, float] | None = None  # paired bootstrap interval of after - before, over shared cases
    paired: int = 0  # cases both runs scored (the interval's n)

    @property
    def change(self) -> float | None:
        return None if self.before is None or self.after is None else self.after - self.before

    @property
    def verdict(self) -> str:
        if self.before is None:
            return "new"
        if self.after is None:
            return "gone"
        change = self.after - self.before
        worse = -change if self.higher_is_better else change
        # Past the tolerance, but the paired cases cannot tell it from chance: 0 lies strictly inside the
        # interval. An interval ending at 0 is a change one way only (the other cases did not move at all).
        if abs(worse) > self.tolerance and self.interval is not None and self.interval[0] < 0 < self.interval[1]:
            return "noise"
        if worse > self.tolerance:
            return "REGRESSED"
        if worse < -self.tolerance:
            return "improved"
        return "same"

    @property
    def regressed(self) -> bool:
        return self.verdict == "REGRESSED"


def _directions(document: Mapping[str, Any]) -> dict[str, bool]:
    directions: dict[str, bool] = {}
    for case in document.get("cases", ()):
        for metric in case.get("metrics", ()):
            directions.setdefault(metric["name"], bool(metric.get("higher_is_better", True)))
    return directions


def _values(summary: Mapping[str, Any]) -> dict[str, float]:
    values = {name: float(m["mean"]) for name, m in summary.get("metrics", {}).items()}
    values.update({name: float(g["pass_rate"]) for name, g in summary.get("gates", {}).items()})
    if summary.get("pass_rate") is not None:
        values["pass_rate"] = float(summary["pass_rate"])
    return values


def compare(
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    tolerance: Tolerance | float,
    per_name: Mapping[str, Tolerance | float] | None = None,
    *,
    only_suites_in_after: bool = False,
    confidence: float | None = DEFAULT_CONFIDENCE,
) -> list[Delta]:
    """Every (suite, name) of either run, compared; suites missing on one side included.

    With ``only_suites_in_after``, suites the new run did not run (deselected
    with ``-k``, another shard) are left out instead of listed as gone. With a
    ``confidence``, a change is tested against noise over the paired cases
    (module docstring); ``None`` compares the means alone.
    """
    per_name = per_name or {}
    directions = {**_directions(before), **_directions(after)}
    old_suites, new_suites = before["aggregates"]["suites"], after["aggregates"]["suites"]
    old_cases, new_cases = _case_values(before), _case_values(after)
    deltas = []
    suites = set(new_suites) if only_suites_in_after else set(old_suites) | set(new_suites)
    for suite in sorted(suites):
        old = _values(old_suites.get(suite, {}))
        new = _values(new_suites.get(suite, {}))
        for name in sorted(set(old) | set(new)):
            allowed = per_name.get(name, tolerance)
            if not isinstance(allowed, Tolerance):
                allowed = Tolerance(float(allowed))
            absolute = allowed.absolute(old.get(name), scale_of(name))
            delta = Delta(suite, name, old.get(name), new.get(name), directions.get(name, True), absolute)
            if confidence is not None and delta.change is not None and abs(delta.change) > absolute:
                delta = _with_interval(delta, old_cases.get((suite, name), {}), new_cases.get((suite, name), {}), confidence)
            deltas.append(delta)
    return deltas


def _case_values(document: Mapping[str, Any]) -> dict[tuple[str, str], dict[str, float]]:
    """(suite, name) -> case key -> the case's value: each metric, each gate (1/0), and pass_rate (1/0 per decided case)."""
    found: dict[tuple[str, str], dict[str, float]] = {}
    for key, case in case_keys(document.get("cases", ())):
        suite = str(case.get("suite", ""))
        for metric in case.get("metrics", ()):
            found.setdefault((suite, metric["name"]), {})[key] = float(metric["value"])
        for gate in case.get("gates", ()):
            found.setdefault((suite, gate["name"]), {})[key] = 1.0 if gate["passed"] else 0.0
        status = case.get("status")
        if status in ("passed", "xpassed", "failed", "error"):
            found.setdefault((suite, "pass_rate"), {})[key] = 1.0 if status in ("passed", "xpassed") else 0.0
    return found


def _with_interval(delta: Delta, old: Mapping[str, float], new: Mapping[str, float], confidence: float) -> Delta:
    keys = sorted(set(old) & set(new))
    if len(keys) < 2:
        return delta  # nothing to pair: the means decide
    interval = paired_bootstrap([old[k] for k in keys], [new[k] for k in keys], confidence=confidence, resamples=2000)
    if interval is None:
        return delta
    return replace(delta, interval=(interval.low, interval.high), paired=interval.n)


def format_value(value: float | None) -> str:
    return "-" if value is None else f"{value:.4g}"


def regressions(deltas: list[Delta]) -> list[Delta]:
    return [d for d in deltas if d.regressed]


def describe(delta: Delta) -> str:
    direction = "higher" if delta.higher_is_better else "lower"
    interval = ""
    if delta.interval is not None:
        interval = f", paired interval [{delta.interval[0]:+.4g}, {delta.interval[1]:+.4g}] over {delta.paired} cases"
    return (
        ("" if delta.model is None else f"[{delta.model}] ")
        + f"{delta.suite}.{delta.name}: {format_value(delta.before)} -> {format_value(delta.after)} "
        f"({delta.change:+.4g}; {direction} is better, tolerance {delta.tolerance:g}{interval})"
    )


def parse_tolerances(items: list[str]) -> tuple[Tolerance, dict[str, Tolerance]]:
    """``["0.02", "similarity.score=5%"]`` -> the default and the per-name tolerances."""
    default, per_name = Tolerance(DEFAULT_BASELINE_TOLERANCE), {}
    for item in items:
        name, sep, raw = item.rpartition("=")
        relative = raw.strip().endswith("%")
        try:
            value = float(raw.strip().removesuffix("%")) / (100 if relative else 1)
        except ValueError:
            raise ConfigError(f"--eval-baseline-tolerance expects a number, a percentage or NAME=either, got {item!r}") from None
        if value < 0 or value != value:
            raise ConfigError(f"--eval-baseline-tolerance must be a non-negative number, got {item!r}")
        if sep:
            per_name[name] = Tolerance(value, relative)
        else:
            default = Tolerance(value, relative)
    return default, per_name
