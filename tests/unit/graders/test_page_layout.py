"""graders/page_layout.py: a rendered page's width and drawn pictures, from render.json (no browser)."""

from __future__ import annotations

from pytest_visioneval.graders.page_layout import fits_width_gate, graphics_shown_gate


def test_a_page_wider_than_its_viewport_fails_unless_it_cannot_scroll_sideways() -> None:
    assert fits_width_gate({"width": {"page": 1280, "viewport": 1280, "scrolls": True}}).passed
    assert fits_width_gate({"width": {"page": 1313, "viewport": 1280, "scrolls": True}}).passed  # 2% and 8 px of slack
    wide = fits_width_gate({"width": {"page": 2560, "viewport": 1280, "scrolls": True}})
    assert not wide.passed
    assert wide.reason == (
        "the page is 2560 px wide in a 1280 px viewport: a person scrolls sideways to see 50% of its width, "
        "and the captures (the viewport's width) never show it"
    )
    assert fits_width_gate({"width": {"page": 2560, "viewport": 1280, "scrolls": False}}).passed
    assert fits_width_gate({}) is None and fits_width_gate({"width": {"page": 10, "viewport": 0}}) is None


def test_drawn_pictures_that_take_room_must_show_one() -> None:
    shown = graphics_shown_gate({"graphics": {"laid_out": 3, "shown": 1, "unseen": ["svg", "canvas#c"]}})
    assert shown is not None and shown.passed and shown.reason == "1 of the 3 drawn pictures (svg, canvas, video) shown"
    hidden = graphics_shown_gate({"graphics": {"laid_out": 2, "shown": 0, "unseen": ["svg#logo", "canvas"]}})
    assert hidden is not None and not hidden.passed
    assert hidden.reason.endswith("(visibility: hidden, opacity under 0.1): svg#logo, canvas")
    assert graphics_shown_gate({"graphics": {"laid_out": 0, "shown": 0, "unseen": []}}) is None
    assert graphics_shown_gate({}) is None  # a report from before the measurement
