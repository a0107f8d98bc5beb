"""mutants/page_visibility.py: content covered, hidden, late or never filled, while its text stays in the page."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_visioneval.artifacts import Artifact
from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.mutants.page_visibility import page_legibility, page_occlusion, page_timing
from pytest_visioneval.mutants.pages import PageSubject

PAGE = (
    '<html><head><script src="https://cdn.jsdelivr.net/npm/chart.js@4/dist/chart.umd.js"></script></head><body>'
    "<main><h1>Sales</h1><table><tr><th>Month</th></tr><tr><td>May</td></tr><tr><td>June</td></tr></table></main>"
    "</body></html>"
)


def pages(family: Callable, case: CaseSpec, seed: int = 0) -> dict[str, tuple[dict, str]]:
    classes, _ = family(PageSubject(case, (Artifact("page.html", PAGE.encode()),)))
    out = {}
    for c in classes:
        variant = c.make(random.Random(seed))
        out[c.name] = (dict(variant.params), variant.artifacts[0].data.decode())
    return out


def test_occlusion_covers_or_hides_the_content_and_keeps_its_text(make_case: Callable[..., CaseSpec]) -> None:
    made = pages(page_occlusion, make_case(task="html_generation", render={"width": 800}), seed=1)
    assert set(made) == {"loading_overlay", "covering_bar", "main_hidden", "table_hidden"}
    for _, html in made.values():
        assert "<td>June</td>" in html and html.index("<h1>Sales</h1>") < html.index("</body>")
    params, overlay = made["loading_overlay"]
    assert "position:fixed;inset:0" in overlay and "Loading..." in overlay and 0.92 <= params["opacity"] <= 1
    params, bar = made["covering_bar"]
    assert f"height:{params['height_vh']}vh" in bar and 45 <= params["height_vh"] <= 75
    params, hidden = made["table_hidden"]
    assert f"<style>table{{{params['css']} !important}}</style>" in hidden


def test_the_covering_layers_are_painted_by_elements_and_by_pseudo_elements(make_case: Callable[..., CaseSpec]) -> None:
    case = make_case(task="html_generation", render={"width": 800})
    painters = {pages(page_occlusion, case, seed)["loading_overlay"][0]["painter"] for seed in range(40)}
    assert painters == {"element", "body::after", "body::before", "html::after"}
    for seed in range(40):
        params, html = pages(page_occlusion, case, seed)["covering_bar"]
        if params["painter"] != "element":
            assert f"<style>{params['painter']}{{content:'Menu';position:fixed;top:0" in html


def test_timing_delays_the_content_breaks_a_library_and_empties_a_table(make_case: Callable[..., CaseSpec]) -> None:
    made = pages(page_timing, make_case(task="html_generation", render={"width": 800}))
    params, late = made["late_content"]
    assert f"{params['seconds'] * 1000})" in late and 20 <= params["seconds"] <= 60
    params, broken = made["library_fails"]
    assert params["url"] not in broken and "chart.js@4/dist/missing-module.js" in broken
    params, empty = made["table_never_fills"]
    assert params == {"table": 0} and empty.index("querySelectorAll('table')[0]") < empty.index("<script src=")


def test_an_unrendered_page_gets_neither_family(make_case: Callable[..., CaseSpec]) -> None:
    case = make_case(task="html_generation")
    for family in (page_occlusion, page_timing):
        classes, skipped = family(PageSubject(case, (Artifact("page.html", PAGE.encode()),)))
        assert classes == [] and "not rendered" in skipped[0].reason


FILLED_BY_SCRIPT = (
    "<html><head><title>t</title></head><body><table id=t><tr><th>Month</th></tr></table><p>Below</p>"
    "<script>['May','June'].forEach(function(m){var r=document.getElementById('t').insertRow();r.insertCell().textContent=m})"
    "</script></body></html>"
)


def test_in_chromium_a_table_filled_by_script_stays_empty_and_late_content_stays_hidden(
    make_case: Callable[..., CaseSpec], renderer: Any, tmp_path: Path
) -> None:
    from pytest_visioneval.pages.render import RenderOptions

    case = make_case(task="html_generation", render={"width": 400})
    subject = PageSubject(case, (Artifact("page.html", FILLED_BY_SCRIPT.encode()),))
    classes, _ = page_timing(subject)
    shown = {}
    for mutant_class in classes:
        variant = mutant_class.make(random.Random(0))
        assert variant is not None
        folder = tmp_path / mutant_class.name
        folder.mkdir()
        (folder / "page.html").write_bytes(variant.artifacts[0].data)
        shown[mutant_class.name] = renderer.render(folder, "page.html", RenderOptions(width=400, height=300, screenshots=1)).dom
    original = tmp_path / "original"
    original.mkdir()
    (original / "page.html").write_text(FILLED_BY_SCRIPT)
    filled = renderer.render(original, "page.html", RenderOptions(width=400, height=300, screenshots=1)).dom
    assert "<td>June</td>" in filled  # the page's own script fills the table...
    assert "<td>June</td>" not in shown["table_never_fills"] and "<th>Month</th>" in shown["table_never_fills"]  # ...not here
    assert "<p>Below</p>" in shown["table_never_fills"]  # the rest of the page is there
    assert 'id="vx-late"' in shown["late_content"]  # the style hiding the content is still in force at the capture


@pytest.mark.parametrize("painter", ["element", "body::after", "body::before", "html::after"])
def test_in_chromium_every_painter_of_the_overlay_fails_not_covered(
    make_case: Callable[..., CaseSpec], renderer: Any, tmp_path: Path, painter: str
) -> None:
    from pytest_visioneval.graders.page_seen import MAX_COVER_VIEWPORT, MAX_COVERED_SHARE, not_covered_gate
    from pytest_visioneval.pages.render import RenderOptions

    case = make_case(task="html_generation", render={"width": 800})
    seed = next(s for s in range(100) if pages(page_occlusion, case, s)["loading_overlay"][0]["painter"] == painter)
    html = pages(page_occlusion, case, seed)["loading_overlay"][1]
    (tmp_path / "page.html").write_text(html)
    result = renderer.render(tmp_path, "page.html", RenderOptions(width=800, height=600, screenshots=1))
    gate = not_covered_gate({"text": result.text}, MAX_COVERED_SHARE, MAX_COVER_VIEWPORT)
    assert not gate.passed, gate.reason
    assert "covers 100% of the viewport" in gate.reason


WORDY = (
    "<!doctype html><html><body><h1>Harbor mug</h1><p>A stoneware mug that keeps coffee warm for an hour.</p>"
    "<p>Dishwasher safe, holds 350 ml, in cream or navy.</p><button>Add to cart</button></body></html>"
)


def test_legibility_draws_each_kind_with_random_strength(make_case: Callable[..., CaseSpec]) -> None:
    case = make_case(task="html_generation", render={"width": 800})
    classes, skipped = page_legibility(PageSubject(case, (Artifact("page.html", WORDY.encode()),)))
    assert [c.name for c in classes] == ["washed_out", "blurred", "turned", "zoomed_past_width"] and skipped == []
    opacities = {c.make(random.Random(seed)).params["opacity"] for c in classes[:1] for seed in range(20)}
    assert len(opacities) > 5 and all(0.08 <= o <= 0.2 for o in opacities)
    few = PageSubject(case, (Artifact("page.html", b"<html><body><p>Build passing</p></body></html>"),))
    assert page_legibility(few)[0] == [] and "fewer than 4 words" in page_legibility(few)[1][0].reason


@pytest.mark.parametrize("kind", ["washed_out", "blurred", "turned", "zoomed_past_width"])
def test_in_chromium_every_kind_of_unreadable_page_fails_render_check(
    make_case: Callable[..., CaseSpec], renderer: Any, tmp_path: Path, kind: str
) -> None:
    from pytest_visioneval.graders.render_check import RenderCheckGrader
    from tests.unit.graders.rendered_pages import RENDER, render_case

    case = make_case(task="html_generation", prompt="a page", render=RENDER)
    assert all(g.passed for g in RenderCheckGrader({}).grade(case, render_case(case, renderer, tmp_path, WORDY)).gates)
    classes, _ = page_legibility(PageSubject(case, (Artifact("page.html", WORDY.encode()),)))
    for seed in range(3):
        variant = next(c for c in classes if c.name == kind).make(random.Random(seed))
        assert variant is not None
        html = variant.artifacts[0].data.decode()
        failed = [
            g.name for g in RenderCheckGrader({}).grade(case, render_case(case, renderer, tmp_path, html)).gates if not g.passed
        ]
        assert failed, variant.description
