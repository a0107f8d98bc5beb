"""``use: similarity`` - how close the output image is to a known image.

Metric ``score`` in [0, 1]: one minus the mean absolute RGB difference / 255,
after resizing the output to the comparison image's size (a resize is named
in the reason). With several output images, the mean over them. With
``min_score`` set, also a gate ``match``.

This is a plain pixel measure: it suits ground-truth comparisons such as a
logo edit with a canonical result, and the reference model's own outputs. It
is not a perceptual measure (a one-pixel shift of a fine pattern costs a lot).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
from PIL import Image

from ..artifacts import Artifact
from ..cases.spec import CaseSpec
from .base import Gate, Grade, GradeContext, Metric
from .colour_difference import ContentDifference, content_difference, shifted, whole_image_shift
from .content_check import CONTENT_CHECK_OPTIONS, ContentCheck
from .imaging import comparison_path, decode, load_path, missing_comparison, rgb_array

ALIGN_SHARE = 0.02  # a whole-image shift up to this share of the longer side is undone before scoring


class SimilarityGrader:
    # Its grade depends only on its options, the case, the files the case names and the outputs' bytes:
    # a warm run may take it from the call cache (run/grade_memo.py).
    memoizable: ClassVar[bool] = True
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "against": {"enum": ["reference", "input"], "default": "reference"},
            "min_score": {"type": "number", "minimum": 0, "maximum": 1},
            **CONTENT_CHECK_OPTIONS,
        },
    }

    def __init__(self, options: Mapping[str, Any]):
        self.against = options.get("against", "reference")
        self.min_score = options.get("min_score")
        self.content = ContentCheck.from_options(options, "reference" if self.against == "reference" else "input")
        self.gated = self.min_score is not None or "max_changed_content" in options

    @classmethod
    def check_case(cls, case: CaseSpec, options: Mapping[str, Any]) -> str | None:
        return missing_comparison(case, options, "similarity")

    def grade(self, case: CaseSpec, artifacts: Sequence[Artifact], context: GradeContext | None = None) -> Grade:
        target_path = comparison_path(case, self.against, "similarity")
        target = load_path(target_path)
        images = [a for a in artifacts if a.kind == "image"]
        if not images:
            metric = Metric("score", 0.0, "the output holds no image")
            return Grade(gates=self._gate(0.0, metric.reason, []), metrics=(metric,))
        scores, notes, colours = [], [], []
        for artifact in images:
            try:
                out = decode(artifact.data)
            except ValueError as exc:
                scores.append(0.0)
                colours.append((artifact.name, None))
                notes.append(f"{artifact.name}: does not decode ({exc}), scored 0")
                continue
            score, resized, (dy, dx) = aligned_similarity(out, target)
            scores.append(score)
            colours.append((artifact.name, content_difference(out, target, self.content.delta_e, self.content.against_reference)))
            note = f"{artifact.name}: {score:.4f}" + (f" (resized from {out.width}x{out.height})" if resized else "")
            notes.append(note + (f" (shifted by x {-dx:+d}, y {-dy:+d} px; aligned)" if dy or dx else ""))
        value = float(np.mean(scores))
        reason = f"vs {self.against} {target_path.name}: " + "; ".join(notes)
        metrics = (Metric("score", value, reason), *self.content.metrics(colours))
        return Grade(gates=self._gate(value, reason, colours), metrics=metrics)

    def _gate(self, value: float, reason: str, colours: list[tuple[str, ContentDifference | None]]) -> tuple[Gate, ...]:
        if not self.gated:
            return ()
        passed = self.min_score is None or value >= self.min_score
        says = "" if self.min_score is None else f"score {value:.4f} {'>=' if passed else '<'} {self.min_score}; "
        content_passed, content_says = self.content.verdict(colours)
        return (Gate("match", passed and content_passed, f"{says}{content_says}; {reason}"),)


def pixel_similarity(output: Image.Image, target: Image.Image) -> tuple[float, bool]:
    """1 - mean |output - target| / 255 over RGB; resize output to target first."""
    resized = output.size != target.size
    if resized:
        output = output.resize(target.size, Image.Resampling.BILINEAR)
    diff = np.abs(rgb_array(output) - rgb_array(target))
    return 1.0 - float(diff.mean()) / 255.0, resized


def aligned_similarity(output: Image.Image, target: Image.Image) -> tuple[float, bool, tuple[int, int]]:
    """:func:`pixel_similarity` after undoing a small whole-image shift; also the (dy, dx) undone."""
    resized = output.size != target.size
    if resized:
        output = output.resize(target.size, Image.Resampling.BILINEAR)
    out, tgt = rgb_array(output), rgb_array(target)
    dy, dx = whole_image_shift(out, tgt, ALIGN_SHARE)
    diff = np.abs(shifted(out, dy, dx) - tgt)
    return 1.0 - float(diff.mean()) / 255.0, resized, (dy, dx)
