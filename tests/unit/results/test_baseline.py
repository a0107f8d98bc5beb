from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pytest_visioneval.errors import ConfigError
from pytest_visioneval.report.terminal import delta_lines
from pytest_visioneval.results.baseline import Tolerance, compare, describe, parse_tolerances, regressions


def doc(suites: dict[str, dict[str, Any]], lower_is_better: tuple[str, ...] = ()) -> dict[str, Any]:
    cases = [{"metrics": [{"name": n, "value": 0, "higher_is_better": n not in lower_is_better} for n in lower_is_better]}]
    return {"aggregates": {"suites": suites}, "cases": cases}


def summary(
    metrics: dict[str, float] | None = None, gates: dict[str, float] | None = None, pass_rate: float | None = 1.0
) -> dict:
    return {
        "metrics": {n: {"mean": v} for n, v in (metrics or {}).items()},
        "gates": {n: {"pass_rate": v} for n, v in (gates or {}).items()},
        "pass_rate": pass_rate,
    }


def by_name(deltas: list) -> dict[str, Any]:
    return {f"{d.suite}.{d.name}": d for d in deltas}


def test_direction_and_tolerance_decide_a_regression() -> None:
    before = doc({"s": summary({"score": 0.90, "changed": 0.01}, {"g": 1.0})}, lower_is_better=("changed",))
    after = doc({"s": summary({"score": 0.85, "changed": 0.05}, {"g": 0.995})}, lower_is_better=("changed",))
    deltas = by_name(compare(before, after, tolerance=0.01))
    assert deltas["s.score"].verdict == "REGRESSED"  # dropped by 0.05 > 0.01
    assert deltas["s.changed"].verdict == "REGRESSED"  # lower is better, rose by 0.04
    assert deltas["s.g"].verdict == "same"  # within tolerance
    assert deltas["s.pass_rate"].verdict == "same"
    assert describe(deltas["s.score"]) == "s.score: 0.9 -> 0.85 (-0.05; higher is better, tolerance 0.01)"


def test_improvements_new_and_gone() -> None:
    before = doc({"s": summary({"a": 0.5, "old": 1.0}), "dropped": summary({"x": 1.0})})
    after = doc({"s": summary({"a": 0.7, "new": 0.3}), "added": summary({"y": 1.0})})
    deltas = by_name(compare(before, after, tolerance=0.01))
    assert deltas["s.a"].verdict == "improved"
    assert deltas["s.old"].verdict == "gone" and deltas["s.new"].verdict == "new"
    assert deltas["dropped.x"].verdict == "gone" and deltas["added.y"].verdict == "new"
    assert regressions(list(deltas.values())) == []
    only = by_name(compare(before, after, tolerance=0.01, only_suites_in_after=True))
    assert "dropped.x" not in only and "added.y" in only


def test_per_name_tolerance() -> None:
    before, after = doc({"s": summary({"score": 0.9})}), doc({"s": summary({"score": 0.8})})
    assert regressions(compare(before, after, 0.01))
    assert not regressions(compare(before, after, 0.01, {"score": 0.2}))


def test_delta_lines_list_changes_only_when_asked() -> None:
    deltas = compare(doc({"s": summary({"a": 1.0, "b": 1.0})}), doc({"s": summary({"a": 1.0, "b": 0.5})}), 0.01)
    lines = delta_lines(deltas, only_changes=True)
    assert any("REGRESSED" in line and " b " in line for line in lines)
    assert not any(" a " in line for line in lines)
    assert delta_lines(compare(doc({}), doc({}), 0.01)) == ["  no differences"]


@pytest.mark.parametrize("value", [None])
def test_missing_pass_rate_is_not_compared(value: Any) -> None:
    deltas = by_name(compare(doc({"s": summary(pass_rate=value)}), doc({"s": summary(pass_rate=value)}), 0.01))
    assert "s.pass_rate" not in deltas


def test_a_tolerance_is_a_share_of_the_score_scale() -> None:
    # bizgeneval.all is on 0-100 (its ScoreSpec says so): 0.01 of the scale is one point.
    before, after = doc({"s": summary({"bizgeneval.all": 80.0})}), doc({"s": summary({"bizgeneval.all": 79.5})})
    (delta,) = [d for d in compare(before, after, 0.01) if d.name == "bizgeneval.all"]
    assert delta.tolerance == pytest.approx(1.0) and delta.verdict == "same"
    worse = doc({"s": summary({"bizgeneval.all": 78.0})})
    assert [d.name for d in regressions(compare(before, worse, 0.01))] == ["bizgeneval.all"]


def test_an_unbounded_metric_is_compared_on_its_declared_scale() -> None:
    # mean_delta_e is in CIEDE2000 units (scale 100): 0.01 of it is 1.0 deltaE00, about one just-noticeable difference.
    lower = ("match.mean_delta_e",)
    before = doc({"s": summary({"match.mean_delta_e": 2.0, "viescore.overall": 7.0})}, lower)
    unseen = doc({"s": summary({"match.mean_delta_e": 2.6, "viescore.overall": 6.95})}, lower)
    deltas = by_name(compare(before, unseen, 0.01))
    assert deltas["s.match.mean_delta_e"].tolerance == pytest.approx(1.0)
    assert deltas["s.viescore.overall"].tolerance == pytest.approx(0.1)  # a 0-10 judge score: a tenth of a point
    assert regressions(compare(before, unseen, 0.01)) == []
    seen = doc({"s": summary({"match.mean_delta_e": 3.5, "viescore.overall": 6.5})}, lower)
    worse = regressions(compare(before, seen, 0.01))
    assert sorted(d.name for d in worse) == ["match.mean_delta_e", "viescore.overall"]
    assert "tolerance 1" in describe(by_name(worse)["s.match.mean_delta_e"])


def test_a_percentage_tolerance_is_relative_to_the_value_before() -> None:
    default, per_name = parse_tolerances(["5%", "s2=0.5"])
    assert default == Tolerance(0.05, relative=True) and per_name == {"s2": Tolerance(0.5)}
    before, after = doc({"s": summary({"score": 0.5})}), doc({"s": summary({"score": 0.48})})
    (delta,) = [d for d in compare(before, after, default) if d.name == "score"]
    assert delta.tolerance == pytest.approx(0.025) and delta.verdict == "same"  # 5% of 0.5
    assert regressions(compare(before, doc({"s": summary({"score": 0.47})}), default))


@pytest.mark.parametrize("bad", ["x", "-1", "a=%", "nan"])
def test_bad_tolerances_are_refused(bad: str) -> None:
    with pytest.raises(ConfigError, match="baseline-tolerance"):
        parse_tolerances([bad])


def _run(values: list[float]) -> dict[str, Any]:
    """A results document of one suite whose cases score ``values`` (and all pass)."""
    cases = [
        {"uid": f"s/c{i}", "suite": "s", "status": "passed", "metrics": [{"name": "score", "value": v, "higher_is_better": True}]}
        for i, v in enumerate(values)
    ]
    mean = sum(values) / len(values)
    return {"aggregates": {"suites": {"s": summary({"score": mean})}}, "cases": cases}


def test_a_change_the_paired_cases_cannot_tell_from_chance_is_noise_not_a_regression() -> None:
    # The same outputs judged twice by a noisy judge: each case moves up or down by up to 0.3 at random.
    rng = np.random.default_rng(7)
    truth = rng.uniform(0.3, 0.9, size=30)
    before = _run([float(v) for v in np.clip(truth + rng.uniform(-0.3, 0.3, 30), 0, 1)])
    after = _run([float(v) for v in np.clip(truth + rng.uniform(-0.3, 0.3, 30), 0, 1)])
    (noisy,) = [d for d in compare(before, after, tolerance=0.01) if d.name == "score"]
    assert abs(noisy.change or 0) > 0.01  # the means moved past the tolerance...
    assert noisy.verdict == "noise" and not noisy.regressed  # ...but not beyond chance
    assert noisy.interval is not None and noisy.interval[0] < 0 < noisy.interval[1] and noisy.paired == 30
    # A real drop: every case scores 0.15 lower.
    dropped = _run([v - 0.15 for v in (c["metrics"][0]["value"] for c in before["cases"])])
    (real,) = [d for d in compare(before, dropped, tolerance=0.01) if d.name == "score"]
    assert real.verdict == "REGRESSED"
    assert "paired interval [-0.15, -0.15] over 30 cases" in describe(real)
    # Without the test for noise (confidence None), the means alone decide.
    (means_only,) = [d for d in compare(before, after, tolerance=0.01, confidence=None) if d.name == "score"]
    assert means_only.verdict in ("REGRESSED", "improved") and means_only.interval is None
