"""The grader protocol and the results graders return.

A grader looks at a case and the artifacts its model produced and returns
*gates* (pass/fail, each with a reason) and *metrics* (numbers, each with a
reason). Names are local to the grader; the runner prefixes them with the
grader's configured name (``image.decodes``, ``similarity.score``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from ..artifacts import Artifact
from ..cases.spec import CaseSpec


@dataclass(frozen=True)
class Gate:
    name: str
    passed: bool
    reason: str


@dataclass(frozen=True)
class Metric:
    name: str
    value: float
    reason: str = ""
    higher_is_better: bool = True

    def __post_init__(self) -> None:
        # Builtin float only: numpy scalars do not survive xdist's serialization.
        value = float(self.value)
        if not math.isfinite(value):
            raise ValueError(f"metric {self.name!r} is not finite: {self.value!r}")
        object.__setattr__(self, "value", value)


@dataclass(frozen=True)
class Grade:
    gates: tuple[Gate, ...] = ()
    metrics: tuple[Metric, ...] = field(default_factory=tuple)
    skipped: str | None = None  # the grader did not grade, and why (e.g. no judge configured)


@dataclass(frozen=True)
class GradeContext:
    """What a grader may need beyond the case and its outputs.

    Deterministic graders ignore it; judge graders take their judges from it.
    """

    judges: tuple[Any, ...] = ()  # JudgeClient objects, one per --judge
    judge_repeats: int = 1


class Grader(Protocol):
    """A grader type. ``options_schema`` is the JSON Schema of its ``options``;
    case files are checked against it at collection time."""

    options_schema: ClassVar[Mapping[str, Any]]

    def __init__(self, options: Mapping[str, Any]) -> None: ...

    @classmethod
    def check_case(cls, case: CaseSpec, options: Mapping[str, Any]) -> str | None:
        """Return why this grader cannot grade ``case`` (e.g. it lacks a reference), or None."""
        ...

    def grade(self, case: CaseSpec, artifacts: Sequence[Artifact], context: GradeContext) -> Grade: ...
