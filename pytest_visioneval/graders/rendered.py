"""What rendering a page adds to a case's artifacts, for the graders that read it.

``pages/prepare.py`` names its captures with these names (graders may not
import ``pages/``, so the names live here). A replayed output folder of an
earlier run can hold captures of its own; the renderer's are added after the
model's files, so the *last* artifact of a name is the current one.

Also here: whether an ``<img>`` source names an image file of the model's
output, shared by the ``html`` grader (``img_files``) and ``render_check``
(``img_sources``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from ..artifacts import Artifact

REPORT_NAME = "render.json"
DOM_NAME = "dom-snapshot.txt"
FULL_PAGE_NAME = "fullpage.png"
_SCREENSHOT = re.compile(r"^screenshot-\d+\.png$")


def screenshot_name(index: int) -> str:
    """The name of the ``index``-th viewport screenshot (1-based)."""
    return f"screenshot-{index}.png"


def capture_names(screenshots: int, full_page: bool) -> list[str]:
    """The image captures of one render, in the order they are taken."""
    return [screenshot_name(i) for i in range(1, screenshots + 1)] + ([FULL_PAGE_NAME] if full_page else [])


def is_screenshot(name: str) -> bool:
    return bool(_SCREENSHOT.match(name)) or name == FULL_PAGE_NAME


def is_capture(name: str) -> bool:
    """A file the renderer writes: never an output of the model, even when a replayed folder holds one."""
    return is_screenshot(name) or name in (DOM_NAME, REPORT_NAME)


def latest(artifacts: Sequence[Artifact], name: str) -> Artifact | None:
    """The last artifact called ``name`` (the current render's, when an old one was replayed too)."""
    return next((a for a in reversed(artifacts) if a.name == name), None)


def read_report(artifacts: Sequence[Artifact]) -> dict[str, Any] | None:
    """The current ``render.json`` as a dict; None when the page was not rendered. ValueError if it is unreadable."""
    report = latest(artifacts, REPORT_NAME)
    if report is None:
        return None
    data = json.loads(report.data)
    if not isinstance(data, dict):
        raise ValueError(f"{REPORT_NAME} does not hold an object")
    return data


def screenshots(artifacts: Sequence[Artifact], report: dict[str, Any] | None) -> list[Artifact]:
    """The current render's captures: those the report lists (else every capture name), the latest of each."""
    listed = report.get("captures") if report else None
    if isinstance(listed, list):
        found = (latest(artifacts, str(name)) for name in listed)
        return [a for a in found if a is not None and a.kind == "image"]
    named = {a.name: a for a in artifacts if a.kind == "image" and is_screenshot(a.name)}
    return list(named.values())


class OutputImages:
    """Answers "is this file name an image file of the model's output?", decoding each file once."""

    def __init__(self, artifacts: Sequence[Artifact]):
        self._files = {a.name: a for a in artifacts}  # the last of each name wins, as in latest()
        self._pages = {a.name for a in artifacts if a.kind == "html"}
        self._checked: dict[str, str | None] = {}

    def problem(self, name: str) -> str | None:
        """Why ``name`` is not an image file of the output, or None when it is one."""
        if name not in self._checked:
            self._checked[name] = self._problem(name)
        return self._checked[name]

    def _problem(self, name: str) -> str | None:
        if name in self._pages:
            return "the page itself, not an image"
        if is_capture(name):
            return "a capture the renderer writes, not an image of the output"
        artifact = self._files.get(name)
        if artifact is None:
            return "not in the output"
        if artifact.kind == "svg":
            return None  # vector: Pillow cannot decode it, its MIME says what it is
        from .imaging import decode  # numpy and Pillow: only when an image is checked

        try:
            decode(artifact.data)
        except ValueError:
            return "not an image file"
        return None

    def image(self, name: str) -> Artifact | None:
        """The artifact behind ``name`` when it is an image file of the output."""
        return self._files.get(name) if self.problem(name) is None else None
