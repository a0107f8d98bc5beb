"""What an output draws where both the input screen and the expected next screen are empty.

A next screen may change a part of the screen, and the reference shows which part. Where the
input and the reference are both plain and alike (an empty list area, a blank margin), a person
expects the output to be plain too: a block or a picture drawn there is something neither the app
nor the step puts there. Plain means the grey level spans at most PLAIN_RANGE over a window of
PLAIN_RADIUS px around the pixel (at the comparison's working size), so content moved by a
re-render's few pixels never lands on it; drawn means the output differs there by more than
DRAWN_CONTRAST (largest RGB difference, 0-255). Drawn pixels are grouped into separate objects as
local changes are (:func:`.local_changes.local_changes`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .imaging import BACKGROUND_TOLERANCE
from .local_changes import local_changes
from .screen_compare import aligned, grey

PLAIN_RADIUS = 3  # px at the working size (256 px on the long side): a shifted edge stays this far off
PLAIN_RANGE = 8.0  # grey levels
DRAWN_CONTRAST = 48.0


@dataclass(frozen=True)
class Drawn:
    share: float  # of the screen's pixels, the largest object's
    box: tuple[int, int, int, int]  # x0, y0, x1, y1 as shares of the width and height (0-1)


def drawn_on_empty(before: np.ndarray, expected: np.ndarray, after: np.ndarray) -> Drawn | None:
    """The largest object ``after`` draws where ``before`` and ``expected`` are both plain and alike; None if none.

    All three are RGB arrays of one size (the working size); ``expected`` and ``after`` are aligned to ``before`` first.
    """
    from scipy import ndimage

    reference, output = aligned(before, expected), aligned(before, after)
    size = 2 * PLAIN_RADIUS + 1

    def plain(pixels: np.ndarray) -> np.ndarray:
        levels = grey(pixels)
        return np.asarray(ndimage.maximum_filter(levels, size) - ndimage.minimum_filter(levels, size) <= PLAIN_RANGE)

    empty = plain(before) & plain(reference) & (np.abs(before - reference).max(axis=2) <= BACKGROUND_TOLERANCE)
    drawn = empty & (np.abs(output - before).max(axis=2) > DRAWN_CONTRAST)
    changes = local_changes(drawn)
    if not changes:
        return None
    height, width = drawn.shape
    x0, y0, x1, y1 = changes[0].box
    return Drawn(changes[0].area / drawn.size, (x0 / width, y0 / height, x1 / width, y1 / height))
