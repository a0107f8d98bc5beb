"""Gates of ``render_check`` on a rendered page's layout, from ``render.json``: its width, and its drawn pictures.

``fits_width``: the page is no wider than its viewport, or a person cannot scroll sideways to the rest.
``graphics_shown``: of the drawn pictures (svg, canvas, video) that take room on the page, one is shown.
The renderer measures both after the captures (``width``, ``graphics``; see docs/rendering.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import Gate

# A page may be this much wider than its viewport (a stray pixel of a 100vw box beside a scroll bar, a shadow).
WIDTH_SLACK = 1.02
WIDTH_SLACK_PX = 8


def fits_width_gate(report: Mapping[str, Any]) -> Gate | None:
    """The page is no wider than its viewport, or a person cannot scroll sideways to the rest; None when not measured."""
    width = report.get("width")
    if not isinstance(width, Mapping):
        return None
    page, viewport = int(width.get("page") or 0), int(width.get("viewport") or 0)
    if not viewport:
        return None
    if page <= viewport * WIDTH_SLACK + WIDTH_SLACK_PX or not width.get("scrolls", True):
        return Gate("fits_width", True, f"the page is {page} px wide in a {viewport} px viewport")
    return Gate(
        "fits_width",
        False,
        f"the page is {page} px wide in a {viewport} px viewport: a person scrolls sideways to see "
        f"{1 - viewport / page:.0%} of its width, and the captures (the viewport's width) never show it",
    )


def graphics_shown_gate(report: Mapping[str, Any]) -> Gate | None:
    """Of the drawn pictures (svg, canvas, video) that take room on the page, at least one is shown.

    None when the page has none, or its report predates the measurement.
    """
    graphics = report.get("graphics")
    if not isinstance(graphics, Mapping) or not int(graphics.get("laid_out") or 0):
        return None
    laid_out, shown = int(graphics["laid_out"]), int(graphics.get("shown") or 0)
    if shown:
        return Gate("graphics_shown", True, f"{shown} of the {laid_out} drawn pictures (svg, canvas, video) shown")
    listed = ", ".join(str(label) for label in graphics.get("unseen") or ())
    return Gate(
        "graphics_shown",
        False,
        f"none of the {laid_out} drawn pictures (svg, canvas, video) that take room on the page is shown "
        f"(visibility: hidden, opacity under 0.1): {listed}",
    )
