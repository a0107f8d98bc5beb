"""Plain, immutable descriptions of suites, cases and graders.

Everything downstream (models, graders, reports) takes these, never raw YAML.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TASKS = ("image_generation", "image_editing", "html_generation")
DEFAULT_PROTOCOL = "generic"


@dataclass(frozen=True)
class GraderSpec:
    """One grader as configured on a case."""

    use: str
    name: str
    gate: bool = True
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Threshold:
    """A bound on a suite aggregate: a metric's mean or a gate's pass rate."""

    suite: str  # "*" for every suite
    metric: str
    min: float | None = None
    max: float | None = None
    source: str = ""  # where it was declared, for messages


@dataclass(frozen=True)
class CaseSpec:
    """A single case after suite defaults were merged and paths resolved."""

    suite: str
    id: str
    protocol: str
    task: str
    source: Path
    line: int
    prompt: str | None = None
    criteria: str | None = None
    images: tuple[Path, ...] = ()
    mask: Path | None = None
    reference: Path | None = None
    tags: tuple[str, ...] = ()
    params: Mapping[str, Any] = field(default_factory=dict)
    graders: tuple[GraderSpec, ...] = ()
    description: str | None = None
    skip: str | None = None
    xfail: str | None = None
    render: Mapping[str, Any] | None = None  # Chromium capture options; None: do not render
    repeat_policy: str = "mean"  # how --eval-repeats combine (see repeats.py)
    fields: Mapping[str, Any] = field(default_factory=dict)  # the protocol's own case data (protocols/)

    @property
    def uid(self) -> str:
        """The stable, readable id used everywhere: ``suite/case_id``."""
        return f"{self.suite}/{self.id}"


@dataclass(frozen=True)
class SuiteSpec:
    """The cases and thresholds of one case file."""

    name: str
    protocol: str
    path: Path
    cases: tuple[CaseSpec, ...]
    thresholds: tuple[Threshold, ...] = ()
    description: str | None = None
    default_graders: tuple[str, ...] = ()  # names of the graders its ``defaults`` give (a case may drop them)
