"""What the ``compare`` and ``pairwise`` pages share: table cells, intervals drawn around zero, and the page
around it all (:mod:`.html_shell`: the report's template, stylesheet and script).

The pages are jinja2 templates (``templates/compare.html.j2``, ``pairwise.html.j2``) using the macros of
``macros.html.j2``; this module gives them their values. Case names and reasons come from case files,
models and judges: the templates escape every value, and the Content-Security-Policy allows only the page's
own style, script and embedded images.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..artifacts import write_atomic
from .html_shell import csp_hash, render_page

__all__ = ["csp_hash", "render", "write_page"]


@dataclass(frozen=True)
class Cell:
    """A table cell: its content (text, escaped by the template, or :class:`Markup`), and how its column sorts it."""

    content: Any
    sort: str | None = None  # the value the column sorts by, when not the text
    numeric: bool = False  # right-aligned


def number_cell(text: str, sort: float | None = None) -> Cell:
    return Cell(text, None if sort is None else repr(float(sort)), True)


def markup_cell(markup: Any) -> Cell:
    """A cell of markup our own code made (an interval's drawing, a styled word)."""
    return Cell(markup)


@dataclass(frozen=True)
class Interval:
    """An interval on a 160 px scale symmetric around 0 (``macros.interval`` draws it)."""

    low: float
    diff: float
    high: float
    verdict: str  # better, worse, unclear: its colour

    def _x(self, value: float) -> str:
        reach = max(abs(self.low), abs(self.high), 1e-12)
        return f"{80 + value / reach * 74:.1f}"

    @property
    def x_low(self) -> str:
        return self._x(self.low)

    @property
    def x_mid(self) -> str:
        return self._x(self.diff)

    @property
    def x_high(self) -> str:
        return self._x(self.high)

    @property
    def label(self) -> str:
        return f"interval {self.low:+.4g} to {self.high:+.4g}"


def interval_cell(low: float, diff: float, high: float, verdict: str) -> Cell:
    return Cell(Interval(low, diff, high, verdict))


def render(template: str, title: str, **context: Any) -> str:
    """A compare or pairwise page: ``template`` with ``context``, embedded images only."""
    return render_page(title, template=template, img_src="data:", **context)


def write_page(html: str, path: Path) -> None:
    write_atomic(Path(path), html.encode("utf-8"))
