"""Render a page in real Chromium the way a run does (pages.prepare), for the graders that read what rendered."""

from __future__ import annotations

import itertools
from pathlib import Path

from pytest_visioneval.artifacts import Artifact, ArtifactStore, ModelOutput
from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.pages.prepare import prepare
from pytest_visioneval.pages.render import Renderer

RENDER = {"width": 320, "height": 240, "screenshots": 1, "full_page": False, "timeout_ms": 5000}
_folders = itertools.count(1)


def render_case(
    case: CaseSpec, renderer: Renderer, root: Path, html: str, files: dict[str, bytes] | None = None
) -> tuple[Artifact, ...]:
    """Store ``page.html`` and ``files`` as a model's output, render it, and return what the graders get."""
    store = ArtifactStore(root, "run")
    folder = f"{case.id}-{next(_folders)}"
    output = ModelOutput((Artifact("page.html", html.encode()), *(Artifact(n, d) for n, d in (files or {}).items())))
    saved = store.save("test", case.suite, folder, output)
    return prepare(case, saved, store, "test", lambda: renderer, folder=folder).artifacts
