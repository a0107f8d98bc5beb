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

# The options both similarity graders (``similarity`` and ``ssim``) take for their colour check.
COLOUR_CHECK_OPTIONS: Mapping[str, Any] = {
    "max_changed_content": {"type": "number", "minimum": 0, "maximum": 1, "default": DEFAULT_MAX_CHANGED_CONTENT},
    "delta_e": {"type": "number", "exclusiveMinimum": 0, "default": DEFAULT_DELTA_E},
}


class ColourCheck:
    """The content-colour part of a similarity gate: options, metrics and the verdict with its reason."""

    def __init__(self, max_changed: float, delta_e: float, label: str):
        self.max_changed = max_changed
        self.delta_e = delta_e
        self.label = label  # what the output is compared with, for reasons: "reference" or "input"

    @classmethod
    def from_options(cls, options: Mapping[str, Any], label: str) -> ColourCheck:
        return cls(
            float(options.get("max_changed_content", DEFAULT_MAX_CHANGED_CONTENT)),
            float(options.get("delta_e", DEFAULT_DELTA_E)),
            label,
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
        return changed, mean

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
        return passed, says
