"""graders/page_seen.py: the gates on what a person sees, from render.json's text record (no browser)."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_visioneval.graders.page_seen import (
    at_capture,
    describe,
    not_covered_gate,
    tables_filled_gate,
    text_shown_gate,
    why_not_seen,
)

CHARS = {"seen": 300, "hidden": 0, "covered": 0, "clipped": 0, "off-screen": 0, "faint": 0, "total": 300, "unjudged": 0}


def report(**text: Any) -> dict[str, Any]:
    record = {"chars": CHARS, "seen_items": 10, "hidden_blocks": [], "covering": [], "unseen": [], "tables": []} | text
    return {"text": record, "capture_after_load_s": 1.0, "measured_after_load_s": 1.13}


def block(element: str, state: str, why: str, items: int, exempt: str | None = None, by: str | None = None) -> dict[str, Any]:
    return {"element": element, "state": state, "why": why, "by": by or element, "chars": 40, "items": items, "exempt": exempt}


def test_the_capture_time_is_named() -> None:
    assert at_capture(report()) == "at the capture (1.0 s after load)"
    assert at_capture({}) == "at the capture"


@pytest.mark.parametrize(
    ("state", "why", "said"),
    [
        ("covered", "covered", "covered by div#x"),
        ("hidden", "display:none", "hidden (display:none on div#x)"),
        ("hidden", "no size", "hidden (div#x has no size)"),
        ("hidden", "inside a closed <details>", "hidden (inside a closed <details>: div#x)"),
        ("clipped", "clip-path", "clipped away (clip-path on div#x)"),
        ("off-screen", "off-screen", "off-screen (div#x is outside the page)"),
        ("faint", "opacity 0.02", "invisible: opacity 0.02 (div#x)"),
    ],
)
def test_each_way_of_not_being_seen_is_said(state: str, why: str, said: str) -> None:
    assert describe(state, why, "div#x") == said


def test_covered_text_is_judged_by_share_and_by_the_coverer_size() -> None:
    cookie = {"element": "div.cookies", "state": "covered", "why": "covered", "by": "div.cookies", "chars": 30}
    small = report(chars=CHARS | {"seen": 270, "covered": 30}, covering=[cookie | {"viewport_share": 0.06}])
    gate = not_covered_gate(small, 0.25, 0.5)
    assert gate.passed
    assert gate.reason == (
        "10% of the page's text is covered at the capture (1.0 s after load), most by div.cookies (6% of the viewport); "
        "allowed 25%"
    )
    assert not not_covered_gate(small, 0.05, 0.5).passed
    wide = report(chars=CHARS | {"seen": 270, "covered": 30}, covering=[cookie | {"viewport_share": 0.8}])
    gate = not_covered_gate(wide, 0.25, 0.5)
    assert not gate.passed
    assert gate.reason == (
        "div.cookies covers 80% of the viewport and 30 characters of the page's text at the capture (1.0 s after load) "
        "(10% of its text is covered; an element over 50% of the viewport may cover none)"
    )
    assert not_covered_gate(report(), 0.25, 0.5).reason == "no text is covered at the capture (1.0 s after load)"


def test_an_unseen_block_fails_only_when_it_holds_as_much_as_the_page_shows() -> None:
    main = block("main#main", "hidden", "display:none", 10)
    gate = text_shown_gate(report(hidden_blocks=[main]), 0.1)
    assert not gate.passed
    assert gate.reason == (
        "main#main is hidden (display:none on main#main) at the capture (1.0 s after load): it holds 10 pieces of content "
        "(text, pictures or drawn shapes; 40 characters of text), as many as or more than the 10 the page shows"
    )
    assert text_shown_gate(report(hidden_blocks=[main | {"items": 9}]), 0.1).passed
    tab = block(
        "section.panel", "hidden", "display:none", 50, exempt="one of several alike, another shown (a tab, a slide, a step)"
    )
    gate = text_shown_gate(report(hidden_blocks=[tab]), 0.1)
    assert gate.passed and gate.reason == (
        "300 of 300 characters of text are seen at the capture (1.0 s after load), 10 pieces of content shown"
    )


def test_unseen_blocks_together_fail_when_they_hold_as_much_as_the_page_shows() -> None:
    parts = [block("section", "clipped", "overflow:hidden", items, by="html") for items in (4, 3, 3)]
    gate = text_shown_gate(report(hidden_blocks=parts), 0.1)
    assert not gate.passed
    assert gate.reason == (
        "3 parts of the page are not seen at the capture (1.0 s after load) (the largest, section, is clipped away "
        "(overflow:hidden on html)): together they hold 10 pieces of content, as many as or more than the 10 the page shows"
    )
    assert text_shown_gate(report(hidden_blocks=parts[:2]), 0.1).passed  # 7 of 10


def test_a_picture_under_a_wide_layer_fails_not_covered_without_any_text_covered() -> None:
    wall = {"element": "body::after", "state": "covered", "why": "covered", "by": "body::after", "chars": 0}
    pictures = report(covering=[wall | {"viewport_share": 0.7, "drawn": 2}], drawn={"judged": 3, "covered": 2})
    gate = not_covered_gate(pictures, 0.25, 0.5)
    assert not gate.passed and gate.reason.startswith(
        "body::after covers 70% of the viewport and 0 characters of the page's text and 2 picture(s) or drawn shape(s)"
    )
    badge = report(covering=[wall | {"viewport_share": 0.1, "drawn": 1}], drawn={"judged": 3, "covered": 1})
    assert not_covered_gate(badge, 0.25, 0.5).passed


def test_text_invisible_in_place_is_bounded() -> None:
    faint = block("p", "faint", "the colour of what is beneath it", 1)
    record = report(chars=CHARS | {"seen": 200, "faint": 100}, hidden_blocks=[faint])
    gate = text_shown_gate(record, 0.1)
    assert not gate.passed
    assert gate.reason == (
        "33% of the page's laid-out text is invisible in place (invisible: the colour of what is beneath it (p)) "
        "at the capture (1.0 s after load); allowed 10%"
    )
    assert text_shown_gate(record, 0.5).passed


def test_tables_with_a_header_must_show_data() -> None:
    empty = {"element": "table#sales", "rows": 2, "body_cells": 0, "filled_cells": 0, "header_cells": 4}
    board = {"element": "table#board", "rows": 3, "body_cells": 9, "filled_cells": 0, "header_cells": 0}
    gate = tables_filled_gate(report(tables=[empty, board]))
    assert not gate.passed
    assert gate.reason == (
        "1 of 1 table(s) with a header show no data at the capture (1.0 s after load): "
        "table#sales (4 header cells, 0 body cells, none showing anything)"
    )
    assert tables_filled_gate(report(tables=[board])).reason == "no rendered table with a header"
    filled = empty | {"body_cells": 8, "filled_cells": 1}
    assert (
        tables_filled_gate(report(tables=[filled])).reason
        == "all 1 table(s) with a header show data at the capture (1.0 s after load)"
    )


def test_why_a_wanted_string_is_not_seen() -> None:
    unseen = [
        {"text": "Arc", "state": "hidden", "element": "section#main", "why": "display:none"},
        {"text": "desk lamp", "state": "hidden", "element": "section#main", "why": "display:none"},
        {"text": "Add to cart", "state": "covered", "element": "div#loading-overlay", "why": "covered"},
    ]
    record = report(unseen=unseen)
    assert (
        why_not_seen(record, "add to CART") == "'add to CART' is covered by div#loading-overlay at the capture (1.0 s after load)"
    )
    assert why_not_seen(record, "Arc desk lamp") == (
        "'Arc desk lamp' is hidden (display:none on section#main) at the capture (1.0 s after load)"
    )
    assert why_not_seen(record, "Buy now") == "'Buy now' is not on the page at the capture (1.0 s after load)"


@pytest.mark.parametrize("gate", [not_covered_gate, text_shown_gate, tables_filled_gate])
def test_an_unmeasured_page_fails(gate: Any) -> None:
    args = {"not_covered_gate": (0.25, 0.5), "text_shown_gate": (0.1,), "tables_filled_gate": ()}[gate.__name__]
    result = gate({"measure_error": "the measuring script failed: TypeError"}, *args)
    assert (
        not result.passed and result.reason == "the rendered page could not be measured: the measuring script failed: TypeError"
    )
