"""The quality a JPEG file was saved at, read from its quantisation tables.

A JPEG's loss is set by the quantisation tables in its header. libjpeg (behind Pillow, ImageMagick and
most services) scales one standard luminance table by the quality setting: 50 keeps it, lower settings
multiply it (5 multiplies it by ten, capped at 255), higher ones shrink it. At the lowest settings the
8x8 blocks and the halos around every edge are plain at a glance. The estimate is the setting whose
scaled table is nearest the file's (mean absolute log ratio over the 64 entries): exact for a file
libjpeg wrote, approximate for an encoder with base tables of its own.

Only the header is read: no pixel is decoded. A picture decoded from a heavy JPEG and saved again as
PNG carries no such table; this does not see it.
"""

from __future__ import annotations

import io
from functools import cache

import numpy as np
from PIL import Image

# ITU-T T.81, Annex K, table K.1 (luminance), row by row: the order Pillow gives ``Image.quantization`` in.
STANDARD_LUMINANCE = (
    16, 11, 10, 16, 24, 40, 51, 61,
    12, 12, 14, 19, 26, 58, 60, 55,
    14, 13, 16, 24, 40, 57, 69, 56,
    14, 17, 22, 29, 51, 87, 80, 62,
    18, 22, 37, 56, 68, 109, 103, 77,
    24, 35, 55, 64, 81, 104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101,
    72, 92, 95, 98, 112, 100, 103, 99,
)  # fmt: skip


@cache
def libjpeg_table(quality: int) -> tuple[int, ...]:
    """The luminance table libjpeg writes for ``quality`` (1-100), baseline (entries capped at 255)."""
    scale = 5000 // quality if quality < 50 else 200 - 2 * quality
    return tuple(min(255, max(1, (entry * scale + 50) // 100)) for entry in STANDARD_LUMINANCE)


def estimated_quality(data: bytes) -> int | None:
    """The libjpeg quality (1-100) whose luminance table is nearest this JPEG's; None for another format or no table."""
    if not data.startswith(b"\xff\xd8"):
        return None
    try:
        with Image.open(io.BytesIO(data)) as image:
            tables = getattr(image, "quantization", None) or {}
    except (OSError, ValueError, SyntaxError):  # the decodes gate reports a file that does not open
        return None
    luminance = tables.get(0)
    if luminance is None or len(luminance) != len(STANDARD_LUMINANCE):
        return None
    distances = np.abs(_log_tables() - np.log(np.maximum(1, np.asarray(luminance, dtype=np.float64)))).mean(axis=1)
    return int(np.argmin(distances)) + 1  # the first of equally near settings, as row i is quality i + 1


@cache
def _log_tables() -> np.ndarray:
    """The logarithms of libjpeg's tables for qualities 1-100, a row each (made once: 100 x 64)."""
    return np.log(np.array([libjpeg_table(quality) for quality in range(1, 101)], dtype=np.float64))
