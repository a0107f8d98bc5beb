"""The run's verdict: which thresholds failed, and what the exit status is."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .thresholds import ThresholdResult


@dataclass(frozen=True)
class Verdict:
    thresholds: tuple[ThresholdResult, ...] = ()
    exit_status: int = 0
    reasons: tuple[str, ...] = field(default_factory=tuple)
    warnings: tuple[str, ...] = field(default_factory=tuple)  # never change the status; said above it

    @property
    def failed_thresholds(self) -> list[ThresholdResult]:
        return [t for t in self.thresholds if not t.passed]


def decide(
    pytest_status: int,
    thresholds: list[ThresholdResult],
    counts: dict[str, int],
    collection_errors: int = 0,
    regressions: list[str] | None = None,
    incomplete: str | None = None,
    calibration: list[str] | None = None,
) -> Verdict:
    """Combine pytest's own status with the thresholds.

    A missed threshold, an inconclusive one that its policy does not let
    pass, a regression against the baseline, or judge-human agreement below
    its floor (``calibration``) turns a green pytest run red
    (status 1) even when every test passed; pytest's own non-zero statuses
    are kept as they are.
    """
    reasons: list[str] = []
    if incomplete:
        reasons.append(f"INCOMPLETE run: {incomplete}")
    if collection_errors:
        reasons.append(f"{collection_errors} file(s) failed to collect")
    if counts.get("failed"):
        reasons.append(f"{counts['failed']} case(s) failed a gate or assertion")
    if counts.get("errors"):
        reasons.append(f"{counts['errors']} case(s) could not be evaluated (errors)")
    missed = [t for t in thresholds if t.status == "missed"]
    if missed:
        reasons.append(f"{len(missed)} threshold(s) missed: " + "; ".join(t.message for t in missed))
    # Inconclusive thresholds fail the run only under --eval-threshold-on=bound or --eval-inconclusive=fail.
    unproven = [t for t in thresholds if t.status == "inconclusive" and not t.passed]
    if unproven:
        reasons.append(f"{len(unproven)} threshold(s) inconclusive: " + "; ".join(t.message for t in unproven))
    if regressions:
        reasons.append(f"{len(regressions)} regression(s) against the baseline: " + "; ".join(regressions))
    if calibration:  # --eval-agreement-floor: the judges drifted away from the people's labels
        reasons.append(f"{len(calibration)} judge-human agreement floor(s) not met: " + "; ".join(calibration))
    status = int(pytest_status)
    if (missed or unproven or regressions or calibration) and status == 0:
        status = 1
    if status != 0 and not reasons:
        reasons.append(f"pytest exit status {status}")
    return Verdict(tuple(thresholds), status, tuple(reasons))


def run_warnings(aggregates: Mapping[str, Any], benchmarks: Mapping[str, Any], judges_configured: bool) -> list[str]:
    """What a green exit status could hide: benchmark scores that are all zero, judge graders that never ran."""
    found: list[str] = []
    skipped = aggregates.get("overall", {}).get("skipped_graders", {})
    judge_skips = sum(count for what, count in skipped.items() if "no judge configured" in what)
    unscored = sorted(name for name, result in benchmarks.items() if result.get("cases") and not result.get("scored"))
    if judge_skips and not judges_configured:
        found.append(
            f"no --judge: judge graders did not run in {judge_skips} grader-case(s), so only deterministic gates "
            "decided" + (f" and these benchmarks have no score: {', '.join(unscored)}" if unscored else "")
        )
    else:
        found += [f"{name}: no benchmark score: {_why_unscored(benchmarks[name])}" for name in unscored]
    for protocol, result in benchmarks.items():
        headline = result.get("headline") or {}
        if result.get("scored") and headline and all(value == 0 for value in headline.values()):
            found.append(
                f"{protocol}: every benchmark score is 0 over {result['scored']} case(s); the cases can still pass "
                "because benchmark scores do not gate unless a threshold asks (docs/ci.md)"
            )
    return found


def _why_unscored(result: Mapping[str, Any]) -> str:
    errored, skipped = len(result.get("errored") or ()), len(result.get("unscored") or ())
    parts = [f"{errored} case(s) errored" if errored else "", f"{skipped} had a grader skipped" if skipped else ""]
    return ", ".join(p for p in parts if p) or "no case was scored"
