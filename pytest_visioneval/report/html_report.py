"""The HTML report of a results document.

The page: the summary (run, exit status, thresholds, benchmark scores,
aggregates) as static HTML, then the case list, drawn by a small script from
one compact JSON value in the page (``html_cases``), a page of cases at a
time, so a run of thousands of cases opens at once. Images are files next to
the report by default (``<report>_files/``, thumbnails and full size), or
embedded with ``embed=True`` (one self-contained file).

It works offline: CSS and JS are inline (package data ``html_page.css`` /
``html_page.js``) and a Content-Security-Policy forbids loading anything but
the report's own images. Prompts, reasons and messages come from case files,
models and judges: the summary escapes them, the script only ever sets text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..artifacts import write_atomic
from . import html_summary as summary
from .html_cases import case_data, script_json
from .html_images import ReportImages, files_folder
from .html_shell import render_page

THUMBNAIL_SIDE = 360  # px, longest side of the thumbnails in the case list
EMBED_SIDE = 1024  # px, longest side of the full-size view when images are embedded
PAGE_SIZES = (25, 50, 100, 200)
e = summary.e


def _select(ident: str, label: str, options: Sequence[tuple[str, str]], first: str = "all") -> str:
    items = "".join(f'<option value="{e(v)}">{e(text)}</option>' for v, text in options)
    return f'<label>{label} <select id="{ident}"><option value="">{e(first)}</option>{items}</select></label>'


def _filters(data: Mapping[str, Any]) -> str:
    statuses = [("failing", "failed or error")] + [(s, s) for s in data["statuses"]]
    metrics = [(str(i), name) for i, (name, _) in enumerate(data["metrics"])]
    sorts = [("uid", "case id"), ("status", "status (worst first)"), ("duration", "duration")]
    sorts += [(f"metric:{i}", f"{name} {'↑' if higher else '↓'}") for i, (name, higher) in enumerate(data["metrics"])]
    several = len(data["models"]) > 1
    if several:
        sorts += [(f"spread:{i}", f"{name}: spread across models") for i, (name, _) in enumerate(data["metrics"])]
    sort_options = "".join(f'<option value="{e(v)}"{" selected" if v == "uid" else ""}>{e(t)}</option>' for v, t in sorts)
    sizes = "".join(f"<option{' selected' if n == 50 else ''}>{n}</option>" for n in PAGE_SIZES)
    parts = [
        '<div class="filters" id="filters">',
        '<label>view <select id="f-view"><option value="table">table</option>'
        '<option value="cards">cards</option></select></label>',
        '<label>search <input type="search" id="f-text" placeholder="id, prompt, reason, error"></label>',
        _select("f-status", "status", statuses),
        _select("f-suite", "suite", [(s, s) for s in data["suites"]]),
        _select("f-tag", "tag", [(t, t) for t in data["tags"]]),
    ]
    if several:
        parts.append(_select("f-model", "model", [(m, m) for m in data["models"]]))
    parts += [
        _select("f-metric", "metric", metrics, first="any"),
        '<label>from <input type="number" id="f-min" step="any"></label>',
        '<label>to <input type="number" id="f-max" step="any"></label>',
        f'<label>sort by <select id="f-sort">{sort_options}</select></label>',
        '<button type="button" id="f-dir" aria-pressed="false">ascending</button>',
        f'<label>per page <select id="f-size">{sizes}</select></label>',
        '<button type="button" id="f-reset">reset</button>',
        '<span id="counter"></span>',
        "</div>",
    ]
    return "".join(parts)


def _label_bar() -> str:
    """The labelling tools: who labels, how far they are, export and merge (the script shows it when a judge decided anything)."""
    return (
        '<div class="labelbar" id="labelbar" hidden><b>Labels for judge calibration</b>'
        '<label>rater <input type="text" id="l-rater" placeholder="your name" size="12"></label>'
        '<span id="l-progress"></span>'
        '<button type="button" id="l-export">export CSV</button>'
        '<label>merge a CSV <input type="file" id="l-import" accept=".csv,text/csv"></label>'
        '<button type="button" id="l-start">label the shown cases</button>'
        '<span id="l-note" class="small"></span>'
        '<span class="small">keys: j / k next / previous item, y / n agree / disagree, 0-9 a score, Esc back to the list</span>'
        "</div>"
    )


def _pager() -> str:
    return (
        '<div class="pager"><button type="button" data-step="-1">‹ previous</button>'
        '<span class="page-label"></span><button type="button" data-step="1">next ›</button></div>'
    )


def render_html(document: Mapping[str, Any], images: ReportImages | None = None) -> str:
    """The report as one HTML string; ``images`` says where images go (default: embedded)."""
    images = images or ReportImages(None, thumbnail_side=THUMBNAIL_SIDE, embed_side=EMBED_SIDE)
    data = case_data(document.get("cases", []), images)
    data["images"] = images.finish()
    data["run"] = str((document.get("run") or {}).get("id") or "")
    run = document.get("run", {})
    title = f"visioneval report {run.get('id', '')}".strip()
    nav = ['<a href="#top">summary</a>']
    if document.get("benchmarks"):
        nav.append('<a href="#scores">benchmark scores</a>')
    nav += ['<a href="#suites">suites</a>', '<a href="#cases">cases</a>']
    parts = [
        f'<div class="topbar" id="top"><h1>visioneval report</h1><nav>{"".join(nav)}</nav></div>',
        summary.header(document),
        summary.benchmarks(document.get("benchmarks") or {}),
        summary.aggregates(document.get("aggregates", {})),
        summary.timings(document.get("timings")),
        summary.mutation(document.get("mutation")),
        '<h2 id="cases">Cases</h2>',
        _filters(data),
        _label_bar(),
        _pager(),
        '<div id="case-list"></div>',
        _pager(),
        "<noscript><p>The case list needs JavaScript; the results JSON holds every case.</p></noscript>",
        '<div id="lightbox" hidden><div class="frame"><img alt=""></div>'
        '<p><span class="caption"></span><a target="_blank" rel="noopener">open the file</a></p></div>',
        f'<script type="application/json" id="report-data">{script_json(data)}</script>',
    ]
    # Images: embedded (data:) or the report's own files ('self' over http, file: when opened from disk).
    return render_page(title, parts, img_src="data: 'self' file:")


def write_html_report(
    document: Mapping[str, Any],
    path: Path,
    *,
    embed: bool = False,
    thumbnail_side: int = THUMBNAIL_SIDE,
    embed_side: int = EMBED_SIDE,
) -> Path | None:
    """Write the report to ``path`` (atomically); return the folder of its images (None when embedded)."""
    path = Path(path)
    if embed:
        images = ReportImages(None, thumbnail_side=thumbnail_side, embed_side=embed_side)
        folder = None
    else:
        folder = files_folder(path)
        images = ReportImages(folder, quote(folder.name) + "/", thumbnail_side=thumbnail_side)
    write_atomic(path, render_html(document, images).encode("utf-8"))
    return folder
