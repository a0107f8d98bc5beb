"""``use: distinct_images`` - a page's images are different pictures, not copies of the inputs or of each other.

For ``html_generation`` cases, e.g. a product page whose showcase images
must be newly generated: not the source photo again, not one photo twice.

The images are the page's ``<img>`` in document order, from the rendered
DOM (``dom-snapshot.txt``) when the case is rendered, else from the page's
source. Each one whose src names an image file of the output, or is a
``data:image/`` URI Pillow decodes, is compared; the others (missing,
remote, SVG, not images) are listed in the reason and left to
``html.img_files`` / ``render_check``.

Two images are **the same picture** when, both scaled to 64x64 (alpha on
white), their mean absolute RGB difference is at most ``same_difference``
(default 0.03 of the 0-255 range) *and* their grey SSIM is at least
``same_ssim`` (default 0.95). Measured on this project's product images: a
JPEG re-encode (quality 50-90, also resized) of a picture stays within
0.011 / 0.988, while different pictures of one product, down to two steps of
a turntable turn, are at least 0.0125 apart with an SSIM of at most 0.92
(the two tests together also tell a recoloured copy apart, whose grey
structure is alike).

A picture is also the same as another when it is that picture **transformed**
(:mod:`.same_picture`): mirrored, flipped or turned by 90 degrees, cropped
(35% of the area or more, sides within 1.4 times of each other) and scaled
back, or recoloured by one global colour shift (hue turn, brightness,
contrast, saturation, grey) - when one such transform of the other explains
at least ``same_explained`` (default 0.95) of its colour variation and of its
fine detail (R squared, 64x64 Lab and HSV views), a crop at least
``same_explained_crop`` (default 0.98). Measured with
``benchmarks/identity_separation.py`` (seed 0; numbers in docs/graders.md):
320 of 364 transformed copies of scikit-image's photos and the shipped
product pictures caught, no pair of new pictures of one product (the shipped
ProductWebGen references: other angle, pose, background, zoom) or of
different photos flagged; the closest, a zoom of a flat drawing that is
geometrically a crop of the wider shot, reaches 0.977. Crops are looked for
against the case's input images only; among the page's own pictures only
whole-picture transforms make a repeat (a detail shot may be a window of a
wider shot).

Gate ``distinct``: at most ``input_copies`` (default 0) ``<img>`` show one of
the case's input images (ProductWebGen shows its source photo once), and no
``<img>`` shows the same picture as an earlier one; the reason names each
copy and what it copies. Metric ``distinct``: how many different pictures the
page shows besides the input copies.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import unquote, unquote_to_bytes, urlsplit

import numpy as np
from PIL import Image

from ..artifacts import Artifact
from ..cases.spec import CaseSpec
from .base import Gate, Grade, GradeContext, Metric
from .imaging import decode, load_path, rgb_array
from .rendered import DOM_NAME, OutputImages, latest

if TYPE_CHECKING:
    from bs4 import Tag

_SIDE = 64  # thumbnails are _SIDE x _SIDE
_LABEL = 80


@dataclass(frozen=True)
class Picture:
    label: str
    rgb: np.ndarray  # _SIDE x _SIDE x 3, float32 0-255
    grey: np.ndarray  # _SIDE x _SIDE, float32 0-255
    lab: np.ndarray  # same_picture.thumbnail: 2 SIDE x 2 SIDE x 7, CIELAB and HSV


class DistinctImagesGrader:
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "input_copies": {"type": "integer", "minimum": 0, "default": 0},
            "same_difference": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.03},
            "same_ssim": {"type": "number", "minimum": -1, "maximum": 1, "default": 0.95},
            "same_explained": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.95},
            "same_explained_crop": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.98},
        },
    }

    def __init__(self, options: Mapping[str, Any]):
        self.input_copies: int = int(options.get("input_copies", 0))
        self.same_difference: float = float(options.get("same_difference", 0.03))
        self.same_ssim: float = float(options.get("same_ssim", 0.95))
        self.same_explained: float = float(options.get("same_explained", 0.95))
        self.same_explained_crop: float = float(options.get("same_explained_crop", 0.98))

    @classmethod
    def check_case(cls, case: CaseSpec, options: Mapping[str, Any]) -> str | None:
        if case.task != "html_generation":
            return f"distinct_images compares the images of a page; this case's task is {case.task}"
        return None

    def grade(self, case: CaseSpec, artifacts: Sequence[Artifact], context: GradeContext | None = None) -> Grade:
        page = next((a for a in artifacts if a.kind == "html"), None)
        if page is None:
            return Grade(gates=(Gate("distinct", False, "the output holds no HTML page"),))
        pictures, skipped = _page_pictures(case, page, artifacts)
        inputs = [_picture(path.name, load_path(path)) for path in case.images]
        copies, repeats, distinct = self._sort(pictures, inputs)
        return Grade(
            gates=(self._gate(pictures, skipped, copies, repeats, distinct),),
            metrics=(Metric("distinct", len(distinct), f"{len(distinct)} different picture(s) besides input copies"),),
        )

    def same(self, a: Picture, b: Picture, crops: bool = True) -> str | None:
        """How ``a`` is ``b``: "" for a plain copy, the transform for a transformed one; None for another picture.

        ``crops=False``: a window of ``b`` does not count (a zoomed detail shot may be one of a wider shot).
        """
        if float(np.abs(a.rgb - b.rgb).mean()) / 255 <= self.same_difference and ssim(a.grey, b.grey) >= self.same_ssim:
            return ""
        from .same_picture import best_match

        match = best_match(b.lab, a.lab, crops)
        if match.share >= (self.same_explained_crop if match.cropped else self.same_explained):
            return f"{match.how}, {match.share:.0%} of it explained"
        return None

    def _sort(
        self, pictures: list[Picture], inputs: list[Picture]
    ) -> tuple[list[tuple[str, str]], list[tuple[str, str]], list[Picture]]:
        """Split the page's pictures into input copies, repeats of an earlier picture, and distinct ones."""
        copies: list[tuple[str, str]] = []
        repeats: list[tuple[str, str]] = []
        distinct: list[Picture] = []
        for picture in pictures:
            original = self._first_same(picture, inputs, crops=True)  # a crop of the source photo is no new picture
            if original is not None:
                copies.append((picture.label, original))
                continue
            # Among the page's own pictures only whole-picture transforms count: a detail shot may be a window of a
            # wider shot of the same product, which is how product pages show details.
            earlier = self._first_same(picture, distinct, crops=False)
            if earlier is not None:
                repeats.append((picture.label, earlier))
            else:
                distinct.append(picture)
        return copies, repeats, distinct

    def _first_same(self, picture: Picture, others: list[Picture], crops: bool) -> str | None:
        """The label of the first of ``others`` that ``picture`` shows, with the transform when there is one."""
        for other in others:
            how = self.same(picture, other, crops)
            if how is not None:
                return f"{other.label} ({how})" if how else other.label
        return None

    def _gate(
        self,
        pictures: list[Picture],
        skipped: list[str],
        copies: list[tuple[str, str]],
        repeats: list[tuple[str, str]],
        distinct: list[Picture],
    ) -> Gate:
        problems = []
        if len(copies) > self.input_copies:
            listed = ", ".join(f"{label} (= input {original})" for label, original in copies)
            problems.append(f"{len(copies)} <img> show an input image ({self.input_copies} allowed): {listed}")
        if repeats:
            problems.append("; ".join(f"{label} is the same picture as {earlier}" for label, earlier in repeats))
        not_compared = f"; not compared: {', '.join(skipped)}" if skipped else ""
        if problems:
            return Gate("distinct", False, "; ".join(problems) + not_compared)
        summary = f"{len(pictures)} <img> compared: {len(distinct)} distinct picture(s)"
        if copies:
            summary += f", {len(copies)} showing an input image ({', '.join(original for _, original in copies)})"
        return Gate("distinct", True, summary + not_compared)


def _page_pictures(case: CaseSpec, page: Artifact, artifacts: Sequence[Artifact]) -> tuple[list[Picture], list[str]]:
    """The pictures of the page's <img> that can be compared, and the labels of those that cannot."""
    from bs4 import BeautifulSoup

    dom = latest(artifacts, DOM_NAME) if case.render is not None else None
    imgs = BeautifulSoup((dom or page).data, "html.parser").find_all("img")
    labels = _labels(imgs)
    outputs = OutputImages(artifacts)
    pictures, skipped = [], []
    for img, label in zip(imgs, labels, strict=True):
        image = _load(str(img.get("src") or "").strip(), outputs)
        if image is None:
            skipped.append(label)
        else:
            pictures.append(_picture(label, image))
    return pictures, skipped


def _labels(imgs: list[Tag]) -> list[str]:
    """Each <img>'s src (cut), with its position when several share one."""
    srcs = [str(img.get("src") or "").strip() for img in imgs]
    labels = []
    for position, src in enumerate(srcs, 1):
        text = src if len(src) <= _LABEL else src[: _LABEL - 3] + "..."
        if not src or srcs.count(src) > 1:
            text = f"{text or '<img> without src'} (<img> #{position})"
        labels.append(text)
    return labels


def _load(src: str, outputs: OutputImages) -> Image.Image | None:
    """The raster image an <img> src shows, when it is a data:image/ URI or an image file of the output."""
    data = _data_uri(src) if src.lower().startswith("data:image/") else None
    if data is None:
        parts = urlsplit(src)
        if not src or parts.scheme or parts.netloc:
            return None
        artifact = outputs.image(unquote(parts.path).removeprefix("./"))
        if artifact is None or artifact.kind != "image":
            return None
        data = artifact.data
    try:
        return decode(data)
    except ValueError:
        return None


def _data_uri(src: str) -> bytes | None:
    header, _, payload = src.partition(",")
    try:
        return base64.b64decode(payload) if header.lower().endswith(";base64") else unquote_to_bytes(payload)
    except (binascii.Error, ValueError):
        return None


def ssim(a: np.ndarray, b: np.ndarray, window: int = 7) -> float:
    """Mean SSIM of two same-size grey images (0-255) over every 7x7 window, as scikit-image computes it by default.

    Written out with NumPy: scikit-image loads slowly and its compiled modules cannot be
    imported twice in one process (pytester's in-process runs drop and re-import modules).
    """
    from numpy.lib.stride_tricks import sliding_window_view

    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    wa = sliding_window_view(a.astype(np.float64), (window, window))
    wb = sliding_window_view(b.astype(np.float64), (window, window))
    n = window * window
    mean_a, mean_b = wa.mean(axis=(-2, -1)), wb.mean(axis=(-2, -1))
    # sample (co)variances, as scikit-image's default use_sample_covariance=True
    var_a = wa.var(axis=(-2, -1)) * n / (n - 1)
    var_b = wb.var(axis=(-2, -1)) * n / (n - 1)
    cov = ((wa - mean_a[..., None, None]) * (wb - mean_b[..., None, None])).sum(axis=(-2, -1)) / (n - 1)
    numerator = (2 * mean_a * mean_b + c1) * (2 * cov + c2)
    denominator = (mean_a**2 + mean_b**2 + c1) * (var_a + var_b + c2)
    return float((numerator / denominator).mean())


def _picture(label: str, image: Image.Image) -> Picture:
    from .same_picture import thumbnail

    small = Image.fromarray(rgb_array(image).astype(np.uint8)).resize((_SIDE, _SIDE), Image.Resampling.BOX)
    grey = np.asarray(small.convert("L"), dtype=np.float32)
    return Picture(label, np.asarray(small, dtype=np.float32), grey, thumbnail(image))
