"""Combine N evaluations of one case (``--eval-repeats N``) into one.

Policies (``repeat_policy`` in the case file; ``mean`` by default) decide
when a gate passes across the repeats:

* ``mean``     - it passed in at least half of them;
* ``majority`` - it passed in more than half (a tie fails);
* ``all``      - it passed in every one.

Metrics are always the mean over the repeats, with ``<name>.repeat_std``
as their spread. A gate whose outcome differs between repeats is *flaky*;
flaky gates are listed on the case and counted in the report. So is a metric
whose spread - across ``--eval-repeats`` (``.repeat_std``) or across a
judge's ``--judge-repeats`` (``.std``) - exceeds its limit from
``--eval-flaky-spread`` (:func:`flaky_metrics`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..graders import Gate, Metric
from ..graders.outcome import CaseEvaluation, GateOutcome

POLICIES = ("mean", "majority", "all")


@dataclass(frozen=True)
class Repeated:
    evaluation: CaseEvaluation
    flaky_gates: tuple[str, ...]
    repeats: int


def _passes(votes: Sequence[bool], policy: str) -> bool:
    if policy == "all":
        return all(votes)
    if policy == "majority":
        return sum(votes) * 2 > len(votes)
    return sum(votes) * 2 >= len(votes)


def combine(evaluations: Sequence[CaseEvaluation], policy: str = "mean") -> Repeated:
    if policy not in POLICIES:
        raise ValueError(f"unknown repeat policy {policy!r}; use one of {', '.join(POLICIES)}")
    first = evaluations[0]
    if len(evaluations) == 1:
        return Repeated(first, (), 1)
    n = len(evaluations)
    gates: list[GateOutcome] = []
    flaky: list[str] = []
    for outcome in first.gates:
        name = outcome.gate.name
        runs = [next((g for g in e.gates if g.gate.name == name), None) for e in evaluations]
        votes = [r is not None and r.gate.passed for r in runs]  # a gate missing from a repeat counts as failed
        if len(set(votes)) > 1:
            flaky.append(name)
        failed_reasons = [f"repeat {i}: {r.gate.reason}" for i, r in enumerate(runs, 1) if r is not None and not r.gate.passed]
        reason = f"passed {sum(votes)}/{n} repeats ({policy})" + (f"; {failed_reasons[0]}" if failed_reasons else "")
        gates.append(GateOutcome(Gate(name, _passes(votes, policy), reason), outcome.gating))
    metrics: list[Metric] = []
    for metric in first.metrics:
        values = [m.value for e in evaluations for m in e.metrics if m.name == metric.name]
        mean = math.fsum(values) / len(values)
        std = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / len(values))
        shown = ", ".join(f"{v:.4g}" for v in values)
        metrics.append(
            Metric(metric.name, mean, f"mean of {len(values)} repeats ({shown}); {metric.reason}", metric.higher_is_better)
        )
        metrics.append(Metric(f"{metric.name}.repeat_std", std, "spread across repeats", higher_is_better=False))
    artifacts = tuple(a for e in evaluations for a in e.artifacts)
    combined = CaseEvaluation(first.case, artifacts, tuple(gates), tuple(metrics), first.skipped)
    return Repeated(combined, tuple(flaky), n)


SPREAD_SUFFIXES = (".repeat_std", ".std")


def flaky_metrics(metrics: Sequence[Metric], limits: Mapping[str, float]) -> dict[str, float]:
    """Metric name -> its spread (a standard deviation), for each metric spread wider than its limit.

    ``limits`` maps a metric name (``score.quality``) or ``*`` (every other one)
    to the largest standard deviation tolerated, in the metric's own units.
    """
    found: dict[str, float] = {}
    for metric in metrics:
        for suffix in SPREAD_SUFFIXES:
            if metric.name.endswith(suffix):
                name = metric.name[: -len(suffix)]
                limit = limits.get(name, limits.get("*"))
                if limit is not None and metric.value > limit:
                    found[name] = max(found.get(name, 0.0), round(metric.value, 6))
                break
    return found
