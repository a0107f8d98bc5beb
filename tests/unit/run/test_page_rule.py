"""run/page_rule: the case's page rule before preparation; the official rule's "no page" is no error."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_visioneval.artifacts import Artifact, ArtifactStore, ModelOutput
from pytest_visioneval.calls.waiting import WouldWait, without_waiting
from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.graders import GradeContext
from pytest_visioneval.pages.extract import ExtractionError
from pytest_visioneval.pages.render import RenderResult
from pytest_visioneval.protocols.case_files import load_case_file
from pytest_visioneval.run.environment import Environment
from pytest_visioneval.run.page_rule import NO_PAGE_METRIC, page_rule, prepare_output
from tests.unit.conftest import image_bytes

CHECKLIST = [f"Item {i}: 10 points if it works, 0 otherwise." for i in range(1, 11)]
SEPARATE_JS = "```html\n<html><head></head><body><h1>Counter</h1></body></html>\n```\n```javascript\ncount();\n```\n"


class FakeRenderer:
    """Stands in for Chromium: records what it was asked to render."""

    def __init__(self) -> None:
        self.rendered: list[Path] = []

    def render(self, folder: Path, entry: str, options: Any) -> RenderResult:
        self.rendered.append(folder / entry)
        return RenderResult(screenshots=[image_bytes()], dom="<html><body>rendered</body></html>", entry=entry)


class NamedModel:
    name = "replay:test"


@pytest.fixture
def ab_case(tmp_path: Path) -> Callable[..., CaseSpec]:
    def make(compat: str | None = None, protocol: str = "artifactsbench") -> CaseSpec:
        fields: dict[str, Any] = {
            "question": "Build a counter.",
            "checklist": CHECKLIST,
            "class": "Quick Tools",
            "difficulty": "easy",
        }
        if compat is not None:
            fields["compat"] = compat
        case: dict[str, Any] = {"id": "c1", "fields": fields}
        if protocol != "artifactsbench":
            case = {"id": "c1", "task": "html_generation", "prompt": "Build a counter.", "render": True}
        document = {"suite": "ab", "protocol": protocol, "cases": [case]}
        (tmp_path / "ab.eval.yaml").write_text(yaml.safe_dump(document, sort_keys=False))
        return load_case_file(tmp_path / "ab.eval.yaml").cases[0]

    return make


@pytest.fixture
def env(tmp_path: Path) -> tuple[Environment, FakeRenderer]:
    renderer = FakeRenderer()
    store = ArtifactStore(tmp_path / "out", "run1")
    environment = Environment(NamedModel(), store, GradeContext(), lambda: renderer, {})  # type: ignore[arg-type]
    return environment, renderer


def saved_reply(env: Environment, case: CaseSpec, text: str) -> tuple[Artifact, ...]:
    return env.store.save(env.model.name, case.suite, case.id, ModelOutput((Artifact("reply.md", text.encode()),)))


def test_the_rule_follows_the_compat_field_and_other_protocols_keep_ours(ab_case: Callable[..., CaseSpec]) -> None:
    assert page_rule(ab_case()) == "official"  # the default compat
    assert page_rule(ab_case("improved")) == "improved"
    assert page_rule(ab_case(protocol="generic")) == "improved"


@pytest.mark.parametrize(
    "reply",
    ["I would rather describe it in words.", "```svg\n<svg width='9'><rect/></svg>\n```", "```html\n<div>fragment</div>\n```"],
    ids=["no-code", "svg-only", "fragment-only"],
)
def test_official_no_page_goes_on_unrendered_with_the_reason(
    ab_case: Callable[..., CaseSpec], env: tuple[Environment, FakeRenderer], reply: str
) -> None:
    environment, renderer = env
    case = ab_case()
    artifacts = saved_reply(environment, case, reply)
    prepared = prepare_output(case, artifacts, environment, case.id)
    assert prepared.artifacts == artifacts and renderer.rendered == []
    (metric,) = prepared.metrics
    assert (metric.name, metric.value) == (NO_PAGE_METRIC, 1.0)
    assert (
        metric.reason.startswith("the official rule takes no page from reply.md: ")
        and "judged on its text alone" in metric.reason
    )


def test_official_page_is_stored_with_how_it_was_taken_then_rendered(
    ab_case: Callable[..., CaseSpec], env: tuple[Environment, FakeRenderer]
) -> None:
    environment, renderer = env
    case = ab_case()
    prepared = prepare_output(case, saved_reply(environment, case, SEPARATE_JS), environment, case.id)
    page = next(a for a in prepared.artifacts if a.name == "page.html")
    assert page.path is not None and renderer.rendered == [page.path]
    assert b"<h1>Counter</h1>" in page.data and b"count();" not in page.data  # the unlinked js block is left out
    assert any(a.name == "screenshot-1.png" for a in prepared.artifacts)
    metrics = {m.name: m for m in prepared.metrics}
    assert metrics[NO_PAGE_METRIC].value == 0.0 and "render.page_errors" in metrics
    provenance = json.loads((page.path.parent / "provenance.json").read_text())
    how = next(d["how"] for d in provenance["derived"] if d["name"] == "page.html")
    assert how == "extracted from reply.md (the first fenced html block, official rule; left out script.js)"


def test_improved_keeps_merging_and_still_errors_without_a_page(
    ab_case: Callable[..., CaseSpec], env: tuple[Environment, FakeRenderer]
) -> None:
    environment, _ = env
    case = ab_case("improved")
    prepared = prepare_output(case, saved_reply(environment, case, SEPARATE_JS), environment, case.id)
    assert b"count();" in next(a for a in prepared.artifacts if a.name == "page.html").data
    assert NO_PAGE_METRIC not in {m.name for m in prepared.metrics}
    with pytest.raises(ExtractionError, match="no HTML or SVG to render"):
        prepare_output(case, saved_reply(environment, case, "No code, sorry."), environment, case.id)


def test_where_waiting_is_forbidden_a_page_is_not_rendered(
    ab_case: Callable[..., CaseSpec], env: tuple[Environment, FakeRenderer]
) -> None:
    """Rendering waits for Chromium: a warm case with a page goes to a pool thread (see calls/waiting.py)."""
    environment, renderer = env
    case = ab_case()
    artifacts = saved_reply(environment, case, SEPARATE_JS)
    with without_waiting(), pytest.raises(WouldWait, match="a page to render"):
        prepare_output(case, artifacts, environment, case.id)
    assert renderer.rendered == []
