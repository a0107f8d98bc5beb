"""The colours a screen is made of, and how much of another screen is painted in colours it lacks.

A GUI keeps one palette across its screens: a step opens a menu or a dialog,
moves to another page, and the header, the background, the accent and the
text colours stay. Another app paints in other colours. A screen's palette is
its colours after median-cut quantization (``colours`` clusters of a
thumbnail, each with the share of pixels it covers), compared in CIELAB with
CIEDE2000, the colour difference a person sees (about 2 is just noticeable).

A modal scrim darkens the screen behind a menu or a dialog: the reference's
colours blended with black (``SCRIM_LEVELS``) count as its own.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PIL import Image

from .imaging import rgb_array

THUMBNAIL_LONGEST = 128  # px: enough for a screen's colour areas, cheap to quantize
PALETTE_COLOURS = 16
# The app's own screen (the yardstick) is quantized finer: with 16 colours a JPEG copy of a mostly white screen
# spends them on shades of white and merges its small share of dark text away, so the next screen's text
# counted as a new colour (5.8% of a shipped frame at q70-81). With 24, JPEG q60-95 copies of the shipped
# trajectories stay at 2.8% or less and another app's screen in the calendar at 5.2% or more.
REFERENCE_COLOURS = 24
# A reference colour counts when it covers at least this share (smaller clusters are blends of anti-aliased edges).
MIN_REFERENCE_SHARE = 0.001
# What is left of a colour under a black scrim: 1 (none) down to 0.3 (a heavy one).
SCRIM_LEVELS = (1.0, 0.85, 0.7, 0.6, 0.5, 0.4, 0.3)


@dataclass(frozen=True)
class Palette:
    lab: np.ndarray  # k x 3, CIELAB
    share: np.ndarray  # k, the share of the image each colour covers (sums to 1)


def palette(image: Image.Image, colours: int = PALETTE_COLOURS) -> Palette:
    """The image's ``colours`` main colours (median cut on a thumbnail) and the share of pixels each covers."""
    from skimage.color import rgb2lab  # loaded when a palette is made, not at plugin start

    flat = Image.fromarray(rgb_array(image).astype(np.uint8))
    scale = min(1.0, THUMBNAIL_LONGEST / max(flat.size))
    small = flat.resize((max(1, round(flat.width * scale)), max(1, round(flat.height * scale))), Image.Resampling.BOX)
    quantized = small.quantize(colors=colours, method=Image.Quantize.MEDIANCUT)
    entries = np.asarray(quantized.getpalette() or [0, 0, 0], dtype=np.float64)
    rgb = entries[: 3 * (len(entries) // 3)].reshape(-1, 3)[:colours]  # a flat image has a shorter palette
    counts = np.bincount(np.asarray(quantized).ravel(), minlength=len(rgb))[: len(rgb)]
    used = counts > 0
    return Palette(rgb2lab(rgb[used][None] / 255)[0], counts[used] / counts.sum())


def reference_palette(image: Image.Image) -> Palette:
    """The palette of a screen other screens are held to (``REFERENCE_COLOURS`` colours)."""
    return palette(image, REFERENCE_COLOURS)


def new_colour_share(image: Palette, reference: Palette, max_delta_e: float) -> float:
    """The share of ``image`` painted in colours farther than ``max_delta_e`` (CIEDE2000) from every reference colour.

    The reference's colours under a black scrim (``SCRIM_LEVELS``) count as its own.
    """
    from skimage.color import deltaE_ciede2000, lab2rgb, rgb2lab

    base = lab2rgb(reference.lab[reference.share >= MIN_REFERENCE_SHARE][None])[0]
    known = np.concatenate([rgb2lab(base[None] * level)[0] for level in SCRIM_LEVELS])
    nearest = deltaE_ciede2000(image.lab[:, None, :], known[None, :, :]).min(axis=1)
    return float(image.share[nearest > max_delta_e].sum())
