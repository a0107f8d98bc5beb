"""``use: ssim`` - structural similarity of the output image to a known image.

Metric ``ssim`` in [-1, 1] (1 = identical): scikit-image's
``structural_similarity`` computed on each RGB channel and averaged, with the
window of Wang et al. (2004): Gaussian, sigma 1.5 (11x11), population
covariance. The output is resized (bilinear) to the comparison image's size
first, and the reason says so. Transparency is flattened onto white. With
several output images, the mean; an image that does not decode scores 0 ("no
structural similarity"). With ``min_ssim`` set, also a gate ``match``.

Per channel rather than grayscale because a recolour is a change of hue:
turning a red emblem teal leaves the luminance, and so grayscale SSIM, almost
untouched (0.997 on the cookbook logo) while per-channel SSIM drops to 0.81.

SSIM drops steeply under a whole-image shift of a pixel or two (a legitimate
output), so the output is first aligned to the comparison image: the shift
phase correlation finds, when it is at most ALIGN_SHARE of the image's
longer side (the reason names it). And SSIM is still nearly blind to a
moderate hue rotation of flat colour areas (0.99 for 30 degrees on the
cookbook logos): the gate also applies the content check of ``use:
similarity`` (:mod:`.content_check`: colour, and against a reference fading
and blur; metric ``changed_content``, options ``max_changed_content``,
``delta_e``, ``max_faded_areas`` and ``max_softened_share``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from PIL import Image

from ..artifacts import Artifact
from ..cases.spec import CaseSpec
from ..errors import GraderError
from .base import Gate, Grade, GradeContext, Metric
from .colour_difference import ContentDifference, content_difference, shifted, whole_image_shift
from .content_check import CONTENT_CHECK_OPTIONS, ContentCheck
from .imaging import comparison_path, decode, load_path, missing_comparison, rgb_array

# Wang et al.'s window: an 11x11 Gaussian (sigma 1.5, truncated at 3.5 sigma).
_SSIM_ARGS: Mapping[str, Any] = {"gaussian_weights": True, "sigma": 1.5, "use_sample_covariance": False, "data_range": 255.0}
MIN_SSIM_SIDE = 11
ALIGN_SHARE = 0.02  # a whole-image shift up to this share of the longer side is undone before SSIM


class SsimGrader:
    # Its grade depends only on its options, the case, the files the case names and the outputs' bytes:
    # a warm run may take it from the call cache (run/grade_memo.py).
    memoizable: ClassVar[bool] = True
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "against": {"enum": ["reference", "input"], "default": "reference"},
            "min_ssim": {"type": "number", "minimum": -1, "maximum": 1},
            **CONTENT_CHECK_OPTIONS,
        },
    }

    def __init__(self, options: Mapping[str, Any]):
        self.against = options.get("against", "reference")
        self.min_ssim = options.get("min_ssim")
        self.content = ContentCheck.from_options(options, "reference" if self.against == "reference" else "input")
        self.gated = self.min_ssim is not None or "max_changed_content" in options

    @classmethod
    def check_case(cls, case: CaseSpec, options: Mapping[str, Any]) -> str | None:
        return missing_comparison(case, options, "ssim")

    def grade(self, case: CaseSpec, artifacts: Sequence[Artifact], context: GradeContext | None = None) -> Grade:
        target_path = comparison_path(case, self.against, "ssim")
        target = load_path(target_path)
        check_ssim_size(target, target_path)
        expected = rgb_array(target)
        images = [a for a in artifacts if a.kind == "image"]
        if not images:
            metric = Metric("ssim", 0.0, "the output holds no image")
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
            fitted, resized = fit_to(out, target.size)
            pixels = rgb_array(fitted)
            dy, dx = whole_image_shift(pixels, expected, ALIGN_SHARE)
            score = mean_ssim(shifted(pixels, dy, dx), expected)
            scores.append(score)
            colours.append((artifact.name, content_difference(out, target, self.content.delta_e, self.content.against_reference)))
            note = f"{artifact.name}: {score:.4f}" + (f" (resized from {out.width}x{out.height})" if resized else "")
            notes.append(note + (f" (shifted by x {-dx:+d}, y {-dy:+d} px; aligned)" if dy or dx else ""))
        value = float(np.mean(scores))
        reason = f"vs {self.against} {target_path.name}: " + "; ".join(notes)
        metrics = (Metric("ssim", value, reason), *self.content.metrics(colours)[:1])
        return Grade(gates=self._gate(value, reason, colours), metrics=metrics)

    def _gate(self, value: float, reason: str, colours: list[tuple[str, ContentDifference | None]]) -> tuple[Gate, ...]:
        if not self.gated:
            return ()
        passed = self.min_ssim is None or value >= self.min_ssim
        says = "" if self.min_ssim is None else f"ssim {value:.4f} {'>=' if passed else '<'} {self.min_ssim}; "
        content_passed, content_says = self.content.verdict(colours)
        return (Gate("match", passed and content_passed, f"{says}{content_says}; {reason}"),)


def fit_to(image: Image.Image, size: tuple[int, int]) -> tuple[Image.Image, bool]:
    """``image`` resized (bilinear) to ``size`` when it differs, and whether it was."""
    if image.size == size:
        return image, False
    return image.resize(size, Image.Resampling.BILINEAR), True


def check_ssim_size(image: Image.Image, path: Path) -> None:
    """SSIM needs a whole window inside the image; a smaller comparison image is a case problem."""
    if min(image.size) < MIN_SSIM_SIDE:
        raise GraderError(
            f"image {path} is {image.width}x{image.height}; SSIM needs at least {MIN_SSIM_SIDE}x{MIN_SSIM_SIDE} pixels"
        )


def mean_ssim(a: np.ndarray, b: np.ndarray) -> float:
    """Mean SSIM of two same-size RGB arrays (0-255), averaged over the channels."""
    from skimage.metrics import structural_similarity  # scikit-image loads slowly; only when used

    return float(structural_similarity(a, b, channel_axis=2, **_SSIM_ARGS))


def ssim_map(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per-pixel SSIM (height x width) of two same-size RGB arrays, averaged over the channels."""
    from skimage.metrics import structural_similarity

    _, full = structural_similarity(a, b, channel_axis=2, full=True, **_SSIM_ARGS)
    return np.asarray(full, dtype=np.float64).mean(axis=2)
