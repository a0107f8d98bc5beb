"""Reduce case records to aggregates per suite, protocol and tag.

Deterministic by construction: records are sorted by uid and sums use
``math.fsum``, so ``-n 0`` and ``-n 2`` (which see cases in different orders)
give identical numbers. Every mean carries a bootstrap interval and every
pass rate a Wilson interval, at one confidence level recorded with them;
the bootstrap sorts its values and starts from a fixed seed, so the intervals
are as reproducible as the means.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import Any

from ..protocols.scoring import protocol_scores
from .statistics import DEFAULT_CONFIDENCE, bootstrap_mean, wilson_interval

STATUSES = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")


def summarize(records: Sequence[Mapping[str, Any]], confidence: float = DEFAULT_CONFIDENCE) -> dict[str, Any]:
    """Counts, gate pass rates and metric statistics of one group of cases, with intervals at ``confidence``."""
    counts = {status: 0 for status in STATUSES}
    gates: dict[str, list[bool]] = defaultdict(list)
    skipped: dict[str, int] = defaultdict(int)
    metrics: dict[str, list[float]] = defaultdict(list)
    for record in records:
        counts[record["status"]] += 1
        for gate in record.get("gates", ()):
            gates[gate["name"]].append(bool(gate["passed"]))
        for metric in record.get("metrics", ()):
            metrics[metric["name"]].append(float(metric["value"]))
        for entry in record.get("skipped_graders", ()):
            skipped[f"{entry['name']}: {entry['reason']}"] += 1
    # A gate that flipped between --eval-repeats, or a metric spread wider than --eval-flaky-spread.
    flaky = sum(1 for record in records if record.get("flaky_gates") or record.get("flaky_metrics"))
    decided = counts["passed"] + counts["failed"] + counts["error"] + counts["xpassed"]
    passes = counts["passed"] + counts["xpassed"]
    low, high = wilson_interval(passes, decided, confidence) if decided else (None, None)
    return {
        "cases": len(records),
        **{("errors" if s == "error" else s): n for s, n in counts.items()},
        # Errors stay in the denominator: a case that could not be judged did not pass.
        "pass_rate": passes / decided if decided else None,
        "pass_rate_ci_low": low,
        "pass_rate_ci_high": high,
        "flaky": flaky,  # cases with a flipped gate or a metric spread too wide across repeats
        "gates": {name: _gate_stats(v, confidence) for name, v in sorted(gates.items())},
        "metrics": {name: metric_stats(v, confidence) for name, v in sorted(metrics.items())},
        # "grader: reason" -> number of cases where that grader did not grade
        "skipped_graders": dict(sorted(skipped.items())),
    }


def _gate_stats(results: list[bool], confidence: float) -> dict[str, Any]:
    passed = sum(results)
    low, high = wilson_interval(passed, len(results), confidence)
    return {"passed": passed, "evaluated": len(results), "pass_rate": passed / len(results), "ci_low": low, "ci_high": high}


def metric_stats(values: Iterable[float], confidence: float = DEFAULT_CONFIDENCE) -> dict[str, Any]:
    ordered = sorted(values)
    n = len(ordered)
    mean = math.fsum(ordered) / n
    std = math.sqrt(math.fsum((v - mean) ** 2 for v in ordered) / n)
    low, high = bootstrap_mean(ordered, confidence=confidence)
    return {"n": n, "mean": mean, "std": std, "min": ordered[0], "max": ordered[-1], "ci_low": low, "ci_high": high}


def aggregate(records: Iterable[Mapping[str, Any]], confidence: float = DEFAULT_CONFIDENCE) -> dict[str, Any]:
    """Aggregates overall and grouped by suite, protocol and tag, with intervals at ``confidence`` (recorded too)."""
    ordered = sorted(records, key=lambda r: (r["uid"], r.get("nodeid", "")))
    by: dict[str, dict[str, list[Mapping[str, Any]]]] = {
        "suites": defaultdict(list),
        "protocols": defaultdict(list),
        "tags": defaultdict(list),
    }
    for record in ordered:
        by["suites"][record["suite"]].append(record)
        by["protocols"][record["protocol"]].append(record)
        for tag in record.get("tags", ()):
            by["tags"][tag].append(record)
    result: dict[str, Any] = {"confidence": confidence, "overall": summarize(ordered, confidence)}
    for key, groups in by.items():
        result[key] = {name: summarize(group, confidence) for name, group in sorted(groups.items())}
    return result


def benchmark_scores(records: Iterable[Mapping[str, Any]], confidence: float = DEFAULT_CONFIDENCE) -> dict[str, Any]:
    """The protocols' benchmark scores, each mean with its bootstrap interval at ``confidence``."""
    return protocol_scores(records, interval=partial(bootstrap_mean, confidence=confidence))


def timings(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """How long cases took, per suite and timing name (``render.seconds``, ``case.seconds``...).

    Kept apart from the metrics: they measure the machine, not the output, so
    thresholds, baselines and snapshots never compare them.
    """
    per_suite: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for record in records:
        for name, seconds in (record.get("timings") or {}).items():
            per_suite[record.get("suite", "")][name].append(float(seconds))
    return {
        suite: {
            name: {"mean": math.fsum(values) / len(values), "max": max(values), "total": math.fsum(values), "n": len(values)}
            for name, values in sorted(names.items())
        }
        for suite, names in sorted(per_suite.items())
    }
