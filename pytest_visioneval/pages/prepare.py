"""From a model's reply to a rendered page: extraction, then Chromium capture.

For ``html_generation`` cases the reply (``reply.md``) is turned into
``page.html`` (see :mod:`extract`); an SVG output is wrapped in a page. When
the case asks for ``render``, the page is rendered (see :mod:`render`) and
its screenshots join the artifacts, so image graders and judges see them
like any other output image. Everything made here is stored next to the
model's output and listed under ``derived`` in its provenance.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..artifacts import Artifact, ArtifactStore
from ..calls.waiting import waiting
from ..cases.spec import CaseSpec
from ..graders.base import Metric
from ..graders.rendered import DOM_NAME, REPORT_NAME, capture_names
from .extract import ExtractionError, extract_page

if TYPE_CHECKING:  # the renderer's module (and its CDN mirror) loads only where a page is rendered
    from .render import PageRenderer, RenderResult

PAGE_NAME = "page.html"


@dataclass(frozen=True)
class PreparedOutput:
    artifacts: tuple[Artifact, ...]
    metrics: tuple[Metric, ...] = ()  # render.* metrics, when rendered
    # How long things took: kept apart from metrics, since they measure the machine, not the output.
    timings: dict[str, float] = field(default_factory=dict)


def prepare(
    case: CaseSpec,
    artifacts: tuple[Artifact, ...],
    store: ArtifactStore,
    model: str,
    renderer: Callable[[], PageRenderer],
    *,
    folder: str | None = None,
) -> PreparedOutput:
    """Add the page (and its captures) to the artifacts; they are stored under ``folder`` (default: the case id)."""
    folder = folder or case.id
    artifacts = artifacts + _page_if_needed(case, artifacts, store, model, folder)
    if case.render is None:
        return PreparedOutput(artifacts)
    from .render import RenderOptions

    entry = next((a for a in artifacts if a.kind == "html" and a.path is not None), None)
    if entry is None or entry.path is None:
        raise ExtractionError(f"case {case.uid} asks for render, but its output holds no HTML page")
    with waiting("a page to render"):
        result = renderer().render(entry.path.parent, entry.path.name, RenderOptions.from_mapping(dict(case.render)))
    captured = store.save_derived(model, case.suite, folder, _captures(result), f"rendered {entry.name} in Chromium")
    return PreparedOutput(artifacts + captured, _render_metrics(result), {"render.seconds": result.seconds})


def _page_if_needed(
    case: CaseSpec, artifacts: tuple[Artifact, ...], store: ArtifactStore, model: str, folder: str
) -> tuple[Artifact, ...]:
    if any(a.kind == "html" for a in artifacts):
        return ()
    svg = next((a for a in artifacts if a.kind == "svg"), None)
    text = next((a for a in artifacts if a.kind == "text"), None)
    if svg is not None:
        source, how = svg.data.decode("utf-8", errors="replace"), f"wrapped {svg.name} in a page"
    elif case.task == "html_generation" and text is not None:
        source, how = text.data.decode("utf-8", errors="replace"), f"extracted from {text.name}"
    elif case.task == "html_generation":
        raise ExtractionError("the output holds no reply to take a page from")
    else:
        return ()
    page = extract_page(source)
    detail = page.source + (f", merged {' and '.join(page.merged)}" if page.merged else "")
    return store.save_derived(model, case.suite, folder, (Artifact(PAGE_NAME, page.html.encode("utf-8")),), f"{how} ({detail})")


def _captures(result: RenderResult) -> tuple[Artifact, ...]:
    # The names graders look for (graders.rendered): the screenshots in order, then the full page.
    images = [*result.screenshots, *([result.full_page] if result.full_page is not None else [])]
    names = capture_names(len(result.screenshots), result.full_page is not None)
    shots = [Artifact(name, data) for name, data in zip(names, images, strict=True)]
    shots.append(Artifact(DOM_NAME, result.dom.encode("utf-8"), "text/plain"))
    shots.append(Artifact(REPORT_NAME, json.dumps(result.report(), indent=2).encode("utf-8")))
    return tuple(shots)


def _render_metrics(result: RenderResult) -> tuple[Metric, ...]:
    def listing(items: list[str]) -> str:
        return "; ".join(items[:5]) + (f" (+{len(items) - 5} more)" if len(items) > 5 else "") if items else "none"

    return (
        Metric("render.console_errors", len(result.console_errors), listing(result.console_errors), higher_is_better=False),
        Metric("render.page_errors", len(result.page_errors), listing(result.page_errors), higher_is_better=False),
        # Scripts and modules that did not load (render_check's no_page_errors counts them as page errors).
        Metric("render.failed_scripts", len(result.failed_scripts), listing(result.failed_scripts), higher_is_better=False),
        Metric("render.blocked_requests", len(result.blocked), listing(result.blocked), higher_is_better=False),
        # Libraries asked from a public CDN that the local mirror could not serve: the page may render blank.
        Metric(
            "render.cdn_missing",
            result.cdn_counts["missing"],
            listing([f"{m.get('url', '?')} ({m.get('reason', '?')})" for m in result.cdn_missing]),
            higher_is_better=False,
        ),
        *_broken_images(result, listing),
    )


def _broken_images(result: RenderResult, listing: Callable[[list[str]], str]) -> tuple[Metric, ...]:
    """``<img>`` that did not load; none when the page could not be measured (render_check fails on that)."""
    if result.images is None:
        return ()
    broken = [str(i["src"] or "(no src)")[:80] for i in result.images if not (i["complete"] and i["natural_width"] > 0)]
    reason = f"{len(broken)} of {result.images_total} <img>: {listing(broken)}"
    return (Metric("render.broken_images", len(broken), reason, higher_is_better=False),)
