"""Legitimate and broken variants of a page, made by editing its HTML, for the tests of what a person sees.

Each variant is a function of the page's HTML. The broken ones hide, cover, delay or break the page's
content in a way its captures show but a DOM read does not; the legitimate ones hide or cover things the
way well-made pages do (tabs, menus, modals, banners, sticky headers). They are applied to every page in
the tests and to the shipped reference pages when the defaults were measured (docs/graders.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable

Variant = Callable[[str], str]

_BODY_OPEN = re.compile(r"<body[^>]*>", re.IGNORECASE)
_BODY_CLOSE = re.compile(r"</body\s*>", re.IGNORECASE)


def with_style(html: str, css: str) -> str:
    """``css`` in a ``<style>`` at the start of the body (it applies wherever it is)."""
    return with_body_start(html, f"<style>{css}</style>")


def with_body_start(html: str, fragment: str) -> str:
    match = _BODY_OPEN.search(html)
    if match is None:
        return fragment + html
    return html[: match.end()] + fragment + html[match.end() :]


def with_body_end(html: str, fragment: str) -> str:
    matches = list(_BODY_CLOSE.finditer(html))
    if not matches:
        return html + fragment
    return html[: matches[-1].start()] + fragment + html[matches[-1].start() :]


def wrapped(html: str, attributes: str, before: str = "", after: str = "") -> str:
    """The body's content in ``<main id="main" attributes>``, with ``before`` and ``after`` outside it."""
    return with_body_end(with_body_start(html, f'{before}<main id="main" {attributes}>'), f"</main>{after}")


HEADER = '<header style="padding:8px">Lumen store - home - shop - help</header>'
FOOTER = '<footer style="padding:8px">Lumen store 2026</footer>'
_OVERLAY = "position:fixed;inset:0;z-index:9999;display:flex;align-items:center;justify-content:center;"
_FILLER = "".join(f"<p>Notes from the workshop, part {i}: how it is made, shipped and cared for.</p>" for i in range(1, 25))


# -- broken: the content is there in the DOM, but a person does not see it at the capture --------------
BROKEN: dict[str, Variant] = {
    "loading overlay": lambda h: with_body_end(
        h, f'<div id="loading-overlay" style="{_OVERLAY}background:#fff">Loading...</div>'
    ),
    "overlay without pointer events": lambda h: with_body_end(
        h, f'<div id="veil" style="{_OVERLAY}background:rgba(250,250,250,0.95);pointer-events:none">Please wait</div>'
    ),
    "dark backdrop": lambda h: with_body_end(
        h, f'<div class="backdrop" style="{_OVERLAY}background:rgba(0,0,0,0.8)"><p style="color:#fff">Loading...</p></div>'
    ),
    "overlay over the first screen": lambda h: with_body_end(
        h,
        '<div id="splash" style="position:absolute;left:0;top:0;width:100%;height:100vh;background:#123;color:#fff">'
        "Welcome</div>",
    ),
    # Painted by a ::before/::after of <body>: no element of its own, so the hit test answers <body>.
    "cookie wall painted by body::after": lambda h: with_style(
        h,
        "body::after{content:'We use cookies. Accept all?';position:fixed;left:0;right:0;bottom:0;height:60vh;"
        "background:#222;color:#fff;padding:24px;z-index:99;pointer-events:none}",
    ),
    "grey scrim painted by body::before": lambda h: with_style(
        h, "body::before{content:'';position:fixed;inset:0;background:rgba(128,128,128,0.7);z-index:99}"
    ),
    "main display none": lambda h: wrapped(h, 'style="display:none"', HEADER, FOOTER),
    "main visibility hidden": lambda h: wrapped(h, 'style="visibility:hidden"', HEADER, FOOTER),
    "main opacity almost 0": lambda h: wrapped(h, 'style="opacity:0.02"', HEADER, FOOTER),
    "main off-screen": lambda h: wrapped(h, 'style="position:absolute;left:-10000px;top:0"', HEADER, FOOTER),
    "main clipped away": lambda h: wrapped(h, 'style="height:0;overflow:hidden"', HEADER, FOOTER),
    "main clip-path": lambda h: wrapped(h, 'style="clip-path:inset(50%)"', HEADER, FOOTER),
    "main scaled to nothing": lambda h: wrapped(h, 'style="transform:scale(0)"', HEADER, FOOTER),
    "main in the background colour": lambda h: wrapped(h, 'style="color:#fff;background:#fff"', HEADER, FOOTER),
    "main shown only after 10 s": lambda h: wrapped(
        h,
        'style="display:none"',
        '<p id="wait">Loading...</p>',
        "<script>setTimeout(() => { main.style.display = 'block'; wait.remove(); }, 10000);</script>",
    ),
}


def _late(html: str) -> str:
    """The content is taken out as the page starts and put back 10 s later: at the capture it is not there."""
    script = (
        "<script>const keep = main.innerHTML; main.innerHTML = '<p>Loading...</p>';"
        "setTimeout(() => { main.innerHTML = keep; }, 10000);</script>"
    )
    return wrapped(html, "", "", script)


ABSENT: dict[str, Variant] = {"main added only after 10 s": _late}

FAILED_SCRIPTS: dict[str, Variant] = {
    "missing script file": lambda h: with_body_end(h, '<script src="app.js"></script>'),
    "module of a missing CDN package": lambda h: with_body_end(
        h, '<script type="module">import "https://cdn.jsdelivr.net/npm/no-such-package-visioneval@1.0.0/index.js";</script>'
    ),
    "script from a site that is not a CDN": lambda h: with_body_end(h, '<script src="https://example.com/shop.js"></script>'),
}

# A table with its header that is never filled (its script never runs, or waits for data that never comes).
EMPTY_TABLE = """<table id="sizes"><thead><tr><th>Size</th><th>Price</th><th>Stock</th></tr></thead>
<tbody></tbody><tfoot><tr><td>Total</td><td></td><td></td></tr></tfoot></table>"""
FILLED_TABLE = """<table id="sizes"><thead><tr><th>Size</th><th>Price</th><th>Stock</th></tr></thead>
<tbody><tr><td>S</td><td>$10</td><td>4</td></tr><tr><td>M</td><td>$12</td><td></td></tr></tbody></table>"""
GAME_BOARD = (
    '<table id="board" style="border-collapse:collapse">'
    + ("<tr>" + '<td style="width:40px;height:40px;border:1px solid #333"></td>' * 3 + "</tr>") * 3
    + "</table>"
)


# -- legitimate: hidden or covered the way well-made pages are ---------------------------------------------
def _tabs(html: str) -> str:
    panels = "".join(
        f'<section class="panel" style="display:{"block" if i == 1 else "none"}"><h2>Tab {i}</h2>'
        f"<p>Details of part {i}: the materials, the sizes, the care and the warranty of this part.</p></section>"
        for i in (1, 2, 3)
    )
    return with_body_end(html, "<nav><button>Tab 1</button><button>Tab 2</button><button>Tab 3</button></nav>" + panels)


LEGIT: dict[str, Variant] = {
    "as shipped": lambda h: h,
    "tabs": _tabs,
    "collapsed menu": lambda h: with_body_start(
        h,
        '<nav><button>Menu</button><ul style="display:none">'
        + "".join(f"<li><a href='#'>Category {i}</a></li>" for i in range(8))
        + "</ul></nav>",
    ),
    "hidden modal": lambda h: with_body_end(
        h,
        '<div class="modal" style="position:fixed;inset:20%;background:#fff;display:none"><h2>Shipping policy</h2>'
        "<p>We ship within two days to most countries.</p></div>",
    ),
    "closed details": lambda h: with_body_end(
        h, "<details><summary>Care</summary><p>Wipe with a dry cloth; never use solvents on the finish.</p></details>"
    ),
    "noscript": lambda h: with_body_end(h, "<noscript><p>This page works best with JavaScript turned on.</p></noscript>"),
    "sticky header on a long page": lambda h: with_body_end(
        with_body_start(h, '<header style="position:sticky;top:0;z-index:5;background:#fff;padding:12px">Lumen store</header>'),
        _FILLER,
    ),
    "cookie banner": lambda h: with_body_end(
        h,
        '<div class="cookies" style="position:fixed;left:0;right:0;bottom:0;padding:10px;background:#222;color:#fff;z-index:50">'
        "We use cookies to keep your cart. <button>OK</button></div>",
    ),
    "cookie banner on a long page": lambda h: with_body_end(
        h,
        _FILLER + '<div class="cookies" style="position:fixed;left:0;right:0;bottom:0;padding:10px;background:#222;'
        'color:#fff;z-index:50">We use cookies to keep your cart. <button>OK</button></div>',
    ),
    "white text over a picture": lambda h: with_body_start(
        h,
        '<div style="position:relative;height:160px"><div style="position:absolute;inset:0;background:#345"></div>'
        '<h2 style="position:relative;color:#fff;padding:20px">New season</h2></div>',
    ),
    "gradient text": lambda h: with_body_start(
        h,
        '<h2 style="background:linear-gradient(90deg,#f06,#48f);-webkit-background-clip:text;background-clip:text;'
        'color:transparent">Made to last</h2>',
    ),
    "decorative veil without pointer events": lambda h: with_body_end(
        h, f'<div class="grain" style="{_OVERLAY}background:rgba(0,0,0,0.04);pointer-events:none"></div>'
    ),
    "underline drawn by ::after": lambda h: with_style(
        h, "h1{position:relative}h1::after{content:'';position:absolute;left:0;bottom:-6px;width:60px;height:3px;background:#c30}"
    ),
    "badge drawn by ::before beside the text": lambda h: with_style(
        h,
        "p{position:relative;padding-left:28px}p::before{content:'';position:absolute;left:0;top:2px;width:18px;height:18px;"
        "background:#2a6;border-radius:50%}",
    ),
    "screen-reader text": lambda h: with_body_end(
        h,
        '<span style="position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap">'
        "Skip to the product details</span>",
    ),
    "carousel": lambda h: with_body_end(
        h,
        '<div style="width:300px;overflow:hidden"><div style="display:flex;width:900px">'
        + "".join(f'<p style="width:300px;flex:none">Slide {i}: a customer review of the product.</p>' for i in (1, 2, 3))
        + "</div></div>",
    ),
    "scrolling box": lambda h: with_body_end(
        h,
        '<div style="height:120px;overflow:auto;border:1px solid #ccc">'
        + "".join(f"<p>Review {i}: works well, arrived on time.</p>" for i in range(1, 12))
        + "</div>",
    ),
    # An app layout: the page does not scroll, a panel of its own does (its text below the first screen is seen).
    "app layout with a scrolling panel": lambda h: with_body_end(
        with_style(h, "html,body{height:100%;overflow:hidden}"),
        '<div style="height:60vh;overflow-y:auto;border:1px solid #ccc">'
        + "".join(f"<p>Message {i}: the order shipped and arrives on Friday.</p>" for i in range(1, 40))
        + "</div>",
    ),
    "light text on a dark section": lambda h: with_body_end(
        h, '<section style="background:#111;color:#eee;padding:12px"><p>Designed in Lisbon, made in Porto.</p></section>'
    ),
    "filled table": lambda h: with_body_end(h, FILLED_TABLE),
    "empty game board": lambda h: with_body_end(h, GAME_BOARD),
}


# A small shop page, the base the variants are applied to in the tests (the shipped pages are used too when measuring).
_PICTURE = (
    "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='120' height='90'%3E"
    "%3Crect width='120' height='90' fill='%23556'/%3E%3C/svg%3E"
)
SHOP = f"""<!doctype html><html><head><meta charset="utf-8"><title>Arc desk lamp</title>
<style>body{{font-family:sans-serif;margin:16px}}</style></head><body>
<h1>Arc desk lamp</h1><p class="price">$49</p>
<p>A matte black lamp with a curved aluminium arm and a warm, dimmable light.</p>
<img src="{_PICTURE}" alt="the lamp, lit"><img src="{_PICTURE}" alt="the lamp from the side">
<button type="button">Add to cart</button>
</body></html>"""
