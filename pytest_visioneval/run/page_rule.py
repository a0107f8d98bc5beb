"""Prepare a case's output with the page rule its protocol asks for.

Most cases read a reply with the ``improved`` rule of ``pages/extract.py``,
inside :func:`pages.prepare.prepare`. A protocol may ask for another rule per
case with a ``page_extraction(fields) -> "official" | "improved"`` method
(ArtifactsBench does, by its ``compat`` field). Under ``official`` the page is
taken by :func:`pages.extract_official.official_page` and stored before the
usual preparation renders it; when that rule finds no page, nothing is
rendered and the case goes on to its graders without one (the official
harness judges such a reply on its text alone) instead of failing with an
``ExtractionError``. Either way the metric ``extraction.no_page`` (0 or 1)
records the outcome, so a run shows how many replies had no page.
"""

from __future__ import annotations

import dataclasses

from ..artifacts import Artifact
from ..cases.spec import CaseSpec
from ..graders import Metric
from ..pages.extract import NoPage
from ..pages.extract_official import official_page
from ..pages.prepare import PAGE_NAME, PreparedOutput, prepare
from .environment import Environment

OFFICIAL = "official"
NO_PAGE_METRIC = "extraction.no_page"


def page_rule(case: CaseSpec) -> str:
    """``official`` or ``improved``: how the case's reply is turned into a page."""
    from ..protocols import get_protocol

    choose = getattr(get_protocol(case.protocol), "page_extraction", None)
    return str(choose(case.fields)) if callable(choose) else "improved"


def prepare_output(case: CaseSpec, artifacts: tuple[Artifact, ...], env: Environment, folder: str) -> PreparedOutput:
    """:func:`pages.prepare.prepare`, with the case's page rule applied first."""
    metrics: tuple[Metric, ...] = ()
    reply = _reply(case, artifacts)
    if reply is not None and page_rule(case) == OFFICIAL:
        found = official_page(reply.data.decode("utf-8", errors="replace"))
        if isinstance(found, NoPage):
            why = f"the official rule takes no page from {reply.name}: {found.reason}; judged on its text alone"
            return PreparedOutput(artifacts, (Metric(NO_PAGE_METRIC, 1.0, why, higher_is_better=False),))
        detail = found.source + "".join(
            f"; {label} {', '.join(items)}" for label, items in (("merged", found.merged), ("left out", found.dropped)) if items
        )
        page = Artifact(PAGE_NAME, found.html.encode("utf-8"))
        artifacts += env.store.save_derived(
            env.model_label, case.suite, folder, (page,), f"extracted from {reply.name} ({detail})"
        )
        metrics = (Metric(NO_PAGE_METRIC, 0.0, f"page taken from {reply.name}: {detail}", higher_is_better=False),)
    prepared = prepare(case, artifacts, env.store, env.model_label, env.renderer, folder=folder)
    return dataclasses.replace(prepared, metrics=metrics + prepared.metrics)


def _reply(case: CaseSpec, artifacts: tuple[Artifact, ...]) -> Artifact | None:
    """The text reply a page is taken from; ``None`` when the output already holds a page or an SVG file."""
    if case.task != "html_generation" or any(a.kind in ("html", "svg") for a in artifacts):
        return None
    return next((a for a in artifacts if a.kind == "text"), None)
