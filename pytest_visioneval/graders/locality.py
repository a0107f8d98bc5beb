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
ratio fails the gates (stretching it would hide or invent changes);
transparency is flattened onto white.

Edit models re-render the whole picture, so global drifts are taken out before
local changes are looked for (:mod:`.alignment`): the output's shift against
the input (measured over the kept pixels, sub-pixel) is undone, and a
per-channel gain and offset fitted on the kept pixels, and the blur that makes
them agree best, are applied to the input. Both drifts are bounded
(``max_shift``, ``max_tone_change``): a small one is a re-render, a large one
is a change a person sees. Then a pixel *changed* when it differs by more than
``pixel_tolerance`` in brightness or colour with both images softened and a
1-pixel match allowed, and changes are counted by the area they cover and
grouped into separate local changes (:mod:`.local_changes`).

Protected areas get a tighter limit (``max_changed_protected``): ``protect``
boxes (``[x0, y0, x1, y1]`` like ``region``, or ``{name, box}`` to name them
in reasons) and ``protect_mask`` (an image next to the case file, read like
``mask``: its transparent pixels, else its white ones, are protected).

Metrics (means over the outputs that decode; none when no output decodes):

* ``changed_outside`` - share of the pixels outside the area that changed (lower is better).
* ``changed_inside``  - share of the pixels inside the area that changed.
* ``largest_change_outside`` - share of the outside pixels held by the largest
  single local change (a changed letter, changed eyes; lower is better).
* ``faint_change_outside`` - the mean difference (0-255, lower is better) of the
  outside pixels that did *not* change past the tolerance, once the drifts are
  out: a faint change of part of the picture moves no pixel past the tolerance,
  but moves this mean.
* ``ssim_outside``    - SSIM (as in ``use: ssim``) averaged over the outside pixels only,
  after pasting the input's own pixels into the area of the output, so the edit
  cannot leak into the score through SSIM windows that straddle the border.
* ``shift`` - the whole output's shift against the input (px), ``tone_change`` -
  the largest per-channel mean change (0-255) of the kept pixels made by the
  fitted gain and offset.
* ``changed_protected`` - with ``protect``/``protect_mask``: the largest share
  of a protected area that changed.
* ``plain_marks_outside`` - how many local changes outside are marks on a plain
  part of the input (:mod:`.plain_marks`): a stray letter or a speck on a plain
  wall is seen at once, however few pixels it covers.
* ``grain_outside`` - the grain the output adds where the input is smooth,
  outside (:mod:`.grain`): noise over the picture cancels out in the softened
  comparison above, yet a person sees it at once.

Gates: ``preserved`` (every output keeps shift, tone change, changed_outside,
largest_change_outside, faint_change_outside, grain_outside (``max_grain``)
and the protected areas' changes within their limits, and shows no mark on a
plain part outside the area; the option ``plain_marks: false`` lets such marks
through) and, when
``min_changed_inside`` is set, ``edited`` (every output has changed_inside >= it). An output that does not decode fails both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from PIL import Image

from ..artifacts import Artifact
from ..cases.paths import PathEscapeError, resolve_inside
from ..cases.spec import CaseSpec
from ..errors import GraderError
from .alignment import NO_SHIFT, Shift, Tone, estimate_shift, fit_tone, inner, match_sharpness, undo_shift
from .base import Gate, Grade, GradeContext, Metric
from .grain import grain_added
from .imaging import decode, load_path, rgb_array, same_aspect
from .local_changes import Change, change_map, local_changes, softened
from .plain_marks import PlainMark, plain_marks
from .ssim import check_ssim_size, fit_to, ssim_map

# A pixel changed past this largest-RGB difference (0-255) after a light softening and a 1-pixel
# match (see local_changes.FINE_SIGMA and docs/graders.md for the measurements).
DEFAULT_PIXEL_TOLERANCE = 24
DEFAULT_MAX_CHANGED_OUTSIDE = 0.02
DEFAULT_MAX_LARGEST_CHANGE_OUTSIDE = 0.0003
# Once the tone drift is out, JPEG q60-95, shifts and resampling leave the unchanged pixels 0.3-2.5 apart.
DEFAULT_MAX_FAINT_CHANGE_OUTSIDE = 4.0
# Grain added where the input is smooth (grain.py): the shipped edits' references as JPEG q60-95, resize round
# trips and re-renders add 0.0 (benchmarks/locality_separation.py's legitimate variants at most 0.70); Gaussian
# noise of sigma 6 adds 2.8-4.4, of 8-40 3.7-28.4, of 25 (the self-test's least) 11 or more.
DEFAULT_MAX_GRAIN = 3.0
DEFAULT_MAX_SHIFT = 4.0
DEFAULT_MAX_TONE_CHANGE = 12.0
DEFAULT_MAX_CHANGED_PROTECTED = 0.002
# Larger images are compared at this size (long side): a change a person sees survives it, and
# the comparison stays well under half a second.
WORKING_SIDE = 512

_BOX = {"type": "array", "items": {"type": "number", "minimum": 0}, "minItems": 4, "maxItems": 4}


@dataclass(frozen=True)
class Area:
    """The editable pixels of the input image, and how to name them in reasons."""

    editable: np.ndarray  # bool, height x width
    label: str  # "the mask" or "the region"
    note: str = ""  # how it was derived, when worth saying


@dataclass(frozen=True)
class Protected:
    """An area that must stay as it is (``protect`` boxes, ``protect_mask``), and its name in reasons."""

    pixels: np.ndarray  # bool, height x width
    label: str


@dataclass(frozen=True)
class Measured:
    """What comparing one output with the input gives (shares are of pixels at the working size)."""

    changed_outside: float
    changed_inside: float
    faint_change_outside: float
    ssim_outside: float
    largest_change_outside: float
    largest: Change | None  # in input pixels
    local_changes: int  # how many separate local changes outside
    shift: Shift  # in input pixels
    tone: Tone
    tone_means: tuple[float, float, float]  # signed mean change per channel of the kept pixels (0-255)
    tone_change: float  # the largest per-channel mean absolute change (0-255)
    changed_protected: tuple[float, ...]  # per protected area
    plain_marks: int = 0  # local changes outside that are marks on a plain area (:mod:`.plain_marks`)
    plain_mark: PlainMark | None = None  # the largest of them, its box in input pixels
    grain: float = 0.0  # grain added where the input is smooth, outside (:mod:`.grain`; 0-255)


@dataclass(frozen=True)
class Comparison:
    name: str
    measured: Measured
    resized_from: tuple[int, int] | None


@dataclass(frozen=True)
class Mismatch:
    """An output that cannot be compared pixel by pixel: another aspect ratio than the input."""

    name: str
    size: tuple[int, int]


def measure(
    before: np.ndarray,
    after: np.ndarray,
    editable: np.ndarray,
    protected: Sequence[np.ndarray] = (),
    tolerance: float = DEFAULT_PIXEL_TOLERANCE,
) -> Measured:
    """Compare ``after`` with ``before`` (same-size RGB arrays, 0-255) outside ``editable``.

    Large images are compared at WORKING_SIDE; shift and the largest change's box are given in input pixels.
    """
    scale = min(1.0, WORKING_SIDE / max(editable.shape))
    if scale < 1.0:
        before, after = _shrunk(before, scale), _shrunk(after, scale)
        editable = _shrunk_map(editable, scale)
        protected = [_shrunk_map(p, scale) for p in protected]
    keep = ~editable
    shift = estimate_shift(before, after, keep)
    aligned = undo_shift(after, shift)
    valid = inner(editable.shape, shift.border)  # the strip a shift uncovers has no counterpart: not judged
    kept = keep & valid
    tone = fit_tone(before, aligned, kept)
    toned = tone.apply(before)
    tone_means, tone_change = _tone_drift(before, toned, kept)
    blur = match_sharpness(toned, aligned, kept)
    expected = _blurred(toned, blur)
    # Outside is measured with the area's own (expected) pixels pasted back, so the softening
    # cannot carry the edit across the border of the area.
    edit_removed = np.where(editable[..., None], expected, aligned)
    soft_expected = softened(expected)
    outside = change_map(expected, edit_removed, tolerance, soft_expected)
    full = change_map(expected, aligned, tolerance, soft_expected)
    changed_out = outside.changed & kept
    changes = local_changes(changed_out)
    kept_count = max(int(kept.sum()), 1)
    largest = changes[0] if changes else None
    marks = plain_marks(changes, expected, edit_removed, editable)
    faint = outside.difference[kept & ~changed_out]
    ssim = ssim_map(expected, edit_removed)
    grain = grain_added(expected, aligned, kept)
    return Measured(
        changed_outside=float(changed_out.sum() / kept_count),
        changed_inside=float(full.changed[editable & valid].mean()) if (editable & valid).any() else 0.0,
        faint_change_outside=float(faint.mean()) if faint.size else 0.0,
        ssim_outside=float(ssim[kept].mean()) if kept.any() else 1.0,
        largest_change_outside=largest.area / kept_count if largest else 0.0,
        largest=_scaled_change(largest, scale) if largest else None,
        local_changes=len(changes),
        shift=Shift(shift.dx / scale, shift.dy / scale) if shift.length else NO_SHIFT,
        tone=tone,
        tone_means=tone_means,
        tone_change=tone_change,
        changed_protected=tuple(_share(full.changed, p & valid) for p in protected),
        plain_marks=len(marks),
        plain_mark=PlainMark(_scaled_change(marks[0].change, scale), marks[0].contrast) if marks else None,
        grain=grain or 0.0,
    )


class LocalityGrader:
    # Its grade depends only on its options, the case, the files the case names, its protect_mask (see
    # memo_files) and the outputs' bytes: a warm run may take it from the call cache (run/grade_memo.py).
    memoizable: ClassVar[bool] = True
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "region": _BOX,
            "mask_editable": {"enum": ["transparent", "white", "black"]},
            "pixel_tolerance": {"type": "number", "minimum": 0, "maximum": 255, "default": DEFAULT_PIXEL_TOLERANCE},
            "max_changed_outside": {"type": "number", "minimum": 0, "maximum": 1, "default": DEFAULT_MAX_CHANGED_OUTSIDE},
            "max_largest_change_outside": {
                "type": "number",
                "minimum": 0,
                "maximum": 1,
                "default": DEFAULT_MAX_LARGEST_CHANGE_OUTSIDE,
            },
            "max_faint_change_outside": {
                "type": "number",
                "minimum": 0,
                "maximum": 255,
                "default": DEFAULT_MAX_FAINT_CHANGE_OUTSIDE,
            },
            "max_shift": {"type": "number", "minimum": 0, "maximum": 64, "default": DEFAULT_MAX_SHIFT},
            "max_tone_change": {"type": "number", "minimum": 0, "maximum": 255, "default": DEFAULT_MAX_TONE_CHANGE},
            "protect": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "oneOf": [
                        _BOX,
                        {
                            "type": "object",
                            "additionalProperties": False,
                            "required": ["name", "box"],
                            "properties": {"name": {"type": "string", "minLength": 1}, "box": _BOX},
                        },
                    ]
                },
            },
            "protect_mask": {"type": "string", "minLength": 1},
            "max_changed_protected": {
                "type": "number",
                "minimum": 0,
                "maximum": 1,
                "default": DEFAULT_MAX_CHANGED_PROTECTED,
            },
            "min_changed_inside": {"type": "number", "minimum": 0, "maximum": 1},
            "plain_marks": {"type": "boolean", "default": True},
            "max_grain": {"type": "number", "minimum": 0, "default": DEFAULT_MAX_GRAIN},
        },
    }

    def __init__(self, options: Mapping[str, Any]):
        self.region: list[float] | None = options.get("region")
        self.mask_editable: str | None = options.get("mask_editable")
        self.tolerance = float(options.get("pixel_tolerance", DEFAULT_PIXEL_TOLERANCE))
        self.max_changed_outside = float(options.get("max_changed_outside", DEFAULT_MAX_CHANGED_OUTSIDE))
        self.max_largest_change = float(options.get("max_largest_change_outside", DEFAULT_MAX_LARGEST_CHANGE_OUTSIDE))
        self.max_faint_change_outside = float(options.get("max_faint_change_outside", DEFAULT_MAX_FAINT_CHANGE_OUTSIDE))
        self.max_shift = float(options.get("max_shift", DEFAULT_MAX_SHIFT))
        self.max_tone_change = float(options.get("max_tone_change", DEFAULT_MAX_TONE_CHANGE))
        self.protect: list[Any] = list(options.get("protect", []))
        self.protect_mask: str | None = options.get("protect_mask")
        self.max_changed_protected = float(options.get("max_changed_protected", DEFAULT_MAX_CHANGED_PROTECTED))
        self.min_changed_inside: float | None = options.get("min_changed_inside")
        self.plain_marks = bool(options.get("plain_marks", True))
        self.max_grain = float(options.get("max_grain", DEFAULT_MAX_GRAIN))

    def memo_files(self, case: CaseSpec) -> list[Path]:
        """The files it reads besides those the case names: the ``protect_mask``, next to the case file."""
        if self.protect_mask is None:
            return []
        try:
            return [resolve_inside(case.source.parent, self.protect_mask)]
        except PathEscapeError:
            return []  # grading fails on it, and a failed grade is never stored

    @classmethod
    def check_case(cls, case: CaseSpec, options: Mapping[str, Any]) -> str | None:
        if not case.images:
            return "the locality grader compares the output with the first input image, which this case lacks"
        region = options.get("region")
        if region is None and case.mask is None:
            return "the locality grader needs the editable area: a 'mask' on the case or the 'region' option"
        for name, box in [("region", region)] + [("protect", _box_of(item)) for item in options.get("protect", [])]:
            if box is not None and not (box[0] < box[2] and box[1] < box[3]):
                return f"'{name}' boxes must be [x0, y0, x1, y1] with x0 < x1 and y0 < y1, got {list(box)}"
        if options.get("protect_mask") is not None:
            try:
                path = resolve_inside(case.source.parent, options["protect_mask"])
            except PathEscapeError as exc:
                return f"'protect_mask': {exc}"
            if not path.is_file():
                return f"'protect_mask' {options['protect_mask']!r} is not a file next to the case file"
        return None

    def grade(self, case: CaseSpec, artifacts: Sequence[Artifact], context: GradeContext | None = None) -> Grade:
        if not case.images:
            raise GraderError(f"locality: case {case.uid} has no input image")
        source = load_path(case.images[0])
        check_ssim_size(source, case.images[0])
        area = self._area(case, source.size)
        protected = self._protected(case, source.size)
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
            fitted, resized = fit_to(output, source.size)
            found = measure(before, rgb_array(fitted), area.editable, [p.pixels for p in protected], self.tolerance)
            compared.append(Comparison(artifact.name, found, output.size if resized else None))
        if not images:
            broken.append("the output holds no image")
        gates = [self._preserved(compared, broken, area, protected)]
        if self.min_changed_inside is not None:
            gates.append(self._edited(compared, broken, area, float(self.min_changed_inside)))
        return Grade(gates=tuple(gates), metrics=self._metrics(compared, area, protected))

    # -- the editable area and the protected ones ------------------------------
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
        editable, convention, scaled_from = _read_mask(path, size, self.mask_editable)
        note = f"{convention} = editable"
        if scaled_from is not None:
            note += f", mask scaled from {scaled_from[0]}x{scaled_from[1]}"
        return Area(editable, "the mask", note)

    def _protected(self, case: CaseSpec, size: tuple[int, int]) -> list[Protected]:
        found: list[Protected] = []
        for item in self.protect:
            box = _box_of(item)
            x0, y0, x1, y1 = box_pixels(box, size)
            pixels = np.zeros((size[1], size[0]), dtype=bool)
            pixels[y0:y1, x0:x1] = True
            label = f"'{item['name']}'" if isinstance(item, Mapping) else f"[{x0}, {y0}, {x1}, {y1}]"
            if not pixels.any():
                raise GraderError(f"locality: the protected area {label} holds no pixel of the input")
            found.append(Protected(pixels, label))
        if self.protect_mask is not None:
            try:
                path = resolve_inside(case.source.parent, self.protect_mask)
            except PathEscapeError as exc:
                raise GraderError(f"locality: 'protect_mask': {exc}") from exc
            # The protected pixels of a protect_mask read like the editable ones of a mask: transparent, else white.
            pixels, _, _ = _read_mask(path, size, None)
            if not pixels.any():
                raise GraderError(f"locality: the protect_mask {self.protect_mask} marks no pixel as protected")
            found.append(Protected(pixels, f"'{self.protect_mask}'"))
        return found

    # -- gates and metrics ---------------------------------------------------
    def _preserved(self, compared: list[Comparison], broken: list[str], area: Area, protected: list[Protected]) -> Gate:
        limit, faint_limit = self.max_changed_outside, self.max_faint_change_outside

        def says(c: Comparison) -> str:
            m = c.measured
            value, bound = percents(m.changed_outside, limit)
            parts = [f"{value} of pixels changed outside {area.label} (limit {bound})"]
            if m.largest_change_outside > self.max_largest_change and m.largest is not None:
                value, bound = percents(m.largest_change_outside, self.max_largest_change)
                x0, y0, x1, y1 = m.largest.box
                parts.append(f"one local change covers {value} of the outside (limit {bound}), in x {x0}-{x1}, y {y0}-{y1}")
            if self.plain_marks and m.plain_mark is not None:
                x0, y0, x1, y1 = m.plain_mark.change.box
                many = f" ({m.plain_marks} in all)" if m.plain_marks > 1 else ""
                parts.append(
                    f"a new mark on a plain part of the picture{many}: {m.plain_mark.change.area} px in x {x0}-{x1}, "
                    f"y {y0}-{y1}, differing by up to {m.plain_mark.contrast:.0f}/255 where the input has no detail"
                )
            if m.grain > self.max_grain:
                parts.append(
                    f"the picture outside {area.label} is grainy: its smooth parts step {m.grain:.1f}/255 more from "
                    f"their 3x3 median than the input's (75th percentile; limit {self.max_grain:g})"
                )
            if m.faint_change_outside > faint_limit:
                parts.append(
                    f"everything else outside {area.label} changed faintly: mean difference "
                    f"{m.faint_change_outside:.1f} (0-255, limit {faint_limit:g})"
                )
            if m.shift.length > self.max_shift:
                parts.append(
                    f"the whole image shifted by {m.shift.length:.1f} px (dx {m.shift.dx:+.1f}, dy {m.shift.dy:+.1f}; "
                    f"limit {self.max_shift:g})"
                )
            if m.tone_change > self.max_tone_change:
                parts.append(_tone_reason(m, self.max_tone_change))
            for share, zone in zip(m.changed_protected, protected, strict=True):
                if share > self.max_changed_protected:
                    value, bound = percents(share, self.max_changed_protected)
                    parts.append(f"{value} of the protected area {zone.label} changed (limit {bound})")
            said = "; ".join(parts)
            taken_out = _taken_out(m)
            return said + (f" ({taken_out} taken out)" if taken_out and passes(c) else "")

        def passes(c: Comparison) -> bool:
            m = c.measured
            return (
                m.changed_outside <= limit
                and m.largest_change_outside <= self.max_largest_change
                and m.faint_change_outside <= faint_limit
                and m.shift.length <= self.max_shift
                and m.tone_change <= self.max_tone_change
                and all(share <= self.max_changed_protected for share in m.changed_protected)
                and not (self.plain_marks and m.plain_marks)
                and m.grain <= self.max_grain
            )

        return _gate("preserved", compared, broken, area, passes, says)

    def _edited(self, compared: list[Comparison], broken: list[str], area: Area, floor: float) -> Gate:
        def says(c: Comparison) -> str:
            value, bound = percents(c.measured.changed_inside, floor)
            return f"{value} of pixels changed inside {area.label} (need at least {bound})"

        return _gate("edited", compared, broken, area, lambda c: c.measured.changed_inside >= floor, says)

    def _metrics(self, compared: list[Comparison], area: Area, protected: list[Protected]) -> tuple[Metric, ...]:
        if not compared:
            return ()
        outside = int((~area.editable).sum())
        inside = int(area.editable.sum())
        tol = f"by more than {self.tolerance:g} (largest RGB difference, 0-255, with 1-pixel shifts allowed)"
        source = f" ({area.note})" if area.note else ""
        after = " once the whole image's shift and tone drift were taken out"

        def listing(values: list[float], fmt: str) -> str:
            if len(compared) == 1:
                return format(values[0], fmt)
            return "mean of " + ", ".join(f"{c.name} {format(v, fmt)}" for c, v in zip(compared, values, strict=True))

        def values(get: Callable[[Measured], float]) -> list[float]:
            return [get(c.measured) for c in compared]

        out_values = values(lambda m: m.changed_outside)
        largest_values = values(lambda m: m.largest_change_outside)
        faint_values = values(lambda m: m.faint_change_outside)
        in_values = values(lambda m: m.changed_inside)
        ssim_values = values(lambda m: m.ssim_outside)
        shift_values = values(lambda m: m.shift.length)
        tone_values = values(lambda m: m.tone_change)
        mark_values = values(lambda m: m.plain_marks)
        grain_values = values(lambda m: m.grain)
        metrics = [
            Metric(
                "changed_outside",
                float(np.mean(out_values)),
                f"{listing(out_values, '.2%')} of the {outside} pixels outside {area.label}{source} changed {tol}{after}",
                higher_is_better=False,
            ),
            Metric(
                "changed_inside",
                float(np.mean(in_values)),
                f"{listing(in_values, '.2%')} of the {inside} pixels inside {area.label}{source} changed {tol}",
            ),
            Metric(
                "largest_change_outside",
                float(np.mean(largest_values)),
                f"the largest single local change outside {area.label} holds {listing(largest_values, '.3%')} "
                "of its pixels (changed pixels within 2% of the image's long side of each other are one change)",
                higher_is_better=False,
            ),
            Metric(
                "faint_change_outside",
                float(np.mean(faint_values)),
                f"mean difference {listing(faint_values, '.2f')} (0-255) of the pixels outside {area.label} "
                f"that did not change {tol}{after}",
                higher_is_better=False,
            ),
            Metric(
                "ssim_outside",
                float(np.mean(ssim_values)),
                f"SSIM {listing(ssim_values, '.4f')} over the {outside} pixels outside {area.label}, the edit masked out{after}",
            ),
            Metric(
                "shift",
                float(np.mean(shift_values)),
                f"the whole output sits {listing(shift_values, '.1f')} px off the input (measured outside {area.label})",
                higher_is_better=False,
            ),
            Metric(
                "tone_change",
                float(np.mean(tone_values)),
                f"the whole output's fitted gain and offset change the pixels outside {area.label} by "
                f"{listing(tone_values, '.1f')} on average (0-255, the most-changed channel)",
                higher_is_better=False,
            ),
            Metric(
                "plain_marks_outside",
                float(np.mean(mark_values)),
                f"{listing(mark_values, 'g')} local change(s) outside {area.label} stand out on a plain part of the "
                "input (a stray mark, a speck, a letter)",
                higher_is_better=False,
            ),
            Metric(
                "grain_outside",
                float(np.mean(grain_values)),
                f"grain added outside {area.label} where the input is smooth: {listing(grain_values, '.1f')} (0-255, "
                "the 75th percentile of each pixel's step from its 3x3 median, output less input)",
                higher_is_better=False,
            ),
        ]
        if protected:
            protected_values = values(lambda m: max(m.changed_protected))
            names = ", ".join(p.label for p in protected)
            metrics.append(
                Metric(
                    "changed_protected",
                    float(np.mean(protected_values)),
                    f"{listing(protected_values, '.2%')} of the protected area {names} changed (the most-changed one) {tol}",
                    higher_is_better=False,
                )
            )
        return tuple(metrics)


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


def _tone_reason(m: Measured, limit: float) -> str:
    mean = sum(m.tone_means) / 3
    scope = f"(mean change of the kept pixels, 0-255, limit {limit:g})"
    if abs(mean) >= 0.7 * m.tone_change:
        return f"the whole image {'brightened' if mean > 0 else 'darkened'} by {abs(mean):.1f} {scope}"
    r, g, b = m.tone_means
    return f"the whole image's colours or contrast changed by {m.tone_change:.1f} (R {r:+.1f}, G {g:+.1f}, B {b:+.1f}) {scope}"


def _taken_out(m: Measured) -> str:
    """The drifts that were undone before comparing, when worth saying."""
    said = []
    if m.shift.length >= 0.5:
        said.append(f"a {m.shift.length:.1f} px shift")
    if m.tone_change >= 1.0:
        said.append(f"a tone change of {m.tone_change:.1f}")
    return " and ".join(said)


def _box_of(item: Any) -> Sequence[float]:
    return item["box"] if isinstance(item, Mapping) else item


def _read_mask(path: Path, size: tuple[int, int], convention: str | None) -> tuple[np.ndarray, str, tuple[int, int] | None]:
    """The marked pixels of a mask image at ``size``, the convention used, and the mask's own size when scaled."""
    mask = load_path(path)
    marked, used = editable_pixels(mask, convention)
    if mask.size == size:
        return marked, used, None
    scaled = Image.fromarray(marked).resize(size, Image.Resampling.NEAREST)
    return np.asarray(scaled, dtype=bool), used, mask.size


def _tone_drift(before: np.ndarray, toned: np.ndarray, kept: np.ndarray) -> tuple[tuple[float, float, float], float]:
    """Signed mean change per channel, and the largest mean absolute one, that the fitted tone makes.

    Measured where neither the input nor its toned value sits at 0 or 255: white that stays white
    under a brightening is clipped, not unchanged, and would hide the drift of everything else.
    """
    means, absolute = [], []
    for channel in range(3):
        x, y = before[..., channel][kept], toned[..., channel][kept]
        free = (x > 0) & (x < 255) & (y > 0) & (y < 255)
        change = (y - x)[free] if free.any() else np.zeros(1, dtype=np.float32)
        means.append(float(change.mean()))
        absolute.append(float(np.abs(change).mean()))
    return (means[0], means[1], means[2]), max(absolute)


def _blurred(pixels: np.ndarray, sigma: float) -> np.ndarray:
    if sigma == 0:
        return pixels
    from scipy import ndimage

    return np.asarray(ndimage.gaussian_filter(pixels, (sigma, sigma, 0)), dtype=np.float32)


def _share(changed: np.ndarray, where: np.ndarray) -> float:
    return float(changed[where].mean()) if where.any() else 0.0


def _shrunk(pixels: np.ndarray, scale: float) -> np.ndarray:
    height, width = pixels.shape[:2]
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    image = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
    return np.asarray(image.resize(size, Image.Resampling.BOX), dtype=np.float32)


def _shrunk_map(marked: np.ndarray, scale: float) -> np.ndarray:
    height, width = marked.shape
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    return np.asarray(Image.fromarray(marked).resize(size, Image.Resampling.NEAREST), dtype=bool)


def _scaled_change(change: Change, scale: float) -> Change:
    if scale == 1.0:
        return change
    x0, y0, x1, y1 = change.box
    return Change(round(change.area / scale**2), (round(x0 / scale), round(y0 / scale), round(x1 / scale), round(y1 / scale)))


def _mismatch_reason(mismatch: Mismatch, input_size: tuple[int, int]) -> str:
    width, height = mismatch.size
    return (
        f"{mismatch.name} is {width}x{height}, the input {input_size[0]}x{input_size[1]}: another aspect ratio "
        "cannot be compared pixel by pixel (stretching it would hide or invent changes)"
    )


def percents(value: float, bound: float) -> tuple[str, str]:
    """``value`` and ``bound`` as percentages with enough decimals to tell them apart (2.02% vs 2.00%).

    A small non-zero bound gets the decimals it needs to show (0.03%, not 0.0%).
    """
    for digits in (1, 2, 3):
        shown = f"{value:.{digits}%}", f"{bound:.{digits}%}"
        bound_shows = bound == 0 or shown[1].strip("0.%") != ""
        if bound_shows and (value == bound or shown[0] != shown[1]):
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
