"""The outputs of a run's cases as embedded thumbnails, for the ``compare`` and ``pairwise`` pages.

Those pages know each run by the results JSON it came from (its ``source``); the
case records, and so the output files, are read from there. A run whose results
cannot be read has no pictures, said so on the page, never an error.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..results.case_keys import case_keys
from .html_images import ReportImages

PICTURE_SIDE = 240  # px, longest side of the embedded thumbnails
PICTURES_PER_CASE = 3  # image outputs shown per case and run


class RunCases:
    """One run's case records by comparison key (``uid``, or ``uid[model]``), read from its results JSON."""

    def __init__(self, run: Mapping[str, Any]):
        self.source = Path(str(run.get("source", "")))
        self.cases: dict[str, Mapping[str, Any]] = {}
        self.problem = ""
        self.report: Path | None = None
        try:
            document = json.loads(self.source.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            self.problem = f"cannot read {self.source} ({exc.__class__.__name__}): no pictures"
            return
        model = run.get("model")
        for key, case in case_keys(document.get("cases", ())):
            self.cases[key] = case
            if not model or case.get("model") == model:
                self.cases.setdefault(str(case["uid"]), case)
        report = self.source.parent / "report.html"  # a report written beside the results
        self.report = report if report.is_file() else None

    def link(self, key: str, page_folder: Path | None) -> str:
        """The URL of the case's card in the run's report, relative to the page's folder; "" without a report."""
        if self.report is None or key not in self.cases:
            return ""
        target = str(self.report.resolve())
        if page_folder is not None:
            target = os.path.relpath(target, page_folder.resolve())
        uid = str(self.cases[key].get("uid", key))
        return f"{quote(target)}#case={quote(uid, safe='')}"


def pictures_of(wanted: Sequence[tuple[RunCases, str]]) -> dict[tuple[Path, str], list[list[Any]]]:
    """(run source, case key) -> the image table rows (thumb, full, width, height, note) of its image outputs."""
    images = ReportImages(None, thumbnail_side=PICTURE_SIDE, embed_side=PICTURE_SIDE)
    slots: dict[tuple[Path, str], list[int]] = {}
    for run, key in wanted:
        case = run.cases.get(key) or {}
        paths = [a["path"] for a in case.get("artifacts") or [] if str(a.get("mime", "")).startswith("image/")]
        slots[(run.source, key)] = [images.add(p) for p in paths[:PICTURES_PER_CASE]]
    table = images.finish()
    return {slot: [table[i] for i in indices] for slot, indices in slots.items()}


@dataclass(frozen=True)
class Pictures:
    """A run's outputs of one case as a table cell (``macros.pictures`` draws it)."""

    shown: list[str]  # the thumbnails' URLs
    missing: list[str]  # why an image cannot be shown
    alt: str
    link: str = ""  # the case's card in the run's report


def picture_cell(pictures: Sequence[Sequence[Any]], alt: str, link: str = "") -> Pictures:
    """The thumbnails of ``pictures_of``'s rows (or why each cannot be shown) and the link to the case's card."""
    return Pictures([str(p[0]) for p in pictures if p[0]], [str(p[4]) for p in pictures if not p[0]], alt, link)
