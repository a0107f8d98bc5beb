"""The content part of the similarity gates (``similarity.match``, ``ssim.match``).

Options, metrics and verdict around :func:`.colour_difference.content_difference`,
shared by both graders so they read and say the same: the content's colours,
and against a reference also its contrast (:mod:`.faded_content`) and its
sharpness (:mod:`.softened_content`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .base import Metric
from .colour_difference import DEFAULT_DELTA_E, DEFAULT_MAX_CHANGED_CONTENT, ContentDifference

# Content areas (faded_content.TILE px tiles at the working size) of the reference an output may show faded:
# re-encodes, shifts, +-5 levels and resize round trips of the shipped references fade none; a veil over
# content fades 4 or more. Only against a reference: an edit compared with its input may lighten its area.
DEFAULT_MAX_FADED_AREAS = 1
# The share of the reference's content (softened_content tiles) an output may show blurred: re-encodes,
# shifts and resize round trips soften at most 8%, a blur of 3 px per 512 px 93% or more. Only against a
# reference too: an edit may blur what it was asked to. Fewer than MIN_SOFTENED_TILES never fail.
DEFAULT_MAX_SOFTENED_SHARE = 0.25
MIN_SOFTENED_TILES = 3

# The options both similarity graders (``similarity`` and ``ssim``) take for their content check.
CONTENT_CHECK_OPTIONS: Mapping[str, Any] = {
    "max_changed_content": {"type": "number", "minimum": 0, "maximum": 1, "default": DEFAULT_MAX_CHANGED_CONTENT},
    "delta_e": {"type": "number", "exclusiveMinimum": 0, "default": DEFAULT_DELTA_E},
    "max_faded_areas": {"type": "integer", "minimum": 0, "default": DEFAULT_MAX_FADED_AREAS},
    "max_softened_share": {"type": "number", "minimum": 0, "maximum": 1, "default": DEFAULT_MAX_SOFTENED_SHARE},
}

Measured = list[tuple[str, ContentDifference]]


class ContentCheck:
    """The content part of a similarity gate: options, metrics and the verdict with its reason."""

    def __init__(
        self,
        max_changed: float,
        delta_e: float,
        label: str,
        max_faded: int = DEFAULT_MAX_FADED_AREAS,
        max_softened: float = DEFAULT_MAX_SOFTENED_SHARE,
    ):
        self.max_changed = max_changed
        self.delta_e = delta_e
        self.label = label  # what the output is compared with, for reasons: "reference" or "input"
        self.max_faded = max_faded
        self.max_softened = max_softened
        self.against_reference = label == "reference"  # fading and softening are checked only then

    @classmethod
    def from_options(cls, options: Mapping[str, Any], label: str) -> ContentCheck:
        return cls(
            float(options.get("max_changed_content", DEFAULT_MAX_CHANGED_CONTENT)),
            float(options.get("delta_e", DEFAULT_DELTA_E)),
            label,
            int(options.get("max_faded_areas", DEFAULT_MAX_FADED_AREAS)),
            float(options.get("max_softened_share", DEFAULT_MAX_SOFTENED_SHARE)),
        )

    def metrics(self, colours: list[tuple[str, ContentDifference | None]]) -> tuple[Metric, ...]:
        measured = [(name, d) for name, d in colours if d is not None]
        if not measured:
            return ()
        listing = ", ".join(f"{name} {d.changed:.1%}" for name, d in measured)
        metrics = [
            Metric(
                "changed_content",
                float(np.mean([d.changed for _, d in measured])),
                f"share of the content pixels differing from the {self.label} past deltaE00 {self.delta_e:g}: {listing}",
                higher_is_better=False,
            ),
            Metric(
                "mean_delta_e",
                float(np.mean([d.mean_delta_e for _, d in measured])),
                "mean CIEDE2000 over the content pixels: " + ", ".join(f"{name} {d.mean_delta_e:.2f}" for name, d in measured),
                higher_is_better=False,
            ),
        ]
        if not self.against_reference:
            return tuple(metrics)
        faded = [(name, d.fading.faded) for name, d in measured if d.fading is not None]
        if faded:
            metrics.append(
                Metric(
                    "faded_areas",
                    float(np.mean([count for _, count in faded])),
                    f"areas of the {self.label}'s content shown with under 60% of its contrast (a veil over them): "
                    + ", ".join(f"{name} {count}" for name, count in faded),
                    higher_is_better=False,
                )
            )
        softened = [(name, d.softening.share) for name, d in measured if d.softening is not None]
        if softened:
            metrics.append(
                Metric(
                    "softened_content",
                    float(np.mean([share for _, share in softened])),
                    f"share of the {self.label}'s content areas shown blurred (less edge energy than the "
                    f"{self.label} slightly blurred): " + ", ".join(f"{name} {share:.0%}" for name, share in softened),
                    higher_is_better=False,
                )
            )
        return tuple(metrics)

    def verdict(self, colours: list[tuple[str, ContentDifference | None]]) -> tuple[bool, str]:
        """Whether every decoded output's content matches, and the reason (worst output first)."""
        measured = [(name, d) for name, d in colours if d is not None]
        if not measured:
            return True, "no decoded image to compare in colour"
        name, worst = max(measured, key=lambda item: item[1].changed)
        passed = worst.changed <= self.max_changed
        where = f" ({name})" if len(measured) > 1 else ""
        says = (
            f"{worst.changed:.1%} of the content{where} differs in colour from the {self.label} "
            f"(deltaE00 > {self.delta_e:g}; limit {self.max_changed:.0%})"
        )
        if worst.output_colour and not passed:
            says += f": mostly {worst.output_colour} where the {self.label} has {worst.target_colour}"
        if self.against_reference:
            for problem in (self._fading_problem(measured), self._softening_problem(measured)):
                if problem:
                    says += "; " + problem
                    passed = False
        return passed, says

    def _fading_problem(self, measured: Measured) -> str:
        name, most = max(measured, key=lambda item: item[1].fading.faded if item[1].fading else 0)
        if most.fading is None or most.fading.faded <= self.max_faded or most.fading.box is None:
            return ""
        x0, y0, x1, y1 = most.fading.box
        where = f" of {name}" if len(measured) > 1 else ""
        return (
            f"{most.fading.faded} areas{where} (x {x0:.0%}-{x1:.0%}, y {y0:.0%}-{y1:.0%}) show the {self.label}'s "
            f"content with under 60% of its contrast, as under a veil (limit {self.max_faded})"
        )

    def _softening_problem(self, measured: Measured) -> str:
        name, most = max(measured, key=lambda item: item[1].softening.share if item[1].softening else 0.0)
        softening = most.softening
        if softening is None or softening.box is None:
            return ""
        if softening.share <= self.max_softened or softening.softened < MIN_SOFTENED_TILES:
            return ""
        x0, y0, x1, y1 = softening.box
        where = f" of {name}" if len(measured) > 1 else ""
        return (
            f"{softening.share:.0%} of the {self.label}'s content areas{where} (x {x0:.0%}-{x1:.0%}, y {y0:.0%}-{y1:.0%}) "
            f"are shown blurred: softer than the {self.label} itself blurred a little (limit {self.max_softened:.0%})"
        )
