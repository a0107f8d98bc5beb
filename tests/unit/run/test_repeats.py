from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pytest_visioneval.graders import Gate, Metric
from pytest_visioneval.graders.outcome import CaseEvaluation, GateOutcome
from pytest_visioneval.run.repeats import combine, flaky_metrics


def evaluation(case: Any, passed: bool, score: float) -> CaseEvaluation:
    gate = GateOutcome(Gate("sim.match", passed, f"score {score}"), gating=True)
    return CaseEvaluation(case, (), (gate,), (Metric("sim.score", score, "r"),))


@pytest.mark.parametrize(
    ("votes", "policy", "passes"),
    [
        ([True, True, False], "mean", True),
        ([True, False], "mean", True),  # half is enough for mean
        ([True, False], "majority", False),  # a tie fails a majority
        ([True, True, False], "majority", True),
        ([True, True, False], "all", False),
        ([True, True, True], "all", True),
        ([False, False, True], "mean", False),
    ],
)
def test_policies(make_case: Callable[..., Any], votes: list[bool], policy: str, passes: bool) -> None:
    case = make_case()
    result = combine([evaluation(case, v, 0.5) for v in votes], policy)
    (gate,) = result.evaluation.gates
    assert gate.gate.passed is passes
    assert gate.gate.reason.startswith(f"passed {sum(votes)}/{len(votes)} repeats ({policy})")


def test_metrics_are_averaged_with_spread_and_flaky_gates_flagged(make_case: Callable[..., Any]) -> None:
    case = make_case()
    result = combine([evaluation(case, True, 0.9), evaluation(case, False, 0.7), evaluation(case, True, 0.8)])
    metrics = {m.name: m.value for m in result.evaluation.metrics}
    assert metrics["sim.score"] == pytest.approx(0.8)
    assert metrics["sim.score.repeat_std"] == pytest.approx((0.02 / 3) ** 0.5)
    assert result.flaky_gates == ("sim.match",) and result.repeats == 3
    steady = combine([evaluation(case, True, 0.9), evaluation(case, True, 0.9)])
    assert steady.flaky_gates == ()


def test_single_evaluation_is_unchanged(make_case: Callable[..., Any]) -> None:
    one = evaluation(make_case(), False, 0.1)
    assert combine([one]).evaluation is one


def test_unknown_policy(make_case: Callable[..., Any]) -> None:
    with pytest.raises(ValueError, match="unknown repeat policy"):
        combine([evaluation(make_case(), True, 1.0)] * 2, "best")


def test_a_metric_spread_wider_than_its_limit_is_flaky() -> None:
    metrics = [
        Metric("score.quality", 3.67, "mean of 3 judgements"),
        Metric("score.quality.std", 1.886, "spread", higher_is_better=False),
        Metric("similarity.score", 0.9, ""),
        Metric("similarity.score.repeat_std", 0.02, "spread across repeats", higher_is_better=False),
    ]
    assert flaky_metrics(metrics, {}) == {}
    assert flaky_metrics(metrics, {"*": 0.5}) == {"score.quality": 1.886}
    assert flaky_metrics(metrics, {"*": 0.01}) == {"score.quality": 1.886, "similarity.score": 0.02}
    # A limit for one metric wins over the default; the spread equal to the limit is tolerated.
    assert flaky_metrics(metrics, {"*": 0.01, "score.quality": 2, "similarity.score": 0.02}) == {}
