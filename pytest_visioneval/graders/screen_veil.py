"""A dimmed or washed-out area of a next screen, and whether a person would read it as a modal backdrop.

A GUI dims the screen behind a dialog, a sheet, a menu or a drawer: the old
screen shows through, darker, and a new panel is drawn on it. The same
darkening with nothing drawn on it (an underexposed render), or one that
stops at an edge inside the content while the rest of the old screen stays
as it was (a veil), is a broken screen; so is a washed-out part (a white
veil).

A veil is found where the output is a darker copy of the input: of the
pixels darkened by more than ``VEIL_STEP`` grey levels, most (``MIN_FIT``)
follow one veil, a black scrim (``out = level * in``, ``level`` at least
``MIN_LEVEL``) or an exposure change (``out = in - offset``); those that
follow it within ``FIT_TOLERANCE``, small holes closed (dark text barely
darkens), grouped into connected areas that show no more structure than
the input shows through (``MAX_NEW_STRUCTURE``) and, over a flat part of
the input, enclose no new content (``MIN_OWN_CONTENT``): a dark toast or
sheet has its own text. A washed-out area is found the same way on the
greys turned over (255 - grey: a white veil is a black one there); a white
veil leaves white white, so its extent is the box around each cluster of
the content it faded (``WASH_GAP``). A dismissed dialog takes its scrim
away: the next screen is lighter with a screen's full contrast, which no
veil explains. The caller ignores areas under its minimum (a pressed or
disabled control).

It is a backdrop when:

* a **panel** sits on it: a part of the screen below the top band that the
  veil leaves out, at least ``MIN_PANEL`` of the screen, on which at least
  ``MIN_PANEL_NEW`` of the screen is drawn anew (farther than
  ``EDGE_MARGIN`` from the veil, whose own soft edge differs), lighter than
  the veil (its 90th-percentile grey ``PANEL_LIGHTER`` above the veil's);
* and little of the old screen is left beside it: of the input's content
  edges (text, borders, icons: pixels off their 5x5 median by more than
  ``CHANGE_TOLERANCE``, so that covering one is a change) below the top
  band (``TOP_BAND``: a status bar or a window's title bar may stay
  undimmed), the share shown as it was where the veil is not
  (``Veil.unveiled``; the caller sets the limit). A panel hides what it
  covers; a veil cut across the screen leaves the rest of the old screen in
  view.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .imaging import CHANGE_TOLERANCE, aligned_difference, soften
from .screen_compare import ScreenPair, aligned, grey

# A scrim leaves at most 85% of the light (screen_palette.SCRIM_LEVELS): white loses 38 levels or more; a
# selected or pressed control's tint darkens by under 25 (the shipped fiction_app's pressed card: 19).
VEIL_STEP = 30.0
MIN_FIT = 0.6  # share of the darkened pixels that one veil explains
MIN_LEVEL = 0.1  # a veil leaves at least this much of the input's contrast (opacity 0.9)
FIT_TOLERANCE = 10.0  # grey levels off that veil still explained (soft edges, re-encoding)
# A veil shows the input through, scaled: the output's grey std over it is at most slope x the input's, plus this.
MAX_NEW_STRUCTURE = 6.0
MIN_OWN_CONTENT = 0.002  # of the screen: new content enclosed by a darkened area over a flat input (a toast's text)
TOP_BAND = 0.1  # of the height
MIN_PANEL = 0.02  # of the screen: a dialog, a sheet, a menu
MIN_PANEL_NEW = 0.01  # of the screen: drawn anew on the panel (its text, fields, buttons)
PANEL_LIGHTER = 10.0  # grey levels
MIN_MOVED = 50  # px at the working size: fewer darkened pixels are no veil
WASH_GAP = 16  # px at the working size: faded content this close is under one white veil
EDGE_MARGIN = 3  # px at the working size along a veil's edge, where its own softened edge differs from the input


@dataclass(frozen=True)
class Veil:
    """One darkened copy of the input: its share of the screen, its box, how much darker, what sits on it."""

    area: float
    box: tuple[float, float, float, float]  # left, top, right, bottom as shares of the width / height
    change: float  # mean grey levels darker (lighter, for a washed-out area) of what it moved, 0-255
    panels: int  # new panels drawn on it
    unveiled: float  # share of the input's content edges below the top band shown as they were beside the veil
    darker: bool = True  # False: washed out (a white veil)

    def describe(self) -> str:
        left, top, right, bottom = self.box
        return (
            f"{self.area:.0%} of the screen (x {left:.0%}-{right:.0%}, y {top:.0%}-{bottom:.0%}) "
            f"{self.change:.0f} grey levels {'darker' if self.darker else 'lighter (washed out)'}"
        )


@dataclass(frozen=True)
class _Screens:
    """Both screens in grey (softened, the output aligned onto the input), what changed, and the input's content."""

    before: np.ndarray
    after: np.ndarray
    new: np.ndarray  # per pixel, changed past CHANGE_TOLERANCE (unsoftened: a thin line or a glyph counts)
    edges: np.ndarray  # the input's content edges (text, borders, icons)
    below: np.ndarray  # under the top band

    @classmethod
    def of(cls, pair: ScreenPair) -> _Screens:
        from scipy import ndimage

        after_rgb = aligned(pair.before, pair.after, subpixel=False)
        before, after = grey(soften(pair.before)), grey(soften(after_rgb))
        below = np.zeros(before.shape, dtype=bool)
        below[int(round(TOP_BAND * before.shape[0])) :] = True
        new = aligned_difference(pair.before, after_rgb) > CHANGE_TOLERANCE
        plain = grey(pair.before)
        # strong enough that covering it changes the pixel past CHANGE_TOLERANCE: faint borders and grid lines are not
        edges = np.abs(plain - ndimage.median_filter(plain, size=5)) > CHANGE_TOLERANCE
        return cls(before, after, new, edges, below)

    def inverted(self) -> _Screens:
        """Both screens' greys turned over (255 - grey): a washed-out copy is then a darker one."""
        return replace(self, before=255 - self.before, after=255 - self.after)


def find_veils(pair: ScreenPair, min_area: float) -> list[Veil]:
    """The darkened or washed-out copies of the input in the output, each at least ``min_area`` of the screen."""
    screens = _Screens.of(pair)
    return _veils(screens, min_area, darker=True) + _veils(screens.inverted(), min_area, darker=False)


def _veils(screens: _Screens, min_area: float, darker: bool) -> list[Veil]:
    """The darker copies of the input (of the inverted input for washed-out ones: a white veil is a black one there)."""
    from scipy import ndimage

    before, after = screens.before, screens.after
    height, width = before.shape
    moved = before - after > VEIL_STEP
    if int(moved.sum()) < MIN_MOVED:
        return []
    fitted = _fit(before[moved], after[moved])
    if fitted is None:
        return []
    slope, offset = fitted
    inliers = moved & (np.abs(after - (slope * before + offset)) <= FIT_TOLERANCE)
    if darker:
        # dark text barely darkens under a scrim: small holes closed
        veiled = ndimage.binary_closing(inliers, iterations=2, border_value=1) & ndimage.binary_dilation(inliers, iterations=2)
    else:
        veiled = _washed_area(inliers)
    labels, count = ndimage.label(veiled)
    sizes = np.bincount(labels.ravel(), minlength=count + 1)
    found = []
    for index in np.flatnonzero(sizes >= min_area * before.size):
        if index == 0:
            continue
        area = labels == index
        if _own_content(area, screens, slope):
            continue  # an element with content of its own (a dark toast, a sheet), not a veil over the input
        panels, unveiled = _panels(area, screens)
        rows, cols = np.flatnonzero(area.any(axis=1)), np.flatnonzero(area.any(axis=0))
        box = (cols[0] / width, rows[0] / height, (cols[-1] + 1) / width, (rows[-1] + 1) / height)
        change = float((before[area & inliers] - after[area & inliers]).mean())
        found.append(Veil(float(area.mean()), box, change, panels, unveiled, darker))
    return found


def _washed_area(faded: np.ndarray) -> np.ndarray:
    """The area a white veil covers: the box around each cluster of the content it faded.

    A white veil leaves white white: only the content under it moves, so its extent is read from that content,
    the pixels within ``WASH_GAP`` px of each other one cluster.
    """
    from scipy import ndimage

    clusters, count = ndimage.label(ndimage.binary_dilation(faded, iterations=WASH_GAP))
    area = np.zeros_like(faded)
    for rows, cols in ndimage.find_objects(np.where(faded, clusters, 0))[:count]:
        area[rows, cols] = True  # the box around the faded pixels themselves, not around their dilation
    return area


def _own_content(area: np.ndarray, screens: _Screens, slope: float) -> bool:
    """Whether a darkened area carries content of its own rather than the input's, seen through.

    More structure than the input shows through (``MAX_NEW_STRUCTURE``), or, over a flat part of the input
    (where a veil and an opaque element look the same), new content it encloses: a dark toast's text.
    """
    from scipy import ndimage

    before, after = screens.before[area], screens.after[area]
    if float(after.std()) > slope * float(before.std()) + MAX_NEW_STRUCTURE:
        return True
    if float(before.std()) >= MAX_NEW_STRUCTURE:
        return False  # the input's content shows through it
    # drawn on it: enclosed pixels that changed and stand out from the area's own colour (where the input had
    # dark text under a veil, the hole shows the veil's colour)
    enclosed = ndimage.binary_fill_holes(area) & ~area & screens.new
    drawn = enclosed & (np.abs(screens.after - float(np.median(after))) > CHANGE_TOLERANCE)
    return float(drawn.sum()) >= MIN_OWN_CONTENT * area.size


def _fit(before: np.ndarray, after: np.ndarray) -> tuple[float, float] | None:
    """The veil ``after = slope * before + offset`` that most darkened pixels follow, or None.

    Two kinds, each with one parameter taken as a median (robust to the next state's own changes under the veil):
    a black scrim multiplies (``slope`` = the light it leaves, offset 0), an exposure change subtracts (slope 1).
    The one more pixels follow within ``FIT_TOLERANCE``; None when it explains fewer than ``MIN_FIT`` of them.
    """
    lit = before > VEIL_STEP
    if not lit.any():
        return None
    level = float(np.clip(np.median(after[lit] / before[lit]), 0.0, 1.0))
    if level < MIN_LEVEL:
        return None  # nothing of the input shows through: new flat content, not a veil
    candidates = [(level, 0.0), (1.0, -float(np.median(before - after)))]
    share, slope, offset = max(
        (float((np.abs(after - (slope * before + offset)) <= FIT_TOLERANCE).mean()), slope, offset)
        for slope, offset in candidates
    )
    return (slope, offset) if share >= MIN_FIT else None


def _panels(veil: np.ndarray, screens: _Screens) -> tuple[int, float]:
    """How many panels sit on ``veil``, and the share of the input's content below the top band shown as it was beside it."""
    from scipy import ndimage

    total = veil.size
    rest = ndimage.binary_opening(screens.below & ~veil, iterations=2)
    inside = rest & ~ndimage.binary_dilation(veil, iterations=EDGE_MARGIN)  # a veil's own soft edge is not new content
    labels, count = ndimage.label(rest)
    light_end = float(np.percentile(screens.after[veil], 90))
    panels = 0
    for index in range(1, count + 1):
        part = labels == index
        drawn = float((part & inside & screens.new).sum()) >= MIN_PANEL_NEW * total
        lighter = float(np.percentile(screens.after[part], 90)) >= light_end + PANEL_LIGHTER
        panels += drawn and lighter and int(part.sum()) >= MIN_PANEL * total
    # the old screen's text, borders and icons shown as they were beside the veil: a panel hides what it covers
    shown = rest & screens.edges & ~screens.new
    return panels, float(shown.sum()) / max(int((screens.edges & screens.below).sum()), 1)
