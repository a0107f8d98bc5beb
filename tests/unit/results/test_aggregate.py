"""results/aggregate.py: deterministic aggregates per suite, protocol and tag."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest

from pytest_visioneval.results.aggregate import aggregate, benchmark_scores, metric_stats, summarize
from pytest_visioneval.results.statistics import bootstrap_mean, wilson_interval


def record(
    uid: str,
    status: str = "passed",
    *,
    protocol: str = "generic",
    tags: tuple[str, ...] = (),
    metrics: dict[str, float] | None = None,
    gates: dict[str, bool] | None = None,
) -> dict[str, Any]:
    suite = uid.split("/")[0]
    return {
        "uid": uid,
        "nodeid": f"{suite}.eval.yaml::{uid}",
        "suite": suite,
        "protocol": protocol,
        "status": status,
        "tags": list(tags),
        "metrics": [{"name": k, "value": v} for k, v in (metrics or {}).items()],
        "gates": [{"name": k, "passed": v} for k, v in (gates or {}).items()],
    }


RECORDS = [
    record("ui/a", tags=("mobile", "ui"), metrics={"sim.score": 0.1, "lat": 3.0}, gates={"image.decodes": True}),
    record("ui/b", "failed", tags=("ui",), metrics={"sim.score": 0.7}, gates={"image.decodes": False}),
    record("ui/c", "error", tags=("mobile",)),
    record("ui/d", "skipped"),
    record("logo/x", protocol="cookbook", metrics={"sim.score": 0.1}, gates={"image.decodes": True}),
    record("logo/y", "xfailed", protocol="cookbook", metrics={"sim.score": 0.2}),
    record("logo/z", "xpassed", protocol="cookbook", tags=("ui",), metrics={"sim.score": 0.3}),
]


def test_order_independence() -> None:
    # The float values were picked so that summing them in a different order changes the last bit.
    assert (0.1 + 0.2) + 0.3 != (0.3 + 0.2) + 0.1
    expected = aggregate(RECORDS)
    rng = random.Random(1234)
    for _ in range(25):
        shuffled = list(RECORDS)
        rng.shuffle(shuffled)
        result = aggregate(shuffled)
        assert result == expected
        # identical to the last bit and in the same key order
        assert json.dumps(result) == json.dumps(expected)


def test_counts_and_pass_rate_keep_errors_in_the_denominator() -> None:
    overall = aggregate(RECORDS)["overall"]
    assert overall["cases"] == 7
    assert {k: overall[k] for k in ("passed", "failed", "errors", "skipped", "xfailed", "xpassed")} == {
        "passed": 2,
        "failed": 1,
        "errors": 1,
        "skipped": 1,
        "xfailed": 1,
        "xpassed": 1,
    }
    # decided = passed + failed + error + xpassed = 5 (skipped and xfailed are left out);
    # passing = passed + xpassed = 3
    assert overall["pass_rate"] == 3 / 5


def test_error_lowers_the_pass_rate() -> None:
    assert summarize([record("s/a"), record("s/b", "error")])["pass_rate"] == 0.5
    assert summarize([record("s/a")])["pass_rate"] == 1.0


def test_pass_rate_is_none_when_nothing_was_decided() -> None:
    summary = summarize([record("s/a", "skipped"), record("s/b", "xfailed")])
    assert summary["pass_rate"] is None
    assert summarize([])["cases"] == 0 and summarize([])["pass_rate"] is None


def test_grouping_by_suite_protocol_and_tag() -> None:
    result = aggregate(RECORDS)
    assert list(result) == ["confidence", "overall", "suites", "protocols", "tags"]
    assert result["confidence"] == 0.95
    assert list(result["suites"]) == ["logo", "ui"]  # sorted
    assert result["suites"]["ui"]["cases"] == 4
    assert result["suites"]["logo"]["cases"] == 3
    assert list(result["protocols"]) == ["cookbook", "generic"]
    assert result["protocols"]["cookbook"]["cases"] == 3
    assert list(result["tags"]) == ["mobile", "ui"]
    assert result["tags"]["mobile"]["cases"] == 2  # ui/a, ui/c
    assert result["tags"]["ui"]["cases"] == 3  # ui/a, ui/b, logo/z
    assert result["tags"]["ui"]["metrics"]["sim.score"]["n"] == 3


def test_gate_stats() -> None:
    gates = aggregate(RECORDS)["suites"]["ui"]["gates"]
    low, high = wilson_interval(1, 2)
    assert gates == {"image.decodes": {"passed": 1, "evaluated": 2, "pass_rate": 0.5, "ci_low": low, "ci_high": high}}
    assert type(gates["image.decodes"]["passed"]) is int


def test_metric_stats_exact_values() -> None:
    stats = metric_stats([4.0, 1.0, 3.0, 2.0])
    low, high = bootstrap_mean([1.0, 2.0, 3.0, 4.0])
    assert stats == {"n": 4, "mean": 2.5, "std": math.sqrt(1.25), "min": 1.0, "max": 4.0, "ci_low": low, "ci_high": high}
    assert 1.0 <= low < 2.5 < high <= 4.0


def test_metric_stats_single_value() -> None:
    expected = {"n": 1, "mean": 0.7, "std": 0.0, "min": 0.7, "max": 0.7, "ci_low": 0.7, "ci_high": 0.7}
    assert metric_stats([0.7]) == expected


def test_metric_mean_is_exactly_rounded() -> None:
    # A naive left-to-right sum gives 0.0 here; fsum gives the exact 1.0 / 3.
    values = [1e100, 1.0, -1e100]
    assert metric_stats(values)["mean"] == 1.0 / 3
    assert metric_stats(list(reversed(values)))["mean"] == 1.0 / 3


def test_suite_metric_values() -> None:
    logo = aggregate(RECORDS)["suites"]["logo"]["metrics"]["sim.score"]
    values = [0.1, 0.2, 0.3]  # a naive sum depends on the order: 0.6000000000000001 or 0.6
    mean = math.fsum(values) / 3
    assert logo["mean"] == mean
    assert logo["std"] == math.sqrt(math.fsum((v - mean) ** 2 for v in values) / 3)
    assert (logo["min"], logo["max"], logo["n"]) == (0.1, 0.3, 3)


def test_metric_values_are_floats() -> None:
    summary = summarize([{"status": "passed", "metrics": [{"name": "m", "value": 3}]}])
    assert type(summary["metrics"]["m"]["mean"]) is float


def test_unknown_status_is_refused() -> None:
    with pytest.raises(KeyError):
        summarize([{"status": "weird"}])


# -- intervals --


def test_the_case_pass_rate_has_a_wilson_interval_with_errors_in_the_denominator() -> None:
    overall = aggregate(RECORDS)["overall"]
    # 3 of 5 decided cases passed (passed and xpassed; the error counts against).
    assert (overall["pass_rate_ci_low"], overall["pass_rate_ci_high"]) == wilson_interval(3, 5)
    assert overall["pass_rate_ci_low"] < overall["pass_rate"] < overall["pass_rate_ci_high"]


def test_no_decided_case_means_no_pass_rate_interval() -> None:
    summary = summarize([record("s/a", "skipped")])
    assert summary["pass_rate"] is None
    assert (summary["pass_rate_ci_low"], summary["pass_rate_ci_high"]) == (None, None)


def test_every_mean_lies_in_its_interval() -> None:
    result = aggregate(RECORDS)
    groups = [result["overall"], *(g for key in ("suites", "protocols", "tags") for g in result[key].values())]
    stats = [m for group in groups for m in group["metrics"].values()]
    assert len(stats) == 12  # every metric of every group
    assert all(m["ci_low"] <= m["mean"] <= m["ci_high"] for m in stats)
    assert all(g["ci_low"] <= g["pass_rate"] <= g["ci_high"] for group in groups for g in group["gates"].values())


def test_the_level_widens_the_intervals_and_is_recorded() -> None:
    narrow, wide = aggregate(RECORDS, 0.5), aggregate(RECORDS, 0.99)
    assert (narrow["confidence"], wide["confidence"]) == (0.5, 0.99)
    narrow_logo, wide_logo = narrow["suites"]["logo"], wide["suites"]["logo"]
    assert wide_logo["metrics"]["sim.score"]["ci_low"] < narrow_logo["metrics"]["sim.score"]["ci_low"]
    assert wide_logo["metrics"]["sim.score"]["ci_high"] > narrow_logo["metrics"]["sim.score"]["ci_high"]
    assert wide_logo["pass_rate_ci_low"] < narrow_logo["pass_rate_ci_low"]


def test_a_bad_level_is_refused() -> None:
    with pytest.raises(ValueError, match="confidence must lie between 0 and 1"):
        aggregate(RECORDS, 1.0)


def test_benchmark_scores_carry_bootstrap_intervals_at_the_level() -> None:
    fields = {"domain": "chart", "dimension": "text"}
    scores = [(100, 60, 80), (40, 0, 20), (70, 30, 50), (90, 90, 90)]
    records = [
        {
            "uid": f"s/{i}",
            "protocol": "bizgeneval",
            "status": "passed",
            "fields": fields,
            "metrics": [{"name": f"bizgeneval.{k}", "value": v} for k, v in zip(("easy", "hard", "all"), values, strict=True)],
        }
        for i, values in enumerate(scores)
    ]
    result = benchmark_scores(records, confidence=0.9)["bizgeneval"]
    easy = result["scores"]["easy"]
    assert (easy["ci_low"], easy["ci_high"]) == bootstrap_mean([100, 40, 70, 90], confidence=0.9)
    assert easy["ci_low"] < easy["mean"] == 75.0 < easy["ci_high"]
    assert result["groups"]["domain"]["chart"]["easy"] == easy  # one group holding every case
    assert benchmark_scores(list(reversed(records)), confidence=0.9) == benchmark_scores(records, confidence=0.9)
