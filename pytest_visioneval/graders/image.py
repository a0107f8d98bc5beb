"""``use: image`` - properties of the output images, as gates.

Gates (each only when it applies or is configured):

* ``decodes``   - there is at least one image artifact and every one decodes.
* ``count``     - exactly ``options.count`` images.
* ``format``    - each image's format is one of ``options.formats``.
* ``size``      - each image is ``options.width`` x ``options.height``.
* ``aspect``    - each image's width/height is within ``aspect_tolerance`` of ``options.aspect``.
* ``not_blank`` - each image has visible variation (luminance std >= ``blank_std``).
* ``differs_from_input`` - for editing cases, no output is pixel-identical to an input image.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
from PIL import Image

from ..artifacts import Artifact
from ..cases.spec import CaseSpec
from .base import Gate, Grade, GradeContext
from .imaging import decode, load_path, rgb_array


class ImageGrader:
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "count": {"type": "integer", "minimum": 1},
            "formats": {"type": "array", "items": {"enum": ["PNG", "JPEG", "WEBP", "GIF"]}, "minItems": 1},
            "width": {"type": "integer", "minimum": 1},
            "height": {"type": "integer", "minimum": 1},
            "aspect": {"type": "number", "exclusiveMinimum": 0},
            "aspect_tolerance": {"type": "number", "minimum": 0, "default": 0.02},
            "blank_std": {"type": "number", "minimum": 0, "default": 2.0},
            "differs_from_input": {"type": "boolean"},
        },
    }

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
        opts = self.options
        images = [a for a in artifacts if a.kind == "image"]
        decoded: list[tuple[str, Image.Image]] = []
        broken: list[str] = []
        for artifact in images:
            try:
                decoded.append((artifact.name, decode(artifact.data)))
            except ValueError as exc:
                broken.append(f"{artifact.name}: {exc}")
        gates = [self._decodes(images, broken)]
        if "count" in opts:
            n = len(images)
            gates.append(Gate("count", n == opts["count"], f"{n} image(s), expected {opts['count']}"))
        if decoded and "formats" in opts:
            wrong = [f"{name} is {img.format}" for name, img in decoded if img.format not in opts["formats"]]
            gates.append(Gate("format", not wrong, "; ".join(wrong) or f"all in {', '.join(opts['formats'])}"))
        if decoded and ("width" in opts or "height" in opts):
            gates.append(self._size(decoded))
        if decoded and "aspect" in opts:
            gates.append(self._aspect(decoded))
        if decoded:
            gates.append(self._not_blank(decoded))
        if decoded and opts.get("differs_from_input", case.task == "image_editing") and case.images:
            gates.append(self._differs(case, decoded))
        return Grade(gates=tuple(gates))

    @staticmethod
    def _decodes(images: Sequence[Artifact], broken: list[str]) -> Gate:
        if not images:
            return Gate("decodes", False, "the output holds no image")
        if broken:
            return Gate("decodes", False, f"{len(broken)} of {len(images)} image(s) do not decode: " + "; ".join(broken))
        return Gate("decodes", True, f"{len(images)} image(s) decode")

    def _size(self, decoded: list[tuple[str, Image.Image]]) -> Gate:
        want_w, want_h = self.options.get("width"), self.options.get("height")
        wrong = [
            f"{name} is {img.width}x{img.height}"
            for name, img in decoded
            if (want_w is not None and img.width != want_w) or (want_h is not None and img.height != want_h)
        ]
        want = f"{want_w or '*'}x{want_h or '*'}"
        return Gate("size", not wrong, ("; ".join(wrong) + f", expected {want}") if wrong else f"all {want}")

    def _aspect(self, decoded: list[tuple[str, Image.Image]]) -> Gate:
        target = float(self.options["aspect"])
        tolerance = float(self.options.get("aspect_tolerance", 0.02))
        wrong = [
            f"{name} has aspect {img.width / img.height:.3f}"
            for name, img in decoded
            if abs(img.width / img.height - target) > tolerance * target
        ]
        return Gate("aspect", not wrong, ("; ".join(wrong) + f", expected {target:.3f}") if wrong else f"aspect {target:.3f}")

    def _not_blank(self, decoded: list[tuple[str, Image.Image]]) -> Gate:
        floor = float(self.options.get("blank_std", 2.0))
        stds = {name: float(np.asarray(img.convert("L"), dtype=np.float32).std()) for name, img in decoded}
        blank = [f"{name} (luminance std {std:.2f})" for name, std in stds.items() if std < floor]
        if blank:
            return Gate("not_blank", False, f"blank image(s): {', '.join(blank)}; need std >= {floor}")
        return Gate("not_blank", True, f"min luminance std {min(stds.values()):.1f}")

    @staticmethod
    def _differs(case: CaseSpec, decoded: list[tuple[str, Image.Image]]) -> Gate:
        inputs = [rgb_array(load_path(p)) for p in case.images]
        same = []
        for name, img in decoded:
            out = rgb_array(img)
            if any(inp.shape == out.shape and np.array_equal(inp, out) for inp in inputs):
                same.append(name)
        if same:
            return Gate("differs_from_input", False, f"{', '.join(same)} identical to an input image: nothing was edited")
        return Gate("differs_from_input", True, "every output differs from the inputs")
