"""A run of several models: its records split per model, and each model's own numbers.

Each model is a run of its own as far as scores go: its aggregates, benchmark
scores and usage are computed over its cases alone, and every threshold is
checked against each model (a model that misses one fails the run, whichever
it is). Mixing the models' cases into one mean would describe no model.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..calls.usage import total_usage
from ..cases.spec import Threshold
from .aggregate import aggregate, benchmark_scores
from .baseline import Delta, Tolerance, compare
from .statistics import DEFAULT_CONFIDENCE
from .thresholds import ThresholdResult, evaluate_thresholds, file_thresholds


def model_of(record: Mapping[str, Any]) -> str:
    return str(record.get("model") or "")


def labels_of(records: Iterable[Mapping[str, Any]], order: Sequence[str] = ()) -> list[str]:
    """The models of ``records``: those of ``order`` first (as given), then any other in name order."""
    found = {model_of(r) for r in records if r.get("task")}
    return [label for label in dict.fromkeys(order) if label in found] + sorted(found - set(order))


def split_by_model(records: Iterable[Mapping[str, Any]], labels: Sequence[str]) -> dict[str, list[Mapping[str, Any]]]:
    """Each model's case records (Python tests, which no model ran, are left out)."""
    parts: dict[str, list[Mapping[str, Any]]] = {label: [] for label in labels}
    for record in records:
        if record.get("task") and model_of(record) in parts:
            parts[model_of(record)].append(record)
    return parts


def model_sections(
    records: Sequence[Mapping[str, Any]], labels: Sequence[str], confidence: float = DEFAULT_CONFIDENCE
) -> dict[str, dict[str, Any]]:
    """label -> that model's ``aggregates``, ``benchmarks`` and ``usage``, as a one-model run would have them
    (intervals at ``confidence``)."""
    return {
        label: {
            "aggregates": aggregate(part, confidence),
            "benchmarks": benchmark_scores(part, confidence),
            "usage": total_usage(part),
        }
        for label, part in split_by_model(records, labels).items()
    }


def evaluate_per_model(
    records: Sequence[Mapping[str, Any]],
    cli_thresholds: Iterable[Threshold],
    sections: Mapping[str, Mapping[str, Any]],
    overall: Mapping[str, Any],
    *,
    on: str = "mean",
    inconclusive: str = "pass",
) -> list[ThresholdResult]:
    """Every threshold, checked once per model against that model's aggregates.

    A command-line threshold on a suite no model ran but Python tests filled
    (``record_metric``) is checked once, against ``overall`` (the whole run's aggregates).
    ``on`` and ``inconclusive``: as for :func:`~.thresholds.evaluate_thresholds`.
    """
    cli = list(cli_thresholds)
    model_suites = {suite for section in sections.values() for suite in section["aggregates"]["suites"]}
    shared = [t for t in cli if t.suite not in model_suites and t.suite in overall["suites"]]
    per_model = [t for t in cli if t not in shared]
    results = evaluate_thresholds((), shared, overall, on=on, inconclusive=inconclusive)
    for label, section in sections.items():
        own = [dict(r) for r in records if model_of(r) == label]
        checked = evaluate_thresholds(file_thresholds(own), per_model, section["aggregates"], on=on, inconclusive=inconclusive)
        results += [result.for_model(label) for result in checked]
    return results


def flat_benchmarks(sections: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """``protocol [label]`` -> that model's benchmark result (for checks that read one flat mapping)."""
    return {
        f"{protocol} [{label}]": result
        for label, section in sections.items()
        for protocol, result in section["benchmarks"].items()
    }


def baseline_for(document: Mapping[str, Any], label: str) -> dict[str, Any] | None:
    """The part of a baseline results document that ``label`` is compared with.

    A baseline of one model is the baseline of every model; a baseline of
    several gives each model its own part (``None``: it holds no model of that label).
    """
    sections = document.get("models")
    if not isinstance(sections, Mapping):
        return dict(document)
    if label not in sections:
        return None
    return {
        "aggregates": sections[label]["aggregates"],
        "cases": [case for case in document.get("cases", ()) if model_of(case) == label],
    }


def baseline_deltas(
    baseline: Mapping[str, Any],
    records: Sequence[Mapping[str, Any]],
    sections: Mapping[str, Mapping[str, Any]],
    tolerance: Tolerance,
    per_name: Mapping[str, Tolerance],
    confidence: float | None = DEFAULT_CONFIDENCE,
) -> list[Delta]:
    """Each model against its part of the baseline; a model the baseline does not hold has only new values."""
    deltas: list[Delta] = []
    for label, section in sections.items():
        before = baseline_for(baseline, label) or {"aggregates": {"suites": {}}, "cases": []}
        current = {"aggregates": section["aggregates"], "cases": [r for r in records if model_of(r) == label]}
        found = compare(before, current, tolerance, per_name, only_suites_in_after=True, confidence=confidence)
        deltas += [replace(delta, model=label) for delta in found]
    return deltas
