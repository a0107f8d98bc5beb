"""``use: colour`` - are the output's colours those a person expects, where they are expected?

Compares the colours of an area of each output image with those of the same
area of a known image (``against: reference``, the default, or ``input``),
or with listed colours (``colours: ["#0a7d7d", ...]``). The area is the whole
image, the case's mask (``within: mask``; ``outside_mask`` for the rest) or a
``region`` box ``[x0, y0, x1, y1]`` (pixels, or fractions when every value is
<= 1; it wins over ``within``). The mask is read as ``use: locality`` reads it
(``mask_editable``).

The comparison is of palettes (:mod:`.colour_palette`), not of aligned
pixels: an output need not be drawn where the reference is (a garment drapes
differently), but it must be made of the same colours. Against an image,
both ways: the share of the output's area in colours the known image has
there (within ``max_delta_e``, CIEDE2000) and the share of the known image's
area in colours the output has. Against listed colours, the share of the
output's area within ``max_delta_e`` of one of them. Metric ``coverage`` (the
smaller share; mean over the outputs); gate ``matches``: every output's
coverage >= ``min_coverage``. A half-done recolour leaves the old colour on
half the area (coverage about 0.5); a garment in another colour leaves
nearly nothing covered.

``shows: ["#b45309"]`` names colours the area must show, whatever else it
holds (a prompt's "amber band"; :mod:`.colour_shown`): gate ``shows`` passes
when each covers at least ``min_share`` of the area (within ``max_delta_e``);
metric ``shown``, the smallest of those shares over ``min_share`` (1: just
enough; mean over the outputs). Given alone (no ``colours``, no
``against``), it is the grader's only check.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from PIL import Image

from ..artifacts import Artifact
from ..cases.spec import CaseSpec
from ..errors import GraderError
from .base import Gate, Grade, GradeContext, Metric
from .colour_difference import WORK_SIDE
from .colour_palette import (
    DEFAULT_MAX_DELTA_E,
    PaletteMatch,
    area_samples,
    compare_palettes,
    named_palette,
    palette_match,
    palette_of,
)
from .colour_shown import Shown, shown
from .imaging import comparison_path, decode, downscaled, load_path, missing_comparison

# Measured by benchmarks/colour_separation.py (docs/graders.md, colour): legitimate variants (JPEG
# q60-95, shifts of 1-3 px, brightness +-8, resize round trips, blur <= 0.7) keep a coverage of
# 0.870 or more; hue rotations of 30-180 degrees, local recolours and other images fall to
# 0.00-0.61, a recolour done on the upper half of the shipped masks to 0.55-0.61.
DEFAULT_MIN_COVERAGE = 0.8
# A named colour must cover this share of the area: a band, a button, a word mark a person notices.
# Measured (benchmarks/colour_shown_separation.py, docs/graders.md): the named colour of the shipped
# flyers and of seeded synthetic flyers keeps a share of 0.041 or more through every legitimate variant,
# and 0.000 after a hue turn of 30 degrees or more, a desaturation or a repaint of it.
DEFAULT_MIN_SHARE = 0.02
HEX_PATTERN = "^#[0-9a-fA-F]{6}$"
STRAY_NAMED = 0.01  # a colour the known image lacks is named in the reason from this share of the area


@dataclass(frozen=True)
class Area:
    pixels: np.ndarray  # bool map at the working size of the comparison
    label: str  # "the image", "the mask area", "the area outside the mask", "the region"


class ColourGrader:
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "against": {"enum": ["reference", "input"], "default": "reference"},
            "colours": {"type": "array", "minItems": 1, "items": {"type": "string", "pattern": HEX_PATTERN}},
            "within": {"enum": ["image", "mask", "outside_mask"], "default": "image"},
            "region": {"type": "array", "items": {"type": "number", "minimum": 0}, "minItems": 4, "maxItems": 4},
            "mask_editable": {"enum": ["transparent", "white", "black"]},
            "max_delta_e": {"type": "number", "exclusiveMinimum": 0, "default": DEFAULT_MAX_DELTA_E},
            "min_coverage": {"type": "number", "minimum": 0, "maximum": 1, "default": DEFAULT_MIN_COVERAGE},
            "shows": {"type": "array", "minItems": 1, "items": {"type": "string", "pattern": HEX_PATTERN}},
            "min_share": {"type": "number", "exclusiveMinimum": 0, "maximum": 1, "default": DEFAULT_MIN_SHARE},
        },
    }

    def __init__(self, options: Mapping[str, Any]):
        self.against: str = options.get("against", "reference")
        self.colours: list[str] | None = options.get("colours")
        self.within: str = options.get("within", "image")
        self.region: list[float] | None = options.get("region")
        self.mask_editable: str | None = options.get("mask_editable")
        self.max_delta_e = float(options.get("max_delta_e", DEFAULT_MAX_DELTA_E))
        self.min_coverage = float(options.get("min_coverage", DEFAULT_MIN_COVERAGE))
        self.shows: list[str] | None = options.get("shows")
        self.min_share = float(options.get("min_share", DEFAULT_MIN_SHARE))
        # named colours alone: nothing to compare the palette with
        self.compares = not self.shows or "colours" in options or "against" in options

    @classmethod
    def check_case(cls, case: CaseSpec, options: Mapping[str, Any]) -> str | None:
        region = options.get("region")
        if region is not None and not (region[0] < region[2] and region[1] < region[3]):
            return f"'region' must be [x0, y0, x1, y1] with x0 < x1 and y0 < y1, got {list(region)}"
        if region is None and options.get("within", "image") != "image" and case.mask is None:
            return f"the colour grader's within: {options['within']} needs a 'mask' on the case"
        if "colours" in options or ("shows" in options and "against" not in options):
            return None
        return missing_comparison(case, options, "colour")

    def grade(self, case: CaseSpec, artifacts: Sequence[Artifact], context: GradeContext | None = None) -> Grade:
        compared = self.compares and not self.colours
        target = load_path(comparison_path(case, self.against, "colour")) if compared else None
        images = [a for a in artifacts if a.kind == "image"]
        if not images:
            names = (("matches",) if self.compares else ()) + (("shows",) if self.shows else ())
            return Grade(gates=tuple(Gate(name, False, "the output holds no image") for name in names))
        results: list[tuple[str, PaletteMatch | None, str]] = []
        shown: list[tuple[str, list[Shown]]] = []
        undecoded: list[str] = []
        label = ""
        for artifact in images:
            try:
                out = decode(artifact.data)
            except ValueError as exc:
                undecoded.append(f"{artifact.name}: does not decode ({exc})")
                results.append((artifact.name, None, undecoded[-1]))
                continue
            pixels, area = self._area_pixels(case, out, target)  # once per output, for both checks
            label = area.label
            if self.compares:
                results.append((artifact.name, self._compare(pixels, area, target), ""))
            if self.shows:
                shown.append((artifact.name, self._shown(pixels, area)))
        grades = [self._grade(results, label)] if self.compares else []
        if self.shows:
            grades.append(self._grade_shown(shown, label, undecoded))
        return Grade(
            gates=tuple(g for grade in grades for g in grade.gates), metrics=tuple(m for grade in grades for m in grade.metrics)
        )

    def _area_pixels(self, case: CaseSpec, output: Image.Image, target: Image.Image | None) -> tuple[np.ndarray, Area]:
        """The output at the working size (resized to the known image's size first) and the area to look at."""
        size = output.size if target is None else target.size
        if output.size != size:
            output = output.convert("RGBA").resize(size, Image.Resampling.BILINEAR)
        pixels = downscaled(output, WORK_SIDE)
        area = self._area(case, size, pixels.shape[:2])
        if not area.pixels.any():
            raise GraderError(f"colour: {area.label} of case {case.uid} holds no pixel")
        return pixels, area

    def _shown(self, pixels: np.ndarray, area: Area) -> list[Shown]:
        """How much of the area shows each named colour."""
        assert self.shows is not None
        return shown(palette_of(area_samples(pixels, area.pixels)), self.shows, self.max_delta_e)

    def _grade_shown(self, found: list[tuple[str, list[Shown]]], label: str, broken: list[str]) -> Grade:
        several = len(found) + len(broken) > 1
        failures = []
        for name, colours in found:
            for colour in colours:
                if colour.share < self.min_share:
                    failures.append(
                        f"{name + ': ' if several else ''}{colour.colour} covers {colour.share:.1%} of {label} "
                        f"(at least {self.min_share:.0%}); the nearest colour shown is {colour.nearest}, "
                        f"deltaE00 {colour.nearest_delta_e:.1f} (limit {self.max_delta_e:g})"
                    )
        if not failures and not broken:
            listing = ", ".join(f"{c.colour} {c.share:.0%}" for _, colours in found for c in colours)
            gate = Gate("shows", True, f"{label} shows every named colour on {self.min_share:.0%} or more: {listing}")
        else:
            gate = Gate("shows", False, "; ".join(broken + failures))
        if not found:
            return Grade(gates=(gate,))
        ratio = float(np.mean([min(c.share for c in colours) / self.min_share for _, colours in found]))
        said = f"the smallest share of {label} in a named colour, over {self.min_share:.0%} (1: just enough)"
        return Grade(gates=(gate,), metrics=(Metric("shown", ratio, said),))

    def _compare(self, pixels: np.ndarray, area: Area, target: Image.Image | None) -> PaletteMatch:
        """The palette match of one output (see :meth:`_area_pixels`) with the named colours or the known image."""
        if target is None:
            assert self.colours is not None
            palette = palette_of(area_samples(pixels, area.pixels))
            return compare_palettes(palette, named_palette(self.colours), self.max_delta_e, proportions=False)
        return palette_match(pixels, area.pixels, downscaled(target, WORK_SIDE), area.pixels, self.max_delta_e)

    def _area(self, case: CaseSpec, size: tuple[int, int], shape: tuple[int, ...]) -> Area:
        from .locality import box_pixels, editable_pixels

        height, width = shape[:2]
        if self.region is not None:
            x0, y0, x1, y1 = box_pixels(self.region, size)
            marked = np.zeros((size[1], size[0]), np.uint8)
            marked[y0:y1, x0:x1] = 255
            label = f"the region [{x0}, {y0}, {x1}, {y1}]"
        elif self.within == "image":
            return Area(np.ones((height, width), bool), "the image")
        else:
            if case.mask is None:
                raise GraderError(f"colour: case {case.uid} has no mask for within: {self.within}")
            editable, _ = editable_pixels(load_path(case.mask), self.mask_editable)
            if self.within == "outside_mask":
                editable = ~editable
            marked = editable.astype(np.uint8) * 255
            label = "the mask area" if self.within == "mask" else "the area outside the mask"
        scaled = Image.fromarray(marked).resize((width, height), Image.Resampling.NEAREST)
        return Area(np.asarray(scaled) > 0, label)

    def _grade(self, results: list[tuple[str, PaletteMatch | None, str]], label: str) -> Grade:
        known = f"the {self.against}" if self.colours is None else "the listed colours"
        matched = [(name, m) for name, m, _ in results if m is not None]
        broken = [note for _, m, note in results if m is None]
        failures = [self._says(name, m, label, known, len(results) > 1) for name, m in matched if m.coverage < self.min_coverage]
        passed = not failures and not broken
        if passed:
            worst = min(m.coverage for _, m in matched)
            reason = f"{label} matches {known} in colour on {worst:.0%} or more (limit {self.min_coverage:.0%})"
        else:
            reason = "; ".join(broken + failures)
        gate = Gate("matches", passed, reason)
        if not matched:
            return Grade(gates=(gate,))
        coverage = float(np.mean([m.coverage for _, m in matched]))
        listing = ", ".join(f"{name} {m.coverage:.1%}" for name, m in matched)
        how = "in their proportions, background left out" if self.colours is None else "any of them"
        said = f"how much of {label} is in the colours of {known} ({how}; deltaE00 <= {self.max_delta_e:g}): {listing}"
        metric = Metric("coverage", coverage, said)
        return Grade(gates=(gate,), metrics=(metric,))

    def _says(self, name: str, match: PaletteMatch, label: str, known: str, several: bool) -> str:
        """Why one output's area fails, naming the colours."""
        said = f"{name}: " if several else ""
        said += f"{label} matches {known} in colour on {match.coverage:.0%} (limit {self.min_coverage:.0%})"
        if match.stray_colour and match.stray_share >= STRAY_NAMED:
            has = "have" if self.colours else "has"
            said += (
                f": {match.stray_share:.0%} of it is {match.stray_colour} where {known} {has} {match.stray_nearest}"
                f" (deltaE00 {match.stray_delta_e:.1f}, limit {self.max_delta_e:g})"
            )
        if match.short_colour:
            said += (
                f"; {match.short_colour} covers {match.short_output:.0%} of it in the output"
                f" and {match.short_target:.0%} in {known}"
            )
        return said
