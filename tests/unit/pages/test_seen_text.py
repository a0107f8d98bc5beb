"""What text of a rendered page a person sees, measured in real Chromium right after the captures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_visioneval.pages.render import Renderer, RenderOptions, RenderResult
from tests.unit.pages.page_variants import (
    BROKEN,
    EMPTY_TABLE,
    FAILED_SCRIPTS,
    FILLED_TABLE,
    GAME_BOARD,
    LEGIT,
    SHOP,
    with_body_end,
)

VIEW = RenderOptions(width=800, height=600, full_page=False, timeout_ms=5000)


def render(renderer: Renderer, tmp_path: Path, html: str) -> RenderResult:
    folder = tmp_path / f"page-{len(list(tmp_path.iterdir()))}"
    folder.mkdir()
    (folder / "page.html").write_text(html)
    result = renderer.render(folder, "page.html", VIEW)
    assert result.measure_error is None and result.text is not None
    return result


def unseen_blocks(result: RenderResult) -> list[dict[str, Any]]:
    assert result.text is not None
    return [b for b in result.text["hidden_blocks"] if b["exempt"] is None]


def test_a_plain_page_is_seen_whole(renderer: Renderer, tmp_path: Path) -> None:
    result = render(renderer, tmp_path, SHOP)
    assert result.text is not None
    chars = result.text["chars"]
    assert chars["seen"] == chars["total"] > 90 and chars["unjudged"] == 0
    assert result.text["seen_items"] == 7  # four text nodes, two pictures and the button (a drawn box)
    assert result.text["unseen"] == [] and result.text["covering"] == []
    assert "Add to cart" in (result.visible_text or "")
    assert isinstance(result.measured_after_load_s, float) and 0 <= result.measured_after_load_s < 3
    assert 0 <= result.text["measure_ms"] < 500


@pytest.mark.parametrize("variant", sorted(LEGIT))
def test_legitimate_pages_hide_nothing_that_counts(renderer: Renderer, tmp_path: Path, variant: str) -> None:
    result = render(renderer, tmp_path, LEGIT[variant](SHOP))
    assert result.text is not None
    assert "Add to cart" in (result.visible_text or "") and "$49" in (result.visible_text or "")
    assert unseen_blocks(result) == [], result.text["hidden_blocks"]
    chars = result.text["chars"]
    assert chars["faint"] == 0
    assert chars["covered"] <= 0.25 * (chars["total"] - chars["hidden"])
    assert all(c["viewport_share"] < 0.5 for c in result.text["covering"])


def test_what_a_legitimate_page_hides_is_named_with_why_it_is_fine(renderer: Renderer, tmp_path: Path) -> None:
    html = SHOP
    for variant in ("tabs", "collapsed menu", "hidden modal", "closed details", "screen-reader text", "carousel"):
        html = LEGIT[variant](html)
    result = render(renderer, tmp_path, html)
    assert result.text is not None
    exempt = {b["exempt"] for b in result.text["hidden_blocks"]}
    assert exempt == {
        "one of several alike, another shown (a tab, a slide, a step)",
        "inside nav",
        "a layer of its own (a modal, a menu, a message)",
        "inside details",
        "text for screen readers",
        "partly shown: a carousel or a box of its own",
    }


def test_text_under_an_overlay_is_covered(renderer: Renderer, tmp_path: Path) -> None:
    result = render(renderer, tmp_path, BROKEN["loading overlay"](SHOP))
    assert result.text is not None
    assert result.text["chars"]["covered"] == result.text["chars"]["total"] - len("Loading...")
    assert result.text["covering"][0] | {"chars": 0} == {
        "element": "div#loading-overlay",
        "state": "covered",
        "why": "covered",
        "by": "div#loading-overlay",
        "chars": 0,
        "viewport_share": 1.0,
        "drawn": 3,  # the two pictures and the button on the first screen are under it too
    }
    assert {"text": "Add to cart", "state": "covered", "element": "div#loading-overlay", "why": "covered"} in result.text[
        "unseen"
    ]
    assert (result.visible_text or "").strip() == "Loading..."


@pytest.mark.parametrize("variant", ["overlay without pointer events", "dark backdrop", "overlay over the first screen"])
def test_every_kind_of_overlay_covers(renderer: Renderer, tmp_path: Path, variant: str) -> None:
    result = render(renderer, tmp_path, BROKEN[variant](SHOP))
    assert result.text is not None
    assert "Add to cart" not in (result.visible_text or "")
    assert result.text["covering"][0]["viewport_share"] == 1.0


@pytest.mark.parametrize(
    ("variant", "painter", "share"),
    [  # the wall: 60vh of a 600 px viewport and its padding of 24 px above and below
        ("cookie wall painted by body::after", "body::after", (360 + 48) / 600),
        ("grey scrim painted by body::before", "body::before", 1.0),
    ],
)
def test_an_overlay_painted_by_a_pseudo_element_covers(
    renderer: Renderer, tmp_path: Path, variant: str, painter: str, share: float
) -> None:
    result = render(renderer, tmp_path, BROKEN[variant](SHOP))
    assert result.text is not None
    cover = result.text["covering"][0]
    assert cover["element"] == cover["by"] == painter
    assert cover["viewport_share"] == pytest.approx(share, abs=0.01)  # its own box, not the whole <body>
    assert cover["chars"] > 0 and result.text["chars"]["covered"] >= cover["chars"]


@pytest.mark.parametrize(
    ("variant", "state", "why", "by"),
    [
        ("main display none", "hidden", "display:none", "main#main"),
        ("main visibility hidden", "hidden", "visibility:hidden", "main#main"),
        ("main opacity almost 0", "faint", "opacity 0.02", "h1"),
        ("main off-screen", "off-screen", "off-screen", "main#main"),
        ("main clipped away", "clipped", "overflow:hidden", "main#main"),
        ("main clip-path", "clipped", "clip-path", "main#main"),
        ("main scaled to nothing", "hidden", "no size", "h1"),
        ("main shown only after 10 s", "hidden", "display:none", "main#main"),
    ],
)
def test_a_hidden_main_section_is_one_unseen_block(
    renderer: Renderer, tmp_path: Path, variant: str, state: str, why: str, by: str
) -> None:
    result = render(renderer, tmp_path, BROKEN[variant](SHOP))
    assert result.text is not None
    block = unseen_blocks(result)[0]
    assert (block["element"], block["state"], block["why"], block["by"]) == ("main#main", state, why, by)
    assert block["items"] >= result.text["seen_items"]
    assert "Add to cart" not in (result.visible_text or "")


def test_text_in_the_colour_of_its_background_is_faint(renderer: Renderer, tmp_path: Path) -> None:
    result = render(renderer, tmp_path, BROKEN["main in the background colour"](SHOP))
    assert result.text is not None
    chars = result.text["chars"]
    assert chars["faint"] == chars["total"] - chars["seen"] and chars["faint"] > 0.5 * chars["total"]
    assert {"text": "$49", "state": "faint", "element": "p.price", "why": "the colour of what is beneath it"} in result.text[
        "unseen"
    ]
    assert "Add to cart" in (result.visible_text or "")  # the button paints its own background and text


def test_tables_are_measured_with_their_filled_cells(renderer: Renderer, tmp_path: Path) -> None:
    html = with_body_end(SHOP, EMPTY_TABLE.replace('id="sizes"', 'id="empty"') + FILLED_TABLE + GAME_BOARD)
    result = render(renderer, tmp_path, html)
    assert result.text is not None
    assert result.text["tables"] == [
        {"element": "table#empty", "rows": 2, "body_cells": 0, "filled_cells": 0, "header_cells": 3},
        {"element": "table#sizes", "rows": 3, "body_cells": 6, "filled_cells": 5, "header_cells": 3},
        {"element": "table#board", "rows": 3, "body_cells": 9, "filled_cells": 0, "header_cells": 0},
    ]


def test_scripts_that_do_not_load_are_recorded_with_the_url(renderer: Renderer, tmp_path: Path) -> None:
    html = SHOP
    for variant in FAILED_SCRIPTS.values():
        html = variant(html)
    failed = sorted(render(renderer, tmp_path, html).failed_scripts)  # requested in parallel: in any order
    assert failed == [
        "http://page.visioneval.invalid/app.js (404: the output has no such file)",
        "https://cdn.jsdelivr.net/npm/no-such-package-visioneval@1.0.0/index.js (a CDN file the mirror does not have: "
        "no-such-package-visioneval is not in the CDN mirror (add it to a package list: docs/rendering.md))",
        "https://example.com/shop.js (blocked: only files of the page's folder and of the CDN mirror load)",
    ]
    assert render(renderer, tmp_path, with_body_end(SHOP, '<img src="missing.png" alt="x">')).failed_scripts == []


def test_the_measurement_is_taken_at_the_capture_not_later(renderer: Renderer, tmp_path: Path) -> None:
    # Shown by a CSS animation 2 s after load: the measurement does not wait for it (nor for images).
    html = with_body_end(
        SHOP.replace("<h1>", '<h1 class="late">'),
        "<style>@keyframes show{from{visibility:hidden}to{visibility:visible}}"
        ".late{animation:show 0s 2s both}</style><img src='slow.png' alt='slow'>",
    )
    result = render(renderer, tmp_path, html)
    assert result.text is not None
    assert "Arc desk lamp" not in (result.visible_text or "")
    assert {"text": "Arc desk lamp", "state": "hidden", "element": "h1.late", "why": "visibility:hidden"} in result.text["unseen"]


def test_text_further_down_is_judged_scrolled_into_view(renderer: Renderer, tmp_path: Path) -> None:
    # An opaque box over the third screen of the page: what is under it is covered, what is above it seen.
    rows = "".join(f"<p style='height:40px;margin:0'>Line {i}</p>" for i in range(45))
    box = '<div id="cover" style="position:absolute;left:0;top:1200px;width:100%;height:600px;background:#fff"></div>'
    result = render(renderer, tmp_path, f"<body style='margin:0'>{rows}{box}</body>")
    assert result.text is not None
    covered = {u["text"] for u in result.text["unseen"] if u["state"] == "covered" and u["element"] == "div#cover"}
    assert covered == {f"Line {i}" for i in range(30, 45)}
    assert result.text["chars"]["unjudged"] == 0


def test_a_long_page_is_judged_at_a_bounded_number_of_scroll_positions(renderer: Renderer, tmp_path: Path) -> None:
    rows = "".join(f"<p style='height:40px;margin:0'>Line {i}</p>" for i in range(2000))  # 80,000 px: 133 screens
    result = render(renderer, tmp_path, f"<body style='margin:0'>{rows}</body>")
    assert result.text is not None
    chars = result.text["chars"]
    assert chars["seen"] == chars["total"]
    assert 0 < chars["unjudged"] < chars["total"]  # judged by style past the sampled scroll positions
    assert result.text["measure_ms"] < 2000


def test_the_capture_time_is_the_last_screenshot_s(renderer: Renderer, tmp_path: Path) -> None:
    folder = tmp_path / "timed"
    folder.mkdir()
    (folder / "page.html").write_text(SHOP)
    result = renderer.render(
        folder, "page.html", RenderOptions(width=400, height=300, full_page=False, screenshots=3, interval_ms=200)
    )
    assert result.capture_after_load_s == 0.4  # two intervals after load: what the reasons name
    assert result.measured_after_load_s is not None and result.measured_after_load_s >= 0.4
    assert result.report()["capture_after_load_s"] == 0.4
