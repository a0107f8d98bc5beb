"""Each model of a run of several: its own aggregates, thresholds and baseline."""

from __future__ import annotations

from typing import Any

from pytest_visioneval.results.baseline import Tolerance
from pytest_visioneval.results.per_model import (
    baseline_deltas,
    baseline_for,
    evaluate_per_model,
    flat_benchmarks,
    labels_of,
    model_sections,
    split_by_model,
)
from pytest_visioneval.results.thresholds import parse_threshold


def _record(uid: str, model: str | None, score: float, status: str = "passed", suite: str = "demo") -> dict[str, Any]:
    return {
        "uid": uid,
        "nodeid": f"f::{uid}[{model}]",
        "suite": suite,
        "protocol": "cookbook" if model else "python",
        "task": "image_generation" if model else None,
        "model": model,
        "status": status,
        "tags": [],
        "gates": [],
        "metrics": [{"name": "similarity.score", "value": score, "higher_is_better": True}],
        "thresholds": [{"suite": suite, "metric": "similarity.score", "min": 0.9, "max": None, "source": "demo.eval.yaml:3"}]
        if model
        else [],
    }


RECORDS = [
    _record("demo/a", "old", 1.0),
    _record("demo/b", "old", 0.9),
    _record("demo/a", "new", 0.6, "failed"),
    _record("demo/b", "new", 1.0),
    _record("checks/python_test", None, 0.5, suite="checks"),
]


def test_labels_follow_the_command_line_then_names_and_skip_python_tests() -> None:
    assert labels_of(RECORDS, ["new", "old", "new"]) == ["new", "old"]
    assert labels_of(RECORDS) == ["new", "old"]
    assert labels_of(RECORDS, ["zzz"]) == ["new", "old"]
    parts = split_by_model(RECORDS, ["old", "new"])
    assert [r["uid"] for r in parts["new"]] == ["demo/a", "demo/b"]


def test_each_model_is_aggregated_over_its_own_cases() -> None:
    sections = model_sections(RECORDS, ["old", "new"])
    old, new = (sections[m]["aggregates"]["suites"]["demo"] for m in ("old", "new"))
    assert old["metrics"]["similarity.score"]["mean"] == 0.95
    assert new["metrics"]["similarity.score"]["mean"] == 0.8
    assert (old["pass_rate"], new["pass_rate"]) == (1.0, 0.5)
    assert set(flat_benchmarks(sections)) == {"cookbook [old]", "cookbook [new]"}


def test_every_threshold_is_checked_for_every_model() -> None:
    sections = model_sections(RECORDS, ["old", "new"])
    overall = {"suites": {"checks": {"metrics": {"similarity.score": {"mean": 0.5}}, "gates": {}, "errors": 0}}}
    cli = [parse_threshold("*.similarity.score=0.7"), parse_threshold("checks.similarity.score=0.4")]
    results = evaluate_per_model(RECORDS, cli, sections, overall)
    verdicts = sorted((r.model or "", r.threshold.source, r.passed) for r in results)
    assert verdicts == [
        ("", "--eval-fail-under", True),  # a Python tests' suite: checked once, on the whole run
        ("new", "--eval-fail-under", True),
        ("new", "demo.eval.yaml:3", False),  # 0.8 < 0.9
        ("old", "--eval-fail-under", True),
        ("old", "demo.eval.yaml:3", True),
    ]
    missed = next(r for r in results if not r.passed)
    assert missed.message.startswith("[new] demo.similarity.score: mean 0.8 < 0.9")
    assert missed.as_dict()["model"] == "new"


def test_a_baseline_of_one_model_is_every_models_baseline() -> None:
    sections = model_sections(RECORDS, ["old", "new"])
    single = {"aggregates": sections["old"]["aggregates"], "cases": RECORDS[:2]}
    assert baseline_for(single, "anything") == single
    deltas = baseline_deltas(single, RECORDS, sections, Tolerance(0.01), {}, confidence=None)  # the means alone
    regressed = {(d.model, d.name) for d in deltas if d.regressed}
    assert regressed == {("new", "similarity.score"), ("new", "pass_rate")}
    # Paired case by case, two cases moving in opposite directions (-0.4, +0.1) cannot be told from noise.
    paired = {(d.model, d.name): d.verdict for d in baseline_deltas(single, RECORDS, sections, Tolerance(0.01), {})}
    assert paired[("new", "similarity.score")] == "noise" and paired[("old", "similarity.score")] == "same"


def test_a_baseline_of_several_models_gives_each_its_own_part() -> None:
    sections = model_sections(RECORDS, ["old", "new"])
    document = {"cases": RECORDS, "models": sections}
    part = baseline_for(document, "new")
    assert part is not None and part["aggregates"] == sections["new"]["aggregates"]
    assert [c["model"] for c in part["cases"]] == ["new", "new"]
    assert baseline_for(document, "other") is None
    assert not [d for d in baseline_deltas(document, RECORDS, sections, Tolerance(0.01), {}) if d.verdict != "same"]
    # A model the baseline does not hold has new values only, never a regression.
    renamed = model_sections([{**r, "model": "newer"} if r["model"] == "new" else r for r in RECORDS], ["old", "newer"])
    verdicts = {d.verdict for d in baseline_deltas(document, RECORDS, renamed, Tolerance(0.01), {}) if d.model == "newer"}
    assert verdicts == {"new"}


def test_each_model_gets_the_runs_level_and_threshold_policy() -> None:
    sections = model_sections(RECORDS, ["old", "new"], confidence=0.8)
    assert {label: section["aggregates"]["confidence"] for label, section in sections.items()} == {"old": 0.8, "new": 0.8}
    new = sections["new"]["aggregates"]["suites"]["demo"]["metrics"]["similarity.score"]
    assert new["ci_low"] < 0.7 < new["mean"] < new["ci_high"]  # scores 0.6 and 1.0
    cli = [parse_threshold("demo.similarity.score=0.7")]
    by_default = [r for r in evaluate_per_model(RECORDS, cli, sections, {"suites": {}}) if r.model == "new"]
    on_bound = [r for r in evaluate_per_model(RECORDS, cli, sections, {"suites": {}}, on="bound") if r.model == "new"]
    cli_default, cli_bound = (
        next(r for r in found if r.threshold.source == "--eval-fail-under") for found in (by_default, on_bound)
    )
    assert (cli_default.status, cli_default.passed) == ("inconclusive", True)
    assert (cli_bound.status, cli_bound.passed) == ("inconclusive", False)
    assert "its 80% interval" in cli_bound.message
