"""How many pixels an image may have once decoded, checked from its header before it is decoded.

A PNG of one colour compresses about a thousand to one: 12,000 x 12,000 pixels
fit in a few hundred KB, below Pillow's own decompression-bomb guard (which
errors past about 179 Mpx), and decode to 144 MB per channel - gigabytes once a
grader holds it as float arrays. Pillow's ``Image.open`` reads only the header,
so the size is known for the cost of a few bytes; an image over the limit is
refused there, with its size and the way to raise the limit.

Several images under that limit can still add up: 30 frames of 30 Mpx are
900 Mpx, 2.7 GB of RGB for a grader that holds them all. So a case's model
outputs are also counted together (:func:`check_case_total`, from their
headers too), against ``VISIONEVAL_MAX_CASE_PIXELS``.

Here, in ``cases/``, so that the case loader (case images, at collection) and
the graders (inputs, references and model outputs) share one limit.
"""

from __future__ import annotations

import io
import os
import struct
from collections.abc import Sequence
from pathlib import Path

MAX_IMAGE_PIXELS_ENV = "VISIONEVAL_MAX_IMAGE_PIXELS"
# 40 Mpx: well above what image models return (4096 x 4096 is 16.8 Mpx) and what pages capture,
# while one decoded image stays near 120 MB of RGB (480 MB as the graders' float32 arrays).
DEFAULT_MAX_IMAGE_PIXELS = 40_000_000


MAX_CASE_PIXELS_ENV = "VISIONEVAL_MAX_CASE_PIXELS"
# 200 Mpx: five 40 Mpx images, a dozen 4096 x 4096 ones, or 100 frames of a 1920 x 1080 screen.
DEFAULT_MAX_CASE_PIXELS = 200_000_000


class ImageTooLarge(ValueError):
    """An image whose header says it decodes to more pixels than the limit; ``str()`` says which and how to raise it."""


def max_image_pixels() -> int:
    """The limit in pixels: ``VISIONEVAL_MAX_IMAGE_PIXELS`` (digits, ``_`` allowed) when set, else the default."""
    return _pixels_from_environment(MAX_IMAGE_PIXELS_ENV, DEFAULT_MAX_IMAGE_PIXELS)


def max_case_pixels() -> int:
    """The limit on a case's outputs together: ``VISIONEVAL_MAX_CASE_PIXELS`` when set, else the default."""
    return _pixels_from_environment(MAX_CASE_PIXELS_ENV, DEFAULT_MAX_CASE_PIXELS)


def _pixels_from_environment(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    digits = raw.replace("_", "")
    if not digits.isdigit() or int(digits) <= 0:
        raise ValueError(f"{name}={raw!r} is not a positive whole number of pixels")
    return int(digits)


def megapixels(pixels: int) -> str:
    """``144000000`` -> ``"144 Mpx"``; one decimal below 10 Mpx."""
    value = pixels / 1_000_000
    return f"{value:.1f} Mpx" if value < 10 else f"{value:.0f} Mpx"


def check_size(size: tuple[int, int], what: str, limit: int | None = None) -> None:
    """Raise :class:`ImageTooLarge` when ``size`` (width, height) has more pixels than the limit.

    ``what`` names the image in the message: "input image cases/x.png", "model output out.png".
    """
    limit = max_image_pixels() if limit is None else limit
    width, height = size
    if width * height > limit:
        raise ImageTooLarge(
            f"{what} is {width}x{height} = {megapixels(width * height)}, over the limit of {megapixels(limit)} "
            f"({MAX_IMAGE_PIXELS_ENV}={limit})"
        )


_PNG_START = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"  # the signature, then the IHDR chunk's length and type


def _png_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG's IHDR, the chunk every PNG starts with; None for anything else.

    Most outputs are PNG, and this is checked for each output of each case: reading 24 bytes is
    several times cheaper than having Pillow open the file.
    """
    if len(data) < 24 or not data.startswith(_PNG_START):
        return None
    width, height = struct.unpack(">II", data[16:24])
    return (width, height) if width and height else None


def header_size(source: bytes | Path) -> tuple[int, int] | None:
    """The (width, height) an image's header states, read without decoding; None when it is not an image Pillow reads."""
    from PIL import Image, UnidentifiedImageError  # loaded when an image is first checked

    png = _png_size(source) if isinstance(source, bytes) else None
    if png is not None:
        bomb = Image.MAX_IMAGE_PIXELS
        if bomb is None or png[0] * png[1] <= 2 * bomb:
            return png
        # Past twice Pillow's own limit: Pillow refuses to open it (below, with its own message).
    try:
        stream = io.BytesIO(source) if isinstance(source, bytes) else source
        with Image.open(stream) as image:
            return image.size
    except Image.DecompressionBombError as exc:  # past twice Pillow's own limit: it refuses to open it at all
        raise ImageTooLarge(f"{exc} (Pillow's own limit, above {MAX_IMAGE_PIXELS_ENV})") from None
    except (UnidentifiedImageError, OSError, ValueError):
        return None  # not ours to report: whoever decodes it says what is wrong


def check_image_file(path: Path, what: str, limit: int | None = None) -> None:
    """Header-only check of an image file (a case's input, reference or mask): :class:`ImageTooLarge` when over."""
    try:
        size = header_size(path)
    except ImageTooLarge as exc:
        raise ImageTooLarge(f"{what} {path}: {exc}") from None
    if size is not None:
        check_size(size, f"{what} {path}", limit)


def check_case_total(images: Sequence[tuple[str, bytes]], what: str = "output images", limit: int | None = None) -> int:
    """The pixels ``images`` (name, encoded bytes) decode to together, from their headers; :class:`ImageTooLarge` past the limit.

    Files that are not images Pillow reads count nothing (whoever decodes them says what is wrong); one
    over Pillow's own guard raises as :func:`header_size` does. ``what`` names them in the message.
    """
    limit = max_case_pixels() if limit is None else limit
    sizes = [(name, size) for name, data in images if (size := header_size(data)) is not None]
    total = sum(width * height for _, (width, height) in sizes)
    if total > limit:
        largest = max(sizes, key=lambda item: item[1][0] * item[1][1])
        raise ImageTooLarge(
            f"the case's {len(sizes)} {what} are {megapixels(total)} together (the largest, {largest[0]}, "
            f"{largest[1][0]}x{largest[1][1]}), over the limit of {megapixels(limit)} per case "
            f"({MAX_CASE_PIXELS_ENV}={limit}); nothing was decoded"
        )
    return total
