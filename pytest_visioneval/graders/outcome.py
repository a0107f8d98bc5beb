"""What grading one case gives: its gates (gating or not), metrics and skipped graders.

Plain data shared by the stages above the graders: the run stage builds it,
protocols compute their per-case scores from it, repeats combine several.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..artifacts import Artifact
from ..cases.spec import CaseSpec
from .base import Gate, Metric


@dataclass(frozen=True)
class GateOutcome:
    gate: Gate  # name already prefixed with the grader's name
    gating: bool  # False when the grader is configured with gate: false


@dataclass(frozen=True)
class CaseEvaluation:
    case: CaseSpec
    artifacts: tuple[Artifact, ...]
    gates: tuple[GateOutcome, ...]
    metrics: tuple[Metric, ...]
    skipped: tuple[tuple[str, str], ...] = ()  # (grader name, why it did not grade)

    @property
    def failed_gates(self) -> list[Gate]:
        return [g.gate for g in self.gates if g.gating and not g.gate.passed]
