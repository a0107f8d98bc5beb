"""``use: image`` - properties of the output images, as gates.

Gates (each only when it applies or is configured):

* ``decodes``   - there is at least one image artifact and every one decodes; each within the
  pixel limit of one image and all together within the limit of a case (``cases.image_limits``:
  counted from their headers, and past it no image is decoded and no other gate is graded).
* ``count``     - exactly ``options.count`` images.
* ``format``    - each image's format is one of ``options.formats``.
* ``size``      - each image is ``options.width`` x ``options.height``.
* ``jpeg_quality`` - when an image is a JPEG file: it was saved at a quality of at least
  ``min_jpeg_quality`` (default 10; 0 turns the gate off), as its quantisation tables tell
  (:mod:`.jpeg_quality`). Below that the 8x8 blocks and the halos around edges are plain at a glance.
* ``aspect``    - each image's width/height is within ``aspect_tolerance`` of ``options.aspect``.
* ``not_blank`` - each image shows something: after flattening transparency onto
  white and averaging away per-pixel noise (box filter down to 256 px), at
  least ``min_content`` of its pixels are off the dominant colour and the
  luminance std is at least ``blank_std``. A fully transparent image, a flat
  colour and a flat colour with faint noise are blank.
* ``matches_input`` - for editing cases (``match_input``, default on for them),
  each output has the aspect ratio of the first input image: an edit returned
  at another aspect would be stretched by any pixel comparison.
* ``requested_size`` - when the case's ``params.size`` asks for ``WxH`` and no
  ``width``/``height``/``aspect`` option is set, each output has that aspect ratio
  (endpoints may scale, so the size itself is not required).
* ``fills_canvas`` - each image's content fills its canvas as a person expects (see
  ``canvas_extent``: the box around the pixels off the background colour). With a reference
  image, the box is at least ``min_extent_of_reference`` of the reference's own in width and in
  height; without one, it spans at least ``min_extent`` of the canvas in its longer direction.
  A correct picture shrunk into a corner of an empty canvas fails; ``fills_canvas: false`` turns
  it off.
* ``named_colours`` - for generation cases (``named_colours``, default on for them) whose prompt
  names colours in words ("a blue header", "orange and teal bars"), each image shows every one:
  a solid patch of that colour family covers at least ``min_named_share`` of it
  (:mod:`.colour_words`: hue families, quoted text, names and negated colours left out; black,
  white and grey name no hue). A picture turned grey or to other hues, whose named colours are
  gone, fails; another shade of the same colour passes.
* ``differs_from_input`` - for editing cases, no output is the input again: an
  output counts as the input when fewer than ``min_changed`` of its pixels differ
  from it by more than 24 (0-255; both softened, a 1-pixel shift allowed: see
  ``imaging.perceived_difference``), so a
  re-saved JPEG or a copy with a few pixels touched fails like a byte-identical one.

No gate needs more than :data:`WORK_SIDE` px of an image: format and size come from its file, and
an output or input with a longer side of twice that or more is decoded reduced by a whole factor
(``imaging.decode_picture``), so a 40 Mpx output is never held, or compared, at full size.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from PIL import Image

from ..artifacts import Artifact
from ..cases.spec import CaseSpec
from .base import Gate, Grade, GradeContext

if TYPE_CHECKING:
    import numpy as np

    from .imaging import Picture

# ``imaging`` (and with it numpy) is imported where an image is graded, not here: collection
# imports this module for the options schema of nearly every case file, and must stay light.

# Blank below 0.2% of content pixels: a 64x64 icon on a 1024x1024 canvas is 0.4%.
DEFAULT_MIN_CONTENT = 0.002
# An edit changes at least 0.2% of the pixels (a word of a poster); a JPEG copy of the input changes none.
DEFAULT_MIN_CHANGED = 0.002
# The content's box against the reference's: legitimate copies of 104 shipped, scikit-image and
# synthetic pictures (JPEG q60-95, 1-2 px shifts, brightness +-5, resize round trips) kept at least
# 0.944 of it; of 624 copies shrunk by 0.3-0.8 onto an empty canvas of their own background or white,
# one reached 0.932, the rest at most 0.824 (benchmarks/text_layout_separation.py; docs/graders.md).
DEFAULT_MIN_EXTENT_OF_REFERENCE = 0.9
# Without a reference: the box's longer side, as a share of the canvas. The shipped references span
# 0.78-1.0 there; half the canvas fails only content shrunk by half or more.
DEFAULT_MIN_EXTENT = 0.5
# JPEG files saved below this quality fail ``jpeg_quality``. Copies of the shipped promo flyers show halos around
# every letter and a shifted background tint at q9 and below (plain at a glance at q2-6); from q10 to q20 the halos
# are faint. Libraries and services save at 75-95 by default.
DEFAULT_MIN_JPEG_QUALITY = 10
# The longest side, in px, the gates work at (between this and twice it after a whole-factor reduction):
# every shipped image is below twice it, so they are graded at full size; a 7300 x 5470 output and its
# input are compared at 2434 x 1824, where a changed word of a poster still spans many pixels.
WORK_SIDE = 2048
# A colour the prompt names covers at least this share of the image in solid patches (0.03%). The shipped
# generation references show theirs on 0.9% or more (the roadmap slide's small icons) through JPEG q60,
# brightness +-8, saturation x0.8-1.3 and a half-size copy; hue turns that leave a family, grey and
# channel swaps leave 0.0%. A red title 48 px tall on a 1024 px canvas covers 0.09%; text 32 px tall or
# less is too thin to count (docs/graders.md, image).
DEFAULT_MIN_NAMED_SHARE = 0.0003
# The longest side the named colours are looked for at: thin strokes (a coloured word) survive it.
NAMED_SIDE = 512
_SIZE = re.compile(r"^\s*(\d+)\s*[xX]\s*(\d+)\s*$")


class ImageGrader:
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "count": {"type": "integer", "minimum": 1},
            "formats": {"type": "array", "items": {"enum": ["PNG", "JPEG", "WEBP", "GIF"]}, "minItems": 1},
            "min_jpeg_quality": {"type": "integer", "minimum": 0, "maximum": 100, "default": DEFAULT_MIN_JPEG_QUALITY},
            "width": {"type": "integer", "minimum": 1},
            "height": {"type": "integer", "minimum": 1},
            "aspect": {"type": "number", "exclusiveMinimum": 0},
            "aspect_tolerance": {"type": "number", "minimum": 0, "default": 0.02},
            "blank_std": {"type": "number", "minimum": 0, "default": 2.0},
            "min_content": {"type": "number", "minimum": 0, "maximum": 1, "default": DEFAULT_MIN_CONTENT},
            "match_input": {"type": "boolean"},
            "differs_from_input": {"type": "boolean"},
            "min_changed": {"type": "number", "minimum": 0, "maximum": 1, "default": DEFAULT_MIN_CHANGED},
            "fills_canvas": {"type": "boolean", "default": True},
            "min_extent": {"type": "number", "minimum": 0, "maximum": 1, "default": DEFAULT_MIN_EXTENT},
            "min_extent_of_reference": {"type": "number", "minimum": 0, "default": DEFAULT_MIN_EXTENT_OF_REFERENCE},
            "named_colours": {"type": "boolean"},
            "min_named_share": {"type": "number", "exclusiveMinimum": 0, "maximum": 1, "default": DEFAULT_MIN_NAMED_SHARE},
        },
    }

    # Its grade depends only on its options, the case, the files the case names and the outputs' bytes:
    # a warm run may take it from the call cache (run/grade_memo.py).
    memoizable: ClassVar[bool] = True

    def __init__(self, options: Mapping[str, Any]):
        self.options = dict(options)

    @classmethod
    def check_case(cls, case: CaseSpec, options: Mapping[str, Any]) -> str | None:
        if options.get("differs_from_input") and not case.images:
            return "'differs_from_input' needs input images on the case"
        if case.task == "html_generation":
            return "the image grader grades image outputs; this case's task is html_generation"
        return None

    def grade(self, case: CaseSpec, artifacts: Sequence[Artifact], context: GradeContext | None = None) -> Grade:
        from ..cases.image_limits import ImageTooLarge, check_case_total
        from .imaging import decode_picture, downscaled, load_picture

        opts = self.options
        images = [a for a in artifacts if a.kind == "image"]
        try:
            check_case_total([(a.name, a.data) for a in images])
        except ImageTooLarge as exc:  # the outputs together: refused from their headers, before any is decoded
            return Grade(gates=(Gate("decodes", False, str(exc)),))
        decoded: list[Picture] = []
        broken: list[str] = []
        for artifact in images:
            try:
                decoded.append(decode_picture(artifact.name, artifact.data, WORK_SIDE))
            except ValueError as exc:
                broken.append(f"{artifact.name}: {exc}")
        gates = [self._decodes(images, broken)]
        if "count" in opts:
            n = len(images)
            gates.append(Gate("count", n == opts["count"], f"{n} image(s), expected {opts['count']}"))
        if decoded and "formats" in opts:
            wrong = [f"{pic.name} is {pic.format}" for pic in decoded if pic.format not in opts["formats"]]
            gates.append(Gate("format", not wrong, "; ".join(wrong) or f"all in {', '.join(opts['formats'])}"))
        if (jpeg := self._jpeg_quality(images)) is not None:
            gates.append(jpeg)
        if decoded and ("width" in opts or "height" in opts):
            gates.append(self._size(decoded))
        if decoded and "aspect" in opts:
            gates.append(self._aspect(decoded))
        if decoded and (requested := self._requested_size(case)) is not None:
            gates.append(_requested_size(decoded, requested))
        # Each picture box-filtered down once, for both the gates below (the reduction is most of their cost).
        reduced = {pic.name: downscaled(pic.image) for pic in decoded}
        if decoded:
            gates.append(self._not_blank(reduced))
        if decoded and opts.get("fills_canvas", True):
            gates.append(self._fills_canvas(reduced, case))
        if decoded and opts.get("named_colours", case.task == "image_generation"):
            named = self._named_colours(decoded, case)
            if named is not None:
                gates.append(named)
        editing = case.task == "image_editing" and bool(case.images)
        inputs = [load_picture(p, WORK_SIDE) for p in case.images] if decoded and case.images else []
        if decoded and editing and opts.get("match_input", True):
            gates.append(_matches_input(decoded, inputs[0]))
        if decoded and opts.get("differs_from_input", case.task == "image_editing") and case.images:
            gates.append(self._differs(decoded, inputs))
        return Grade(gates=tuple(gates))

    @staticmethod
    def _decodes(images: Sequence[Artifact], broken: list[str]) -> Gate:
        if not images:
            return Gate("decodes", False, "the output holds no image")
        if broken:
            return Gate("decodes", False, f"{len(broken)} of {len(images)} image(s) do not decode: " + "; ".join(broken))
        return Gate("decodes", True, f"{len(images)} image(s) decode")

    def _jpeg_quality(self, images: Sequence[Artifact]) -> Gate | None:
        from .jpeg_quality import estimated_quality  # here, not at import: collection loads this module (see above)

        floor = int(self.options.get("min_jpeg_quality", DEFAULT_MIN_JPEG_QUALITY))
        qualities = {a.name: q for a in images if (q := estimated_quality(a.data)) is not None}
        if not floor or not qualities:
            return None
        low = [f"{name} was saved at JPEG quality {q}" for name, q in qualities.items() if q < floor]
        if low:
            reason = "; ".join(low) + f" (read from the quantisation tables), below {floor}: blocks and halos around the edges"
            return Gate("jpeg_quality", False, reason)
        return Gate("jpeg_quality", True, f"JPEG quality {min(qualities.values())} or more (>= {floor})")

    def _size(self, decoded: list[Picture]) -> Gate:
        want_w, want_h = self.options.get("width"), self.options.get("height")
        wrong = [
            f"{pic.name} is {pic.size[0]}x{pic.size[1]}"
            for pic in decoded
            if (want_w is not None and pic.size[0] != want_w) or (want_h is not None and pic.size[1] != want_h)
        ]
        want = f"{want_w or '*'}x{want_h or '*'}"
        return Gate("size", not wrong, ("; ".join(wrong) + f", expected {want}") if wrong else f"all {want}")

    def _aspect(self, decoded: list[Picture]) -> Gate:
        target = float(self.options["aspect"])
        tolerance = float(self.options.get("aspect_tolerance", 0.02))
        wrong = [
            f"{pic.name} has aspect {pic.size[0] / pic.size[1]:.3f}"
            for pic in decoded
            if abs(pic.size[0] / pic.size[1] - target) > tolerance * target
        ]
        return Gate("aspect", not wrong, ("; ".join(wrong) + f", expected {target:.3f}") if wrong else f"aspect {target:.3f}")

    def _requested_size(self, case: CaseSpec) -> tuple[int, int] | None:
        if any(key in self.options for key in ("width", "height", "aspect")):
            return None  # the size gates the case asked for explicitly decide
        return requested_size(case.params)

    def _not_blank(self, reduced: Mapping[str, np.ndarray]) -> Gate:
        floor = float(self.options.get("blank_std", 2.0))
        min_content = float(self.options.get("min_content", DEFAULT_MIN_CONTENT))
        measured = {name: _blankness(pixels) for name, pixels in reduced.items()}
        blank = [
            f"{name} ({share:.2%} of pixels off its background colour, luminance std {std:.2f})"
            for name, (share, std) in measured.items()
            if share < min_content or std < floor
        ]
        if blank:
            need = f"need at least {min_content:.2%} content and std {floor:g}, after flattening transparency onto white"
            return Gate("not_blank", False, f"blank image(s): {', '.join(blank)}; {need}")
        least = min(measured, key=lambda name: measured[name][0])
        return Gate("not_blank", True, f"{least} has the least content: {measured[least][0]:.1%} of pixels off its background")

    def _fills_canvas(self, reduced: Mapping[str, np.ndarray], case: CaseSpec) -> Gate:
        from .canvas_extent import OUTPUT_TOLERANCE, content_extent, content_extent_of, flat_background, flat_background_of
        from .imaging import load_path

        reference = case.reference if case.reference is not None and case.reference.is_file() else None
        if reference is None:
            floor = float(self.options.get("min_extent", DEFAULT_MIN_EXTENT))
            extents = {name: content_extent_of(pixels) for name, pixels in reduced.items()}
            small = [
                f"{name} ({extent.describe()} of the canvas)"
                for name, extent in extents.items()
                if max(extent.width, extent.height) < floor
            ]
            if small:
                return Gate(
                    "fills_canvas",
                    False,
                    f"content covers too little of the canvas: {', '.join(small)}; need {floor:.0%} in its longer direction",
                )
            least = min(extents, key=lambda name: max(extents[name].width, extents[name].height))
            return Gate("fills_canvas", True, f"{least} has the smallest content: {extents[least].describe()} of the canvas")
        ratio = float(self.options.get("min_extent_of_reference", DEFAULT_MIN_EXTENT_OF_REFERENCE))
        ref_image = load_path(reference, longest=WORK_SIDE)
        ref_flat = flat_background(ref_image)
        small = []
        for name, pixels in reduced.items():
            # Both measured off both flat backgrounds: a cream picture shrunk onto white shows a cream panel
            # whose content, not the panel, is what the reference spreads over its canvas.
            out_flat = flat_background_of(pixels)
            own = content_extent_of(pixels, [] if ref_flat is None else [ref_flat], tolerance=OUTPUT_TOLERANCE)
            want = content_extent(ref_image, [] if out_flat is None else [out_flat])
            if own.width < ratio * want.width or own.height < ratio * want.height:
                small.append(f"{name} spans {own.describe()} of its canvas, the reference {want.describe()}")
        if small:
            return Gate(
                "fills_canvas", False, f"content shrunk: {'; '.join(small)}; need {ratio:.0%} of the reference's width and height"
            )
        return Gate("fills_canvas", True, f"every image's content spans at least {ratio:.0%} of the reference's width and height")

    def _named_colours(self, decoded: list[Picture], case: CaseSpec) -> Gate | None:
        """Every colour the prompt names in words is shown by each image; None when it names none."""
        from .colour_words import family_share, hsv, named_colours
        from .imaging import reduced_rgb

        named = named_colours(case.prompt or "")
        if not named:
            return None
        least = float(self.options.get("min_named_share", DEFAULT_MIN_NAMED_SHARE))
        several = len(decoded) > 1
        missing: list[str] = []
        shown: list[str] = []
        for pic in decoded:
            hue, saturation, value = hsv(reduced_rgb(pic.image, NAMED_SIDE))
            for colour in named:
                share = family_share(hue, saturation, value, colour)
                where = f" of {pic.name}" if several else ""
                if share < least:
                    missing.append(f"{colour.word} ({share:.2%}{where})")
                else:
                    shown.append(f"{colour.word} {share:.1%}{where}")
        words = ", ".join(c.word for c in named)
        if missing:
            return Gate(
                "named_colours",
                False,
                f"the prompt names {words}, but no solid area shows {', '.join(missing)}; each needs "
                f"{least:.2%} of the image" + (f" (shown: {', '.join(shown)})" if shown else ""),
            )
        return Gate("named_colours", True, f"shows every colour the prompt names: {', '.join(shown)}")

    def _differs(self, decoded: list[Picture], inputs: list[Picture]) -> Gate:
        floor = float(self.options.get("min_changed", DEFAULT_MIN_CHANGED))
        same = []
        for pic in decoded:
            for source in inputs:
                changed = changed_share(source.image, pic.image)
                if changed is not None and changed < floor:
                    same.append(f"{pic.name} is {source.name} again ({changed:.3%} of pixels changed, need {floor:.2%})")
                    break
        if same:
            return Gate("differs_from_input", False, "; ".join(same) + ": nothing was edited")
        return Gate("differs_from_input", True, "every output differs from the inputs")


def requested_size(params: Mapping[str, Any]) -> tuple[int, int] | None:
    """The ``WxH`` a case's ``params.size`` asks for, or None (no size, ``auto``, a zero side)."""
    match = _SIZE.match(str(params.get("size", "")))
    return (int(match[1]), int(match[2])) if match and int(match[1]) and int(match[2]) else None


def _blankness(pixels: np.ndarray) -> tuple[float, float]:
    """(share of content pixels, luminance std) of an image reduced by ``imaging.downscaled``."""
    from .imaging import content_share

    # Weighted sum, not a matrix product: a product wakes BLAS's thread pool, which then spins on
    # every core for a while, taking CPU from the run's other threads.
    luminance = 0.299 * pixels[..., 0] + 0.587 * pixels[..., 1] + 0.114 * pixels[..., 2]
    return content_share(pixels), float(luminance.std())


def changed_share(source: Image.Image, output: Image.Image) -> float | None:
    """Share of ``output``'s pixels that differ from ``source`` (1-pixel shifts allowed); None at another aspect."""
    from .imaging import CHANGE_TOLERANCE, perceived_difference, rgb_array, same_aspect

    if not same_aspect(output.size, source.size):
        return None  # another picture; matches_input says whether that is wrong
    before = rgb_array(source)
    after = rgb_array(output if output.size == source.size else output.resize(source.size, Image.Resampling.BILINEAR))
    return float((perceived_difference(before, after) > CHANGE_TOLERANCE).mean())


def _matches_input(decoded: list[Picture], first_input: Picture) -> Gate:
    from .imaging import same_aspect

    (width, height), input_name = first_input.size, first_input.name
    wrong = [f"{pic.name} is {pic.size[0]}x{pic.size[1]}" for pic in decoded if not same_aspect(pic.size, first_input.size)]
    want = f"the aspect ratio of {input_name} ({width}x{height}, {width / height:.3f})"
    if wrong:
        return Gate("matches_input", False, f"{'; '.join(wrong)}: an edit must keep {want}")
    return Gate("matches_input", True, f"every output keeps {want}")


def _requested_size(decoded: list[Picture], requested: tuple[int, int]) -> Gate:
    from .imaging import same_aspect

    width, height = requested
    wrong = [f"{pic.name} is {pic.size[0]}x{pic.size[1]}" for pic in decoded if not same_aspect(pic.size, requested)]
    want = f"the requested size {width}x{height} (aspect {width / height:.3f})"
    if wrong:
        return Gate("requested_size", False, f"{'; '.join(wrong)}: not the aspect ratio of {want}")
    return Gate("requested_size", True, f"every image has the aspect ratio of {want}")
