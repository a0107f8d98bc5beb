"""What the ``compare`` and ``pairwise`` pages share: escaped sortable tables, intervals drawn around zero,
and the page around it all (:mod:`.html_shell`: the report's template, stylesheet and script).

Case names and reasons come from case files, models and judges, so all text is
escaped, and the Content-Security-Policy allows only the page's own style, script and embedded images.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape
from pathlib import Path

from ..artifacts import write_atomic
from .html_shell import csp_hash, render_page

__all__ = ["csp_hash", "page", "write_page"]


def escaped(value: object) -> str:
    return escape(str(value), quote=True)


class Cell(str):
    """A cell already in HTML; ``sort`` is the value its column sorts by."""

    sort: str | None = None
    numeric: bool = False


def number_cell(text: str, sort: float | None = None) -> Cell:
    cell = Cell(escaped(text))
    cell.numeric = True
    cell.sort = None if sort is None else repr(float(sort))
    return cell


def markup_cell(markup: str) -> Cell:
    return Cell(markup)


def html_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    head = "".join(f"<th>{escaped(h)}</th>" for h in header)
    body = []
    for row in rows:
        cells = []
        for cell in row:
            attrs = ""
            if isinstance(cell, Cell):
                attrs += ' class="num"' if cell.numeric else ""
                attrs += f' data-sort="{escaped(cell.sort)}"' if cell.sort is not None else ""
                cells.append(f"<td{attrs}>{cell}</td>")
            else:
                cells.append(f"<td>{escaped(cell)}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    return f'<table class="sortable"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def interval_svg(low: float, diff: float, high: float, verdict: str) -> str:
    """The interval on a scale symmetric around 0, so whether it crosses 0 shows at a glance."""
    reach = max(abs(low), abs(high), 1e-12)
    width, mid = 160, 80

    def x(value: float) -> str:
        return f"{mid + value / reach * (mid - 6):.1f}"

    return (
        f'<svg class="ci {escaped(verdict)}" width="{width}" height="14" viewBox="0 0 {width} 14" role="img" '
        f'aria-label="interval {low:+.4g} to {high:+.4g}">'
        f'<line class="zero" x1="{mid}" y1="0" x2="{mid}" y2="14"></line>'
        f'<line class="bar" x1="{x(low)}" y1="7" x2="{x(high)}" y2="7"></line>'
        f'<circle cx="{x(diff)}" cy="7" r="3"></circle></svg>'
    )


def page(title: str, parts: Iterable[str]) -> str:
    """A whole page: ``parts`` (HTML) in the body, with the shared template, style, script and policy (embedded images only)."""
    return render_page(title, parts, img_src="data:")


def write_page(html: str, path: Path) -> None:
    write_atomic(Path(path), html.encode("utf-8"))
