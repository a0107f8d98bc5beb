"""The content-colour part of the similarity gates (``similarity.match``, ``ssim.match``).

Options, metrics and verdict around :func:`.colour_difference.content_difference`,
shared by both graders so they read and say the same.
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

# The options both similarity graders (``similarity`` and ``ssim``) take for their colour check.
COLOUR_CHECK_OPTIONS: Mapping[str, Any] = {
    "max_changed_content": {"type": "number", "minimum": 0, "maximum": 1, "default": DEFAULT_MAX_CHANGED_CONTENT},
    "delta_e": {"type": "number", "exclusiveMinimum": 0, "default": DEFAULT_DELTA_E},
    "max_faded_areas": {"type": "integer", "minimum": 0, "default": DEFAULT_MAX_FADED_AREAS},
}


class ColourCheck:
    """The content-colour part of a similarity gate: options, metrics and the verdict with its reason."""

    def __init__(self, max_changed: float, delta_e: float, label: str, max_faded: int = DEFAULT_MAX_FADED_AREAS):
        self.max_changed = max_changed
        self.delta_e = delta_e
        self.label = label  # what the output is compared with, for reasons: "reference" or "input"
        self.max_faded = max_faded
        self.checks_fading = label == "reference"

    @classmethod
    def from_options(cls, options: Mapping[str, Any], label: str) -> ColourCheck:
        return cls(
            float(options.get("max_changed_content", DEFAULT_MAX_CHANGED_CONTENT)),
            float(options.get("delta_e", DEFAULT_DELTA_E)),
            label,
            int(options.get("max_faded_areas", DEFAULT_MAX_FADED_AREAS)),
        )

    def metrics(self, colours: list[tuple[str, ContentDifference | None]]) -> tuple[Metric, ...]:
        measured = [(name, d) for name, d in colours if d is not None]
        if not measured:
            return ()
        listing = ", ".join(f"{name} {d.changed:.1%}" for name, d in measured)
        changed = Metric(
            "changed_content",
            float(np.mean([d.changed for _, d in measured])),
            f"share of the content pixels differing from the {self.label} past deltaE00 {self.delta_e:g}: {listing}",
            higher_is_better=False,
        )
        mean = Metric(
            "mean_delta_e",
            float(np.mean([d.mean_delta_e for _, d in measured])),
            "mean CIEDE2000 over the content pixels: " + ", ".join(f"{name} {d.mean_delta_e:.2f}" for name, d in measured),
            higher_is_better=False,
        )
        if not self.checks_fading:
            return changed, mean
        faded = [(name, d.fading.faded) for name, d in measured if d.fading is not None]
        if not faded:
            return changed, mean
        areas = Metric(
            "faded_areas",
            float(np.mean([count for _, count in faded])),
            f"areas of the {self.label}'s content shown with under 60% of its contrast (a veil over them): "
            + ", ".join(f"{name} {count}" for name, count in faded),
            higher_is_better=False,
        )
        return changed, mean, areas

    def verdict(self, colours: list[tuple[str, ContentDifference | None]]) -> tuple[bool, str]:
        """Whether every decoded output's content matches in colour, and the reason (worst output first)."""
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
        if self.checks_fading:
            name, most = max(measured, key=lambda item: item[1].fading.faded if item[1].fading else 0)
            if most.fading is not None and most.fading.faded > self.max_faded and most.fading.box is not None:
                x0, y0, x1, y1 = most.fading.box
                where = f" of {name}" if len(measured) > 1 else ""
                says += (
                    f"; {most.fading.faded} areas{where} (x {x0:.0%}-{x1:.0%}, y {y0:.0%}-{y1:.0%}) show the {self.label}'s "
                    f"content with under 60% of its contrast, as under a veil (limit {self.max_faded})"
                )
                passed = False
        return passed, says
