"""Areas where the output shows the comparison image's content faded: a veil laid over part of it.

A translucent veil (a washed-out panel, a grey film, a dark overlay) keeps every shape where it
was and moves each colour only part of the way, so per-pixel colour differences can stay under
their tolerance while a person sees the content under it fade. The comparison image's content
areas - tiles of TILE px (stepping STEP px) at the working size whose softened grey varies (a
standard deviation of at least MIN_CONTENT_STD) - are compared by that spread: a tile where the
output's spread, over the tile widened by SHIFT_MARGIN px so content a re-render moved stays in,
is under FADED_RATIO of the comparison's, while the two still correlate over the tile (at least
MIN_CORRELATION: the same content, only weaker, not content moved elsewhere), is faded.

Measured on the 12 shipped reference images of the cookbook mockups, flyers and promo flyers and
the bizgeneval examples (docs/graders.md): JPEG q70 and q90, 1-2 px shifts, +-5 levels and resize
round trips at 0.6 and 0.8 leave no tile faded (0 of 108 copies has one); veils of opacity
0.55-0.85 over a fifth to a half of the picture fade 4-102 tiles where they cover content, and
0-1 where they cover almost none (those change little a person sees, or the colour check sees).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .alignment import grey
from .tiles import WindowSums, box_around, correlation, grid, widened

TILE = 16  # px at the working size (256 px on the long side)
STEP = 8
MIN_CONTENT_STD = 10.0  # grey levels: a tile with less spread holds no content to fade
FADED_RATIO = 0.6
SHIFT_MARGIN = 3  # px
MIN_CORRELATION = 0.7  # between the output and the reference over the tile: the same content, only weaker
MIN_WHERE = 0.9  # of a tile the caller's mask must cover for the tile to be compared


@dataclass(frozen=True)
class Fading:
    faded: int  # content tiles faded
    content: int  # content tiles compared
    box: tuple[float, float, float, float] | None  # around the faded tiles: x0, y0, x1, y1 as shares of the size


def fading(output: np.ndarray, target: np.ndarray, where: np.ndarray | None = None) -> Fading:
    """The faded content tiles of ``output`` against ``target`` (aligned RGB arrays of one size, 0-255).

    ``where`` (a boolean mask of that size) limits the comparison to the tiles it covers almost whole
    (``MIN_WHERE``): the parts of a next screen its step leaves as they were.
    """
    from scipy import ndimage

    out = ndimage.gaussian_filter(grey(output), 1.0)
    tgt = ndimage.gaussian_filter(grey(target), 1.0)
    height, width = tgt.shape
    tiles = grid(height, width, TILE, STEP)
    out_sums, tgt_sums = WindowSums(out), WindowSums(tgt)
    spread = tgt_sums.std(tiles)
    # The same content, only weaker: what a veil leaves. Content the output moved elsewhere (a label set
    # lower) leaves the tile plain or unlike the reference's, which is layout, not fading.
    alike = correlation(out, tgt, tiles, out_sums, tgt_sums) >= MIN_CORRELATION
    content = spread >= MIN_CONTENT_STD
    if where is not None:
        content &= WindowSums(where.astype(np.float64)).mean(tiles) >= MIN_WHERE
    faded = content & alike & (out_sums.std(widened(tiles, SHIFT_MARGIN, height, width)) < FADED_RATIO * spread)
    if not faded.any():
        return Fading(0, int(content.sum()), None)
    return Fading(int(faded.sum()), int(content.sum()), box_around(tiles, faded, height, width))
