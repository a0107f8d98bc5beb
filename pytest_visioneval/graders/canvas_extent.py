"""How much of its canvas an image's content spans: the box around the pixels off the background colour.

A correct picture shrunk into a corner (or the middle) of an otherwise empty canvas keeps every
detail a pixel or OCR check looks for; what a person sees at once is that it no longer fills the
canvas. The share of the canvas's width and height that the content's bounding box covers says so.

The background is the commonest colour in a band along the image's edges, not of all its pixels:
a flyer shrunk to 80% still covers 64% of its canvas with its own cream background, while the
edges are mostly the empty canvas. Compared with a reference, a pixel is content only when it is
off the reference's flat background too (and off the blends of the two backgrounds): a cream
poster shrunk onto a white canvas shows a cream panel, but the content on it is what spans the
canvas in the reference. The image is box-filtered
down first (``imaging.downscaled``), so JPEG noise is averaged away while text and shapes keep
their contrast.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from PIL import Image

# The background is looked for in a band this share of the longer side wide along the edges (at least
# BORDER_MIN_PX of the 256 px copy): a 1-2 px shift that fills the uncovered edge with another colour
# is then a small part of the band, not a whole side of a one-pixel ring.
BORDER_BAND = 0.02
BORDER_MIN_PX = 2
# Band colours are grouped in bins this wide (0-255 per channel) to find the commonest one:
# the same background after JPEG and box filtering lands in one or two bins, a gradient spreads out.
BORDER_BIN = 16
# Off the background by more than this (0-255, largest channel) is content: imaging.BACKGROUND_TOLERANCE,
# what not_blank counts. An output is measured with the lower OUTPUT_TOLERANCE against a reference
# measured with this: a faint grey element at 24-29 from white fell under 24 when the image was made 5
# levels brighter (white clips at 255), cutting a GUI screenshot's extent by 20%; with 16 for the
# output no legitimate copy lost more than 6%. On a flat canvas, JPEG noise after box filtering stays under 4.
CONTENT_TOLERANCE = 24
OUTPUT_TOLERANCE = 16
# A background covering at least this share of the edge band is flat (a canvas, a poster's paper); the
# shipped flyers, mockups and logos measured 0.8-1.0, scene photographs 0.4-0.6.
FLAT_SHARE = 0.7


@dataclass(frozen=True)
class Extent:
    """The content's bounding box as shares of the canvas (0-1)."""

    width: float
    height: float
    box: tuple[float, float, float, float]  # left, top, right, bottom, each 0-1

    def describe(self) -> str:
        return f"{self.width:.0%} x {self.height:.0%}"


EMPTY = Extent(0.0, 0.0, (0.0, 0.0, 0.0, 0.0))


def background(image: Image.Image) -> np.ndarray:
    """``image``'s background colour (RGB, 0-255): see :func:`border_colour`."""
    return border_colour(_pixels(image))


def flat_background(image: Image.Image) -> np.ndarray | None:
    """``image``'s background colour when at least FLAT_SHARE of its edge band is that colour, else None.

    A photograph of a scene has no one background: its edges are wall, table and floor in turn, and
    which of them is commonest can change with a re-encode. Only a flat background is worth
    comparing another image's pixels with.
    """
    return flat_background_of(_pixels(image))


def flat_background_of(pixels: np.ndarray) -> np.ndarray | None:
    """:func:`flat_background` of an image already reduced by ``imaging.downscaled``."""
    import numpy as np

    colour = border_colour(pixels)
    near = np.abs(_edge_band(pixels) - colour).max(axis=1) <= CONTENT_TOLERANCE
    return colour if float(near.mean()) >= FLAT_SHARE else None


def content_extent(image: Image.Image, also_off: Sequence[np.ndarray] = (), tolerance: float = CONTENT_TOLERANCE) -> Extent:
    """The share of ``image``'s width and height spanned by pixels off its background (and off each of ``also_off``)."""
    return content_extent_of(_pixels(image), also_off, tolerance)


def content_extent_of(pixels: np.ndarray, also_off: Sequence[np.ndarray] = (), tolerance: float = CONTENT_TOLERANCE) -> Extent:
    """:func:`content_extent` of an image already reduced by ``imaging.downscaled``."""
    return extent_of(pixels, [border_colour(pixels), *also_off], tolerance)


def extent_of(pixels: np.ndarray, backgrounds: Sequence[np.ndarray], tolerance: float = CONTENT_TOLERANCE) -> Extent:
    """The bounding box of the content, as shares of the canvas: pixels off the background by more than ``tolerance``.

    With more than one background colour, a pixel is background when it is within ``tolerance`` of a
    mix of the first and another: resampling blends the edge of a picture pasted on an empty canvas
    into colours between the two backgrounds, which are no more content than the backgrounds are.
    """
    import numpy as np

    from .imaging import largest_channel

    own = backgrounds[0]
    distance = largest_channel(np.abs(pixels - own))
    for other in backgrounds[1:]:
        step = other - own
        length = float(step @ step)
        if length:
            along = np.clip(((pixels - own) @ step) / length, 0.0, 1.0)
            mix = own + along[..., None] * step
            np.minimum(distance, largest_channel(np.abs(pixels - mix)), out=distance)
    content = distance > tolerance
    rows = np.flatnonzero(content.any(axis=1))
    cols = np.flatnonzero(content.any(axis=0))
    if not rows.size:
        return EMPTY
    height, width = content.shape
    left, top, right, bottom = cols[0] / width, rows[0] / height, (cols[-1] + 1) / width, (rows[-1] + 1) / height
    return Extent(float(right - left), float(bottom - top), (float(left), float(top), float(right), float(bottom)))


def border_colour(pixels: np.ndarray) -> np.ndarray:
    """The mean colour of the commonest colour bin in a band along the edges (RGB, 0-255)."""
    import numpy as np

    ring = _edge_band(pixels)
    bins = (ring // BORDER_BIN).astype(np.int64)
    keys = (bins[:, 0] << 16) | (bins[:, 1] << 8) | bins[:, 2]
    values, counts = np.unique(keys, return_counts=True)
    commonest = values[int(np.argmax(counts))]
    return ring[keys == commonest].mean(axis=0)


def _edge_band(pixels: np.ndarray) -> np.ndarray:
    """The pixels (N x 3) of the band along the edges: BORDER_BAND of the longer side wide, at least BORDER_MIN_PX."""
    import numpy as np

    band = max(BORDER_MIN_PX, round(max(pixels.shape[:2]) * BORDER_BAND))
    edges = np.ones(pixels.shape[:2], dtype=bool)
    edges[band:-band, band:-band] = False
    return pixels[edges]


def _pixels(image: Image.Image) -> np.ndarray:
    from .imaging import downscaled

    return downscaled(image)
