"""What the text views share: aligned tables, lines fitted to a width, shortened names, number formats.

Fitting never cuts: a CI log is read at 80 columns, and a line cut with "..." hides the very
fact a user came for (a failed gate, a missed threshold, the exit status). Lines are wrapped,
and a table too wide for the width is laid out one entry per row.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable, Sequence

_NAME_WIDTH = 44  # longer names are shortened in the middle, so the suite and the score stay readable
HANG = 4  # continuation lines are indented this much more than the line they continue
_BRACKETS = re.compile(r"\[[^\[\]\n]{1,40}\]")  # a short bracketed group: an interval, a label
_GLUE = "\x00"


def text_table(rows: Sequence[Sequence[str]]) -> list[str]:
    """Left-aligned first column, right-aligned numbers, the last column as is; a one-cell row is a heading line."""
    full = [row for row in rows if len(row) > 1]
    widths = [max(len(row[i]) for row in full) for i in range(len(full[0]))]
    out = []
    for row in rows:
        if len(row) == 1:
            out.append(row[0])
            continue
        cells = [row[0].ljust(widths[0])] + [cell.rjust(widths[i]) for i, cell in enumerate(row[1:-1], start=1)] + [row[-1]]
        out.append("  ".join(cells).rstrip())
    return out


def left_table(rows: Sequence[Sequence[str]], indent: str = "  ") -> list[str]:
    """Left-aligned columns, the first row is the header."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [indent + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]


def wrap_line(line: str, width: int | None, hang: int = HANG) -> list[str]:
    """``line`` as it is when it fits ``width`` (None: any width), else wrapped at spaces.

    Continuation lines keep the line's own indent plus ``hang``. A single word longer than the
    room (a long path) goes on a line of its own, whole: it is copied, not read, and a path
    broken in two cannot be pasted. Every other line fits.
    """
    if width is None or len(line) <= width:
        return [line]
    indent = " " * (len(line) - len(line.lstrip(" ")))
    if len(indent) + hang > width // 2:  # deeply indented: keep at least half the width for the text
        indent = indent[: max(0, width // 2 - hang)]
    # An interval "[20.8, 93.9]" stays on one line: its spaces are glued while wrapping.
    glued = _BRACKETS.sub(lambda m: m.group(0).replace(" ", _GLUE), line.strip())
    pieces = textwrap.wrap(
        glued,
        width,
        initial_indent=indent,
        subsequent_indent=indent + " " * hang,
        break_long_words=False,
        break_on_hyphens=False,
    )
    return [piece.replace(_GLUE, " ") for piece in pieces]


def fit_lines(lines: Iterable[str], width: int | None) -> list[str]:
    """Every line wrapped to ``width`` (see :func:`wrap_line`)."""
    return [piece for line in lines for piece in wrap_line(line, width)]


def fits(lines: Iterable[str], width: int | None) -> bool:
    return width is None or all(len(line) <= width for line in lines)


def fit_table(rows: Sequence[Sequence[str]], width: int | None, indent: str = "  ") -> list[str]:
    """A left-aligned table when it fits ``width``; else one entry per row, ``first: header value, ...``, wrapped.

    A column with an empty header (a verdict) gives its value alone; empty cells are left out.
    """
    lines = left_table(rows, indent)
    if fits(lines, width):
        return lines
    header = rows[0]
    entries = []
    for row in rows[1:]:
        cells = [f"{name} {value}".strip() for name, value in zip(header[1:], row[1:], strict=True) if value]
        entries.append(f"{indent}{row[0]}: " + ", ".join(cells))
    return fit_lines(entries, width)


def short_name(name: str, width: int = _NAME_WIDTH) -> str:
    if len(name) <= width:
        return name
    keep = width - 3
    return name[: keep // 2] + "..." + name[-(keep - keep // 2) :]


def clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def signed(value: float) -> str:
    return "0" if value == 0 else f"{value:+.4g}"


def pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"
