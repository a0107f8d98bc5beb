"""results/verdict.py: thresholds combined with pytest's own exit status."""

from __future__ import annotations

import pytest

from pytest_visioneval.cases.spec import Threshold
from pytest_visioneval.results.thresholds import ThresholdResult
from pytest_visioneval.results.verdict import Verdict, decide


def result(passed: bool, message: str = "m") -> ThresholdResult:
    return ThresholdResult(Threshold("s", "score", min=0.5), 0.4 if not passed else 0.6, passed, message)


def test_all_green() -> None:
    verdict = decide(0, [result(True)], {"failed": 0, "errors": 0})
    assert verdict == Verdict((result(True),), 0, ())
    assert verdict.failed_thresholds == []


def test_missed_threshold_turns_exit_0_into_1() -> None:
    missed = result(False, "s.score: mean 0.4 < 0.5 (short by 0.1)")
    verdict = decide(0, [result(True), missed], {"failed": 0, "errors": 0})
    assert verdict.exit_status == 1
    assert verdict.failed_thresholds == [missed]
    assert verdict.reasons == ("1 threshold(s) missed: s.score: mean 0.4 < 0.5 (short by 0.1)",)


@pytest.mark.parametrize("status", [1, 2, 3, 4, 5])
def test_pytest_non_zero_status_is_kept(status: int) -> None:
    assert decide(status, [result(False)], {}).exit_status == status
    assert decide(status, [], {}).exit_status == status


def test_reasons_are_listed() -> None:
    verdict = decide(1, [result(False, "a"), result(False, "b")], {"failed": 2, "errors": 1}, collection_errors=1)
    assert verdict.reasons == (
        "1 file(s) failed to collect",
        "2 case(s) failed a gate or assertion",
        "1 case(s) could not be evaluated (errors)",
        "2 threshold(s) missed: a; b",
    )


def test_unexplained_non_zero_status_gets_a_reason() -> None:
    verdict = decide(2, [], {"failed": 0, "errors": 0})
    assert verdict.reasons == ("pytest exit status 2",)


def test_status_is_an_int() -> None:
    class ExitCode(int):
        pass

    status = decide(ExitCode(0), [result(False)], {}).exit_status
    assert status == 1 and type(status) is int
    assert type(decide(ExitCode(3), [], {}).exit_status) is int


def inconclusive(passed: bool, message: str = "s.score: mean 0.6 >= 0.5 but ... (inconclusive)") -> ThresholdResult:
    return ThresholdResult(Threshold("s", "score", min=0.5), 0.6, passed, message, status="inconclusive")


def test_an_inconclusive_threshold_that_passes_keeps_the_run_green() -> None:
    verdict = decide(0, [result(True), inconclusive(True)], {"failed": 0, "errors": 0})
    assert (verdict.exit_status, verdict.reasons, verdict.failed_thresholds) == (0, (), [])


def test_an_inconclusive_threshold_counted_as_missed_fails_the_run_with_its_own_reason() -> None:
    failing = inconclusive(False, "s.score: ... (inconclusive, counted as missed: --eval-inconclusive=fail)")
    verdict = decide(0, [failing, result(False, "s.score: mean 0.4 < 0.5")], {"failed": 0, "errors": 0})
    assert verdict.exit_status == 1
    assert verdict.failed_thresholds == [failing, result(False, "s.score: mean 0.4 < 0.5")]
    assert verdict.reasons == (
        "1 threshold(s) missed: s.score: mean 0.4 < 0.5",
        "1 threshold(s) inconclusive: s.score: ... (inconclusive, counted as missed: --eval-inconclusive=fail)",
    )
