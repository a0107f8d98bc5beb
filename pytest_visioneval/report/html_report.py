"""The HTML report of a results document.

The page (``templates/report.html.j2``): the summary (run, exit status,
thresholds, benchmark scores, aggregates) as static HTML, then the case
list, drawn by a small script from one compact JSON value in the page
(``html_cases``), a page of cases at a time, so a run of thousands of cases
opens at once. Images are files next to
the report by default (``<report>_files/``, thumbnails and full size), or
embedded with ``embed=True`` (one self-contained file).

It works offline: CSS and JS are inline (package data ``html_page.css`` /
``html_page.js``) and a Content-Security-Policy forbids loading anything but
the report's own images. Prompts, reasons and messages come from case files,
models and judges: the templates escape them, the script only ever sets text.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from markupsafe import Markup

from ..artifacts import write_atomic
from . import html_summary as summary
from .html_cases import case_data, script_json
from .html_images import ReportImages, files_folder
from .html_shell import render_page

THUMBNAIL_SIDE = 360  # px, longest side of the thumbnails in the case list
EMBED_SIDE = 1024  # px, longest side of the full-size view when images are embedded
PAGE_SIZES = (25, 50, 100, 200)


def _filters(data: Mapping[str, Any]) -> dict[str, Any]:
    """The options of the case list's filters and sort (``templates/report.html.j2`` draws them)."""
    several = len(data["models"]) > 1
    sorts = [("uid", "case id"), ("status", "status (worst first)"), ("duration", "duration")]
    sorts += [(f"metric:{i}", f"{name} {'↑' if higher else '↓'}") for i, (name, higher) in enumerate(data["metrics"])]
    if several:
        sorts += [(f"spread:{i}", f"{name}: spread across models") for i, (name, _) in enumerate(data["metrics"])]
    return {
        "statuses": [("failing", "failed or error")] + [(s, s) for s in data["statuses"]],
        "suites": [(s, s) for s in data["suites"]],
        "tags": [(t, t) for t in data["tags"]],
        "models": [(m, m) for m in data["models"]] if several else [],
        "metrics": [(str(i), name) for i, (name, _) in enumerate(data["metrics"])],
        "sorts": sorts,
        "page_sizes": PAGE_SIZES,
    }


def render_html(document: Mapping[str, Any], images: ReportImages | None = None) -> str:
    """The report as one HTML string; ``images`` says where images go (default: embedded)."""
    images = images or ReportImages(None, thumbnail_side=THUMBNAIL_SIDE, embed_side=EMBED_SIDE)
    data = case_data(document.get("cases", []), images)
    data["images"] = images.finish()
    data["run"] = str((document.get("run") or {}).get("id") or "")
    run = document.get("run", {})
    summary_parts = [
        summary.header(document),
        summary.benchmarks(document.get("benchmarks") or {}),
        summary.aggregates(document.get("aggregates", {})),
        summary.timings(document.get("timings")),
        summary.mutation(document.get("mutation")),
    ]
    # Images: embedded (data:) or the report's own files ('self' over http, file: when opened from disk).
    return render_page(
        f"visioneval report {run.get('id', '')}".strip(),
        template="report.html.j2",
        img_src="data: 'self' file:",
        has_scores=bool(document.get("benchmarks")),
        summary=[Markup(part) for part in summary_parts if part],
        data_json=Markup(script_json(data)),  # JSON made safe inside a script element by script_json
        **_filters(data),
    )


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
