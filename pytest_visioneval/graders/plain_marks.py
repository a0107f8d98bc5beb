"""Local changes that stand on a plain part of the input: marks a person sees at once.

On a plain surface (a wall, a sky, a page's margin) a distinct mark is seen however small it
is: a stray letter, a speck, a scratch. The area limits of ``locality`` let a change of a few
pixels through, because re-rendering and re-encoding move the pixels along edges by that much;
where the input has no edge they move nothing past a few levels. So a local change counts as a
mark when the input is plain all around it (the range of its luma over the change's box, widened
by MARGIN px, is at most PLAIN_RANGE levels) and the output differs there strongly (a largest
RGB difference of at least MARK_CONTRAST). Changes under MIN_AREA pixels are single-pixel noise,
and changes next to the editable area may be the edit blended into its surroundings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .alignment import grey
from .local_changes import Change

# Measured with benchmarks/locality_separation.py (docs/graders.md): see there for the spreads.
PLAIN_RANGE = 12.0  # luma levels (0-255) across the input around the change
MARK_CONTRAST = 64.0  # largest RGB difference (0-255) of the output inside the change's box
MARGIN = 2  # px around the change's box that must be plain too
MIN_AREA = 4  # changed pixels
EDIT_GAP = 0.02  # of the long side (at least 3 px): changes this close to the editable area may be its blending


@dataclass(frozen=True)
class PlainMark:
    change: Change
    contrast: float  # the largest RGB difference inside its box (0-255)


def plain_marks(
    changes: Sequence[Change], expected: np.ndarray, actual: np.ndarray, edit: np.ndarray | None = None
) -> list[PlainMark]:
    """The ``changes`` (found between ``expected`` and ``actual``, RGB 0-255) that are marks on a plain area, largest first.

    ``edit``: the editable pixels. A change within EDIT_GAP of them is not a mark: an edit model
    blends its edit into the pixels just outside the mask, and that is not a stray mark.
    """
    if not changes:
        return []
    near_edit = _near(edit) if edit is not None and edit.any() else None
    luma = grey(np.asarray(expected, dtype=np.float32))
    height, width = luma.shape
    marks = []
    for change in changes:
        if change.area < MIN_AREA:
            continue
        x0, y0, x1, y1 = change.box
        if near_edit is not None and near_edit[y0:y1, x0:x1].any():
            continue
        around = luma[max(0, y0 - MARGIN) : min(height, y1 + MARGIN), max(0, x0 - MARGIN) : min(width, x1 + MARGIN)]
        if float(around.max() - around.min()) > PLAIN_RANGE:
            continue
        box = (slice(y0, y1), slice(x0, x1))
        contrast = float(np.abs(np.asarray(actual[box], dtype=np.float32) - np.asarray(expected[box], dtype=np.float32)).max())
        if contrast >= MARK_CONTRAST:
            marks.append(PlainMark(change, contrast))
    return sorted(marks, key=lambda mark: -mark.change.area)


def _near(edit: np.ndarray) -> np.ndarray:
    """The pixels within EDIT_GAP of an editable one (the editable ones included)."""
    from scipy import ndimage  # loaded when a comparison is made, not at plugin start

    gap = max(3.0, EDIT_GAP * max(edit.shape))
    return np.asarray(ndimage.distance_transform_edt(~edit) <= gap)
