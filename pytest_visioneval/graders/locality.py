"""``use: locality`` - did an edit stay inside its editable area?

Compares each output image with the case's first input image. The editable
area is the case's ``mask`` or the ``region`` option (which wins when both
are there):

* ``mask``: by default, as the OpenAI images API reads it, the fully
  transparent pixels (alpha 0) are editable; a mask without any transparent
  pixel is read as white = editable (luminance >= 128). ``mask_editable:
  transparent|white|black`` forces one reading (white/black ignore alpha).
  A mask of another size than the input is scaled to it (nearest neighbour).
* ``region: [x0, y0, x1, y1]``: a box, right and bottom edges exclusive, in
  pixels, or in fractions of width/height when every value is <= 1.

An output of another size but the same aspect ratio as the input is resized
(bilinear) to it first, and the reasons say so; an output of another aspect
ratio fails the gates (stretching it would hide or invent changes). A pixel
*changed* when its largest absolute RGB difference exceeds ``pixel_tolerance``
once both images are softened a little and a 1-pixel shift is allowed
(:func:`~pytest_visioneval.graders.imaging.perceived_difference`), so
re-encoding noise and a 1-pixel misalignment of a correct edit do not count;
transparency is flattened onto white.

Metrics (means over the outputs that decode; none when no output decodes):

* ``changed_outside`` - share of the pixels outside the area that changed (lower is better).
* ``changed_inside``  - share of the pixels inside the area that changed.
* ``faint_change_outside`` - the mean difference (0-255, lower is better) of the
  outside pixels that did *not* change past the tolerance: a faint change of
  everything (all darkened by 10 or 20) moves no pixel past the tolerance, but
  moves this mean.
* ``ssim_outside``    - SSIM (as in ``use: ssim``) averaged over the outside pixels only,
  after pasting the input's own pixels into the area of the output, so the edit
  cannot leak into the score through SSIM windows that straddle the border.

Gates: ``preserved`` (every output has changed_outside <= ``max_changed_outside``
and faint_change_outside <= ``max_faint_change_outside``) and, when ``min_changed_inside`` is set, ``edited`` (every output has
changed_inside >= it). An output that does not decode fails both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from PIL import Image

from ..artifacts import Artifact
from ..cases.spec import CaseSpec
from ..errors import GraderError
from .base import Gate, Grade, GradeContext, Metric
from .imaging import decode, load_path, perceived_difference, rgb_array, same_aspect
from .ssim import check_ssim_size, fit_to, ssim_map

# A pixel changed past this largest-RGB difference (0-255) after softening and a 1-pixel
# shift (see imaging.CHANGE_TOLERANCE for the measurements on JPEG re-encodes).
DEFAULT_PIXEL_TOLERANCE = 24
DEFAULT_MAX_CHANGED_OUTSIDE = 0.02
# JPEG q85 re-encodes and 1-pixel shifts of the cookbook's edits and of scikit-image's photos keep the
# mean difference of the unchanged pixels at 1.0-2.5; everything darkened by 10 or 20 gives 10 or 20.
DEFAULT_MAX_FAINT_CHANGE_OUTSIDE = 4.0


@dataclass(frozen=True)
class Area:
    """The editable pixels of the input image, and how to name them in reasons."""

    editable: np.ndarray  # bool, height x width
    label: str  # "the mask" or "the region"
    note: str = ""  # how it was derived, when worth saying


@dataclass(frozen=True)
class Comparison:
    name: str
    changed_outside: float
    changed_inside: float
    faint_change_outside: float
    ssim_outside: float
    resized_from: tuple[int, int] | None


@dataclass(frozen=True)
class Mismatch:
    """An output that cannot be compared pixel by pixel: another aspect ratio than the input."""

    name: str
    size: tuple[int, int]


class LocalityGrader:
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "region": {"type": "array", "items": {"type": "number", "minimum": 0}, "minItems": 4, "maxItems": 4},
            "mask_editable": {"enum": ["transparent", "white", "black"]},
            "pixel_tolerance": {"type": "number", "minimum": 0, "maximum": 255, "default": DEFAULT_PIXEL_TOLERANCE},
            "max_changed_outside": {"type": "number", "minimum": 0, "maximum": 1, "default": DEFAULT_MAX_CHANGED_OUTSIDE},
            "max_faint_change_outside": {
                "type": "number",
                "minimum": 0,
                "maximum": 255,
                "default": DEFAULT_MAX_FAINT_CHANGE_OUTSIDE,
            },
            "min_changed_inside": {"type": "number", "minimum": 0, "maximum": 1},
        },
    }

    def __init__(self, options: Mapping[str, Any]):
        self.region: list[float] | None = options.get("region")
        self.mask_editable: str | None = options.get("mask_editable")
        self.tolerance = float(options.get("pixel_tolerance", DEFAULT_PIXEL_TOLERANCE))
        self.max_changed_outside = float(options.get("max_changed_outside", DEFAULT_MAX_CHANGED_OUTSIDE))
        self.max_faint_change_outside = float(options.get("max_faint_change_outside", DEFAULT_MAX_FAINT_CHANGE_OUTSIDE))
        self.min_changed_inside: float | None = options.get("min_changed_inside")

    @classmethod
    def check_case(cls, case: CaseSpec, options: Mapping[str, Any]) -> str | None:
        if not case.images:
            return "the locality grader compares the output with the first input image, which this case lacks"
        region = options.get("region")
        if region is None and case.mask is None:
            return "the locality grader needs the editable area: a 'mask' on the case or the 'region' option"
        if region is not None and not (region[0] < region[2] and region[1] < region[3]):
            return f"'region' must be [x0, y0, x1, y1] with x0 < x1 and y0 < y1, got {list(region)}"
        return None

    def grade(self, case: CaseSpec, artifacts: Sequence[Artifact], context: GradeContext | None = None) -> Grade:
        if not case.images:
            raise GraderError(f"locality: case {case.uid} has no input image")
        source = load_path(case.images[0])
        check_ssim_size(source, case.images[0])
        area = self._area(case, source.size)
        before = rgb_array(source)
        images = [a for a in artifacts if a.kind == "image"]
        compared: list[Comparison] = []
        broken: list[str] = []
        for artifact in images:
            try:
                output = decode(artifact.data)
            except ValueError as exc:
                broken.append(f"{artifact.name} does not decode ({exc})")
                continue
            if not same_aspect(output.size, source.size):
                broken.append(_mismatch_reason(Mismatch(artifact.name, output.size), source.size))
                continue
            compared.append(self._compare(artifact.name, before, output, area))
        if not images:
            broken.append("the output holds no image")
        gates = [self._preserved(compared, broken, area)]
        if self.min_changed_inside is not None:
            gates.append(self._edited(compared, broken, area, float(self.min_changed_inside)))
        return Grade(gates=tuple(gates), metrics=self._metrics(compared, area))

    # -- the editable area -------------------------------------------------
    def _area(self, case: CaseSpec, size: tuple[int, int]) -> Area:
        if self.region is not None:
            x0, y0, x1, y1 = box_pixels(self.region, size)
            editable = np.zeros((size[1], size[0]), dtype=bool)
            editable[y0:y1, x0:x1] = True
            area = Area(editable, "the region", f"region [{x0}, {y0}, {x1}, {y1}] px")
            where = f"region {list(self.region)}"
        elif case.mask is not None:
            area = self._mask_area(case.mask, size)
            where = f"mask {case.mask}"
        else:
            raise GraderError(f"locality: case {case.uid} has neither a mask nor a 'region' option")
        if not area.editable.any():
            raise GraderError(f"locality: the {where} marks no pixel of the input as editable")
        if area.editable.all():
            raise GraderError(f"locality: the {where} marks every pixel as editable, so nothing is left to preserve")
        return area

    def _mask_area(self, path: Path, size: tuple[int, int]) -> Area:
        mask = load_path(path)
        editable, convention = editable_pixels(mask, self.mask_editable)
        note = f"{convention} = editable"
        if mask.size != size:
            scaled = Image.fromarray(editable).resize(size, Image.Resampling.NEAREST)
            editable = np.asarray(scaled, dtype=bool)
            note += f", mask scaled from {mask.width}x{mask.height}"
        return Area(editable, "the mask", note)

    # -- one output ----------------------------------------------------------
    def _compare(self, name: str, before: np.ndarray, output: Image.Image, area: Area) -> Comparison:
        height, width = area.editable.shape
        fitted, resized = fit_to(output, (width, height))
        after = rgb_array(fitted)
        inside = area.editable
        # Outside is measured with the area's own pixels pasted back, so the softening of
        # perceived_difference cannot carry an edit across the border of the area.
        edit_removed = np.where(inside[..., None], before, after)
        outside_difference = perceived_difference(before, edit_removed)[~inside]
        inside_changed = perceived_difference(before, after)[inside] > self.tolerance
        ssim = ssim_map(before, edit_removed)
        return Comparison(
            name,
            changed_outside=float((outside_difference > self.tolerance).mean()),
            changed_inside=float(inside_changed.mean()),
            faint_change_outside=_faint_mean(outside_difference, self.tolerance),
            ssim_outside=float(ssim[~inside].mean()),
            resized_from=output.size if resized else None,
        )

    # -- gates and metrics ---------------------------------------------------
    def _preserved(self, compared: list[Comparison], broken: list[str], area: Area) -> Gate:
        limit, faint_limit = self.max_changed_outside, self.max_faint_change_outside

        def says(c: Comparison) -> str:
            value, bound = percents(c.changed_outside, limit)
            said = f"{value} of pixels changed outside {area.label} (limit {bound})"
            if c.faint_change_outside > faint_limit:
                said += (
                    f"; everything else outside {area.label} changed faintly: mean difference "
                    f"{c.faint_change_outside:.1f} (0-255, limit {faint_limit:g})"
                )
            return said

        def passes(c: Comparison) -> bool:
            return c.changed_outside <= limit and c.faint_change_outside <= faint_limit

        return _gate("preserved", compared, broken, area, passes, says)

    def _edited(self, compared: list[Comparison], broken: list[str], area: Area, floor: float) -> Gate:
        def says(c: Comparison) -> str:
            value, bound = percents(c.changed_inside, floor)
            return f"{value} of pixels changed inside {area.label} (need at least {bound})"

        return _gate("edited", compared, broken, area, lambda c: c.changed_inside >= floor, says)

    def _metrics(self, compared: list[Comparison], area: Area) -> tuple[Metric, ...]:
        if not compared:
            return ()
        outside = int((~area.editable).sum())
        inside = int(area.editable.sum())
        tol = f"by more than {self.tolerance:g} (largest RGB difference, 0-255, with 1-pixel shifts allowed)"
        source = f" ({area.note})" if area.note else ""

        def listing(values: list[float], fmt: str) -> str:
            if len(compared) == 1:
                return format(values[0], fmt)
            return "mean of " + ", ".join(f"{c.name} {format(v, fmt)}" for c, v in zip(compared, values, strict=True))

        out_values = [c.changed_outside for c in compared]
        faint_values = [c.faint_change_outside for c in compared]
        in_values = [c.changed_inside for c in compared]
        ssim_values = [c.ssim_outside for c in compared]
        return (
            Metric(
                "changed_outside",
                float(np.mean(out_values)),
                f"{listing(out_values, '.2%')} of the {outside} pixels outside {area.label}{source} changed {tol}",
                higher_is_better=False,
            ),
            Metric(
                "changed_inside",
                float(np.mean(in_values)),
                f"{listing(in_values, '.2%')} of the {inside} pixels inside {area.label}{source} changed {tol}",
            ),
            Metric(
                "faint_change_outside",
                float(np.mean(faint_values)),
                f"mean difference {listing(faint_values, '.2f')} (0-255) of the pixels outside {area.label} "
                f"that did not change {tol}",
                higher_is_better=False,
            ),
            Metric(
                "ssim_outside",
                float(np.mean(ssim_values)),
                f"SSIM {listing(ssim_values, '.4f')} over the {outside} pixels outside {area.label}, the edit masked out",
            ),
        )


def _gate(
    name: str,
    compared: list[Comparison],
    broken: list[str],
    area: Area,
    passes: Callable[[Comparison], bool],
    says: Callable[[Comparison], str],
) -> Gate:
    """Passes when every output passes; an output that does not decode fails it."""
    several = len(compared) + len(broken) > 1
    parts = [(f"{c.name}: " if several else "") + says(c) + _resize_note(c, area) for c in compared]
    return Gate(name, not broken and all(passes(c) for c in compared), "; ".join(parts + broken))


def _faint_mean(difference: np.ndarray, tolerance: float) -> float:
    """Mean of the differences at or below ``tolerance``: the drift of what counts as unchanged."""
    faint = difference[difference <= tolerance]
    return float(faint.mean()) if faint.size else 0.0


def _mismatch_reason(mismatch: Mismatch, input_size: tuple[int, int]) -> str:
    width, height = mismatch.size
    return (
        f"{mismatch.name} is {width}x{height}, the input {input_size[0]}x{input_size[1]}: another aspect ratio "
        "cannot be compared pixel by pixel (stretching it would hide or invent changes)"
    )


def percents(value: float, bound: float) -> tuple[str, str]:
    """``value`` and ``bound`` as percentages with enough decimals to tell them apart (2.02% vs 2.00%)."""
    for digits in (1, 2, 3):
        shown = f"{value:.{digits}%}", f"{bound:.{digits}%}"
        if value == bound or shown[0] != shown[1]:
            break
    return shown


def _resize_note(c: Comparison, area: Area) -> str:
    if c.resized_from is None:
        return ""
    height, width = area.editable.shape
    return f" (output resized from {c.resized_from[0]}x{c.resized_from[1]} to the input's {width}x{height})"


def box_pixels(region: Sequence[float], size: tuple[int, int]) -> tuple[int, int, int, int]:
    """``[x0, y0, x1, y1]`` in pixels (or in fractions when every value <= 1), clipped to ``size``."""
    width, height = size
    x0, y0, x1, y1 = (float(v) for v in region)
    if all(v <= 1 for v in (x0, y0, x1, y1)):
        x0, x1, y0, y1 = x0 * width, x1 * width, y0 * height, y1 * height
    return (
        min(max(round(x0), 0), width),
        min(max(round(y0), 0), height),
        min(max(round(x1), 0), width),
        min(max(round(y1), 0), height),
    )


def editable_pixels(mask: Image.Image, convention: str | None) -> tuple[np.ndarray, str]:
    """Boolean editable map of ``mask`` and the convention used to read it.

    With no ``convention``: transparent pixels when the mask has any, else white.
    """
    alpha = np.asarray(mask.convert("RGBA"))[..., 3]
    if convention is None:
        convention = "transparent" if (alpha == 0).any() else "white"
    if convention == "transparent":
        return alpha == 0, convention
    luminance = np.asarray(mask.convert("L"))
    return (luminance >= 128 if convention == "white" else luminance < 128), convention
