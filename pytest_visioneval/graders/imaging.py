"""Small image helpers shared by the pixel graders."""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from PIL import Image, UnidentifiedImageError

from ..calls.turn import off_turn
from ..cases.image_limits import ImageTooLarge, check_size
from ..cases.spec import CaseSpec
from ..errors import GraderError

T = TypeVar("T")


def decode(data: bytes, what: str = "the image") -> Image.Image:
    """Decode fully (``load``) so truncated files fail here, not later.

    The header's size is checked against VISIONEVAL_MAX_IMAGE_PIXELS first (``Image.open`` reads only the
    header): a small file of one colour can decode to gigabytes. Over the limit: :class:`ImageTooLarge`
    (a ``ValueError``) naming ``what``, before any pixel is decoded.
    """
    return _decoded_within_limit(data, what, draft_to=None)[0]


def _decoded_within_limit(data: bytes, what: str, draft_to: int | None) -> tuple[Image.Image, tuple[int, int]]:
    """Open, check the header's size against the pixel limit, then decode (a JPEG at a reduced scale with ``draft_to``).

    Returns the image and the size its file states (a JPEG's draft decode is smaller).
    """
    try:
        image = Image.open(io.BytesIO(data))
        stated = image.size
        if draft_to is not None and image.format == "JPEG":
            image.draft("RGB", (draft_to, draft_to))  # the decoder picks the largest scale still >= draft_to
        check_size(image.size, what)
        with off_turn(image.size[0] * image.size[1]):
            image.load()
    except ImageTooLarge:
        raise
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError) as exc:
        raise ValueError(str(exc) or type(exc).__name__) from exc
    return image, stated


def load_path(path: Path, what: str = "image", longest: int | None = None) -> Image.Image:
    """``path`` decoded; a :class:`GraderError` when it cannot be read or is over the pixel limit.

    ``what`` says what the file is in the message ("input image", "reference image"). With ``longest``,
    decoded no larger than needed for that many px on its longer side (see :func:`decode_reduced`).
    """
    if longest is not None:
        return load_picture(path, longest, what).image
    return _loaded(path, what, decode)


def load_picture(path: Path, longest: int, what: str = "image") -> Picture:
    """``path`` as a :class:`Picture` (see :func:`decode_picture`); a :class:`GraderError` as :func:`load_path` raises."""
    return _loaded(path, what, lambda data, named: decode_picture(path.name, data, longest, named))


def _loaded(path: Path, what: str, decoder: Callable[[bytes, str], T]) -> T:
    """``decoder(bytes of path, "what path")``, its failures as :class:`GraderError` naming the file."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise GraderError(f"cannot read {what} {path}: {exc}") from exc
    try:
        return decoder(data, f"{what} {path}")
    except ImageTooLarge as exc:
        raise GraderError(str(exc)) from exc
    except ValueError as exc:
        raise GraderError(f"cannot read {what} {path}: {exc}") from exc


def decode_reduced(data: bytes, longest: int, what: str = "the image") -> Image.Image:
    """Decoded no larger than needed for ``longest`` px on the longer side, for checks that do not need full resolution.

    A JPEG is decoded at 1/2, 1/4 or 1/8 scale by its decoder (``Image.draft``: the full-size pixels are never
    held), so a large photo over the pixel limit is still read when its reduced decode is under it; other
    formats are decoded in full (within the limit) and then box-reduced by a whole factor, so the result
    is between ``longest`` and twice that on its longer side (smaller images are returned as they are).
    """
    return decode_picture("", data, longest, what).image


@dataclass(frozen=True)
class Picture:
    """An image as a grader holds it: its format and size as the file states them, its pixels perhaps reduced."""

    name: str
    format: str | None
    size: tuple[int, int]  # (width, height) of the file, not of ``image`` when that was reduced
    image: Image.Image


def decode_picture(name: str, data: bytes, longest: int, what: str = "the image") -> Picture:
    """Like :func:`decode_reduced`, keeping the file's format and full size for the gates that check them."""
    image, stated = _decoded_within_limit(data, what, draft_to=longest)
    fmt = image.format
    factor = max(image.size) // longest
    if factor >= 2:
        if image.mode not in ("L", "LA", "RGB", "RGBA"):
            image = image.convert("RGBA")  # reduce() takes 8-bit modes only (not P, 1, I;16)
        image = image.reduce(factor)
    return Picture(name, fmt, stated, image)


def rgb_array(image: Image.Image) -> np.ndarray:
    """RGB as float32 in [0, 255]; transparency is flattened onto white."""
    return np.asarray(_flattened_rgb(image), dtype=np.float32)


def missing_comparison(case: CaseSpec, options: Mapping[str, Any], grader: str) -> str | None:
    """Why a grader comparing with ``against`` (reference or first input) cannot grade this case."""
    against = options.get("against", "reference")
    if against == "reference" and case.reference is None:
        return f"the {grader} grader compares with 'reference', which this case lacks"
    if against == "input" and not case.images:
        return f"the {grader} grader compares with the first input image, which this case lacks"
    return None


def comparison_path(case: CaseSpec, against: str, grader: str) -> Path:
    """The reference, or the first input image, of ``case``."""
    path = case.reference if against == "reference" else (case.images[0] if case.images else None)
    if path is None:
        raise GraderError(f"{grader}: case {case.uid} has no {against} image")
    return path


# -- comparisons shared by the image, locality and trajectory gates ----------
# A pixel counts as changed when its largest RGB difference exceeds this (0-255),
# both images softened first by a Gaussian of CHANGE_BLUR_SIGMA px and a 1-pixel
# shift allowed (see perceived_difference). Measured on JPEG q85 re-encodes
# (Pillow defaults, 4:2:0 chroma) of scikit-image's astronaut, coffee, chelsea
# and rocket photos and of the cookbook's logos, mockups and flyers: with no
# softening 0.0-1.4% of pixels pass 24 (rocket 1.4%); with sigma 0.8 at most
# 0.4%; with sigma 1.2 none (mean difference 1.0-2.5). A recolour, a redrawn
# region or a changed word still moves its pixels far past 24.
CHANGE_TOLERANCE = 24
CHANGE_BLUR_SIGMA = 1.2
BACKGROUND_TOLERANCE = 24  # off the dominant colour by more than this = content


def aligned_difference(before: np.ndarray, after: np.ndarray, radius: int = 1) -> np.ndarray:
    """Per pixel, the smallest largest-RGB difference between ``after`` and ``before`` within ``radius`` px.

    Two same-size RGB arrays (0-255). Allowing each pixel to match a
    neighbour absorbs a 1-pixel (or sub-pixel) misalignment and the ringing
    of re-encoding at hard edges, while a change of colour or content, which
    differs from every neighbour, still counts in full.
    """
    height, width = before.shape[:2]
    # Channel-first and contiguous: each shift is then three fast 2-D subtractions.
    base = np.ascontiguousarray(before.transpose(2, 0, 1))
    padded = np.ascontiguousarray(np.pad(after, ((radius, radius), (radius, radius), (0, 0)), mode="edge").transpose(2, 0, 1))
    best: np.ndarray | None = None
    for dy in range(2 * radius + 1):
        for dx in range(2 * radius + 1):
            window = padded[:, dy : dy + height, dx : dx + width]
            diff = np.abs(window[0] - base[0])
            np.maximum(diff, np.abs(window[1] - base[1]), out=diff)
            np.maximum(diff, np.abs(window[2] - base[2]), out=diff)
            best = diff if best is None else np.minimum(best, diff, out=best)
    assert best is not None
    return best


def soften(pixels: np.ndarray) -> np.ndarray:
    """An RGB array (0-255) blurred by CHANGE_BLUR_SIGMA px: the first half of :func:`perceived_difference`."""
    from scipy import ndimage  # loaded when a comparison is made, not at plugin start

    return np.asarray(ndimage.gaussian_filter(pixels, (CHANGE_BLUR_SIGMA, CHANGE_BLUR_SIGMA, 0)), dtype=np.float32)


def perceived_difference(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """Per-pixel difference a person would see: re-encoding noise and 1-pixel shifts do not count.

    Two same-size RGB arrays (0-255); see CHANGE_TOLERANCE for the measurements.
    To compare one image with many, :func:`soften` each once and use
    :func:`aligned_difference` on the results.
    """
    return aligned_difference(soften(before), soften(after))


def same_aspect(a: tuple[int, int], b: tuple[int, int], tolerance: float = 0.02) -> bool:
    """Whether two (width, height) sizes have the same aspect ratio within ``tolerance`` (relative)."""
    return abs(a[0] / a[1] - b[0] / b[1]) <= tolerance * (b[0] / b[1])


def dominant_colour(pixels: np.ndarray) -> np.ndarray:
    """The most common RGB colour of an RGB array (0-255), after rounding to whole values."""
    flat = np.rint(pixels).astype(np.uint32).reshape(-1, 3)
    keys = (flat[:, 0] << 16) | (flat[:, 1] << 8) | flat[:, 2]
    # Sorted in place and counted by runs: np.unique on int64 keys took 1.8 ms for a 256 px image, this 0.6.
    # A tie goes to the smallest colour key, as np.unique's first maximum did.
    keys.sort()
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    lengths = np.diff(np.r_[starts, keys.size])
    key = int(keys[starts[int(np.argmax(lengths))]])
    return np.asarray([(key >> 16) & 255, (key >> 8) & 255, key & 255], dtype=np.float32)


def downscaled(image: Image.Image, longest: int = 256) -> np.ndarray:
    """RGB array (transparency flattened onto white) box-filtered down to ``longest`` px on the longer side.

    Averaging over blocks removes per-pixel noise, which is not content,
    while shapes and text a person can see keep their contrast. Done on 8-bit
    pixels and made float only once small: a 40 Mpx image as float32 would be
    480 MB (the values are the same as :func:`rgb_array` then resizing).
    """
    return np.asarray(reduced_rgb(image, longest), dtype=np.float32)


def reduced_rgb(image: Image.Image, longest: int = 256) -> Image.Image:
    """What :func:`downscaled` holds, as an 8-bit Pillow image (for Pillow's own conversions, without a float copy)."""
    flat = _flattened_rgb(image)
    scale = longest / max(flat.size)
    if scale < 1:
        size = (max(1, round(flat.width * scale)), max(1, round(flat.height * scale)))
        with off_turn(flat.width * flat.height):
            flat = flat.resize(size, Image.Resampling.BOX)
    return flat


def _flattened_rgb(image: Image.Image) -> Image.Image:
    """8-bit RGB, transparency flattened onto white (what :func:`rgb_array` holds as float)."""
    if image.mode in ("RGBA", "LA", "P"):
        rgba = image.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        image = Image.alpha_composite(background, rgba)
    if image.mode == "RGB":
        return image  # convert() would copy it (1.4 ms for 1024 px); every caller makes a new image or array of it
    return image.convert("RGB")


def content_share(pixels: np.ndarray, tolerance: float = BACKGROUND_TOLERANCE) -> float:
    """The share of pixels whose colour is off the dominant (background) colour by more than ``tolerance``."""
    background = dominant_colour(pixels)
    return float((largest_channel(np.abs(pixels - background)) > tolerance).mean())


def largest_channel(pixels: np.ndarray) -> np.ndarray:
    """Per pixel, the largest of an RGB array's three channels: ``pixels.max(axis=2)``, several times faster.

    numpy reduces a last axis of three slowly (0.7 ms for a 256 px image against 0.1 ms this way), and
    the pixel gates take this maximum of every image they grade.
    """
    return np.maximum(np.maximum(pixels[..., 0], pixels[..., 1]), pixels[..., 2])
