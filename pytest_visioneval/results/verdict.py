"""The run's verdict: which thresholds failed, and what the exit status is."""

from __future__ import annotations

from dataclasses import dataclass, field

from .thresholds import ThresholdResult


@dataclass(frozen=True)
class Verdict:
    thresholds: tuple[ThresholdResult, ...] = ()
    exit_status: int = 0
    reasons: tuple[str, ...] = field(default_factory=tuple)

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
) -> Verdict:
    """Combine pytest's own status with the thresholds.

    A missed threshold or a regression against the baseline turns a green
    pytest run red (status 1) even when every test passed; pytest's own
    non-zero statuses are kept as they are.
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
    missed = [t for t in thresholds if not t.passed]
    if missed:
        reasons.append(f"{len(missed)} threshold(s) missed: " + "; ".join(t.message for t in missed))
    if regressions:
        reasons.append(f"{len(regressions)} regression(s) against the baseline: " + "; ".join(regressions))
    status = int(pytest_status)
    if (missed or regressions) and status == 0:
        status = 1
    if status != 0 and not reasons:
        reasons.append(f"pytest exit status {status}")
    return Verdict(tuple(thresholds), status, tuple(reasons))
