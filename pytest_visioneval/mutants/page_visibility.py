"""Page mutants a person sees at once and the DOM hides: covered, hidden or unreadable content, content that comes late.

Occlusion: a full-screen "Loading..." overlay, the main section or a table
hidden by CSS, the top of the page covered by a fixed bar (each layer painted by
an element or by a ::before/::after of the page's root, with or without pointer
events). Legibility: the whole page washed out, blurred, turned or zoomed past
the viewport's width, each by a random amount. Timing: the
content shown only seconds after load (a placeholder until then, longer than
any capture waits), a library script that fails to load, a table whose rows
never arrive. The text stays in the DOM in every one of them.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from ..graders.page_legible import MIN_WORDS, page_words
from . import seen_by
from .base import Family, MutantClass, NotApplicable, Variant
from .pages import PageSubject, before_body_end, no_page

_MAIN_TAGS = ("main", "article", "section")
_SCRIPT_SRC = re.compile(r"(<script\b[^>]*?\bsrc\s*=\s*[\"']?)(https?://[^\"'\s>]+)", re.IGNORECASE)
_TABLE = re.compile(r"<table\b.*?</table>", re.IGNORECASE | re.DOTALL)
SHOWS = "the content is visible"


def page_occlusion(subject: PageSubject) -> Family:
    family = "occlusion"
    if subject.page is None:
        return no_page(family)
    if not subject.rendered:
        return [], [NotApplicable(family, "the page is not rendered (no 'render' on the case)")]
    html = subject.html
    lower = html.lower()
    made = [
        MutantClass(family, "loading_overlay", True, SHOWS, seen_by.PAGE, lambda rng: _overlay(subject, rng)),
        MutantClass(family, "covering_bar", True, SHOWS, seen_by.PAGE, lambda rng: _bar(subject, rng)),
    ]
    skipped: list[NotApplicable] = []
    main = next((tag for tag in _MAIN_TAGS if f"<{tag}" in lower), None)
    if main is not None:
        made.append(
            MutantClass(family, "main_hidden", True, SHOWS, seen_by.PAGE | {"html"}, lambda rng: _hidden(subject, main, rng))
        )
    else:
        skipped.append(NotApplicable(f"{family}/main_hidden", "the page has no <main>, <article> or <section>"))
    if "<table" in lower:
        made.append(
            MutantClass(family, "table_hidden", True, SHOWS, seen_by.PAGE | {"html"}, lambda rng: _hidden(subject, "table", rng))
        )
    else:
        skipped.append(NotApplicable(f"{family}/table_hidden", "the page has no <table>"))
    return made, skipped


READABLE = "its text can be read"


def page_legibility(subject: PageSubject) -> Family:
    """The page's text is all there and "seen" by the DOM, and a person cannot read it: washed out, blurred,
    turned, or zoomed past the viewport's width. Each with random strength."""
    family = "legibility"
    if subject.page is None:
        return no_page(family)
    if not subject.rendered:
        return [], [NotApplicable(family, "the page is not rendered (no 'render' on the case)")]
    if len(_static_words(subject.html)) < MIN_WORDS:
        return [], [NotApplicable(family, f"the page writes fewer than {MIN_WORDS} words: too few to judge how legible it is")]

    def styled(name: str, draw: Callable[[random.Random], tuple[dict[str, object], str, str]]) -> MutantClass:
        def make(rng: random.Random) -> Variant:
            params, css, description = draw(rng)
            return Variant(params, description, subject.with_html(before_body_end(subject.html, f"<style>{css}</style>")))

        return MutantClass(family, name, True, READABLE, seen_by.PAGE, make)

    return [
        styled("washed_out", _washed_out),
        styled("blurred", _blurred),
        styled("turned", _turned),
        styled("zoomed_past_width", _zoomed),
    ], []


def _static_words(html: str) -> list[str]:
    from bs4 import BeautifulSoup

    from ..graders.html import visible_text

    soup = BeautifulSoup(html, "html.parser")
    for unshown in soup.find_all(["title", "desc"]):  # an SVG's title and description are not drawn
        unshown.decompose()
    return page_words(visible_text(soup))


def _washed_out(rng: random.Random) -> tuple[dict[str, object], str, str]:
    opacity = round(rng.uniform(0.08, 0.2), 2)
    return {"opacity": opacity}, f"html{{opacity:{opacity} !important}}", f"the whole page at opacity {opacity}"


def _blurred(rng: random.Random) -> tuple[dict[str, object], str, str]:
    radius = rng.randint(4, 8)  # 3 px leaves large type readable, if blurry: not what this family breaks
    return {"blur_px": radius}, f"html{{filter:blur({radius}px) !important}}", f"the whole page blurred by {radius} px"


def _turned(rng: random.Random) -> tuple[dict[str, object], str, str]:
    how = rng.choice(("rotate(180deg)", "scaleX(-1)", "scaleY(-1)"))
    return {"transform": how}, f"body{{transform:{how} !important}}", f"the page's body turned by {how}"


def _zoomed(rng: random.Random) -> tuple[dict[str, object], str, str]:
    scale = round(rng.uniform(2.2, 4.0), 1)
    # The page scrolls, so a person scrolls sideways to read it (a page that cannot scroll cuts it off instead,
    # which fits_width takes as decoration cut off by design).
    css = f"body{{transform:scale({scale}) !important;transform-origin:0 0 !important}}html,body{{overflow:visible !important}}"
    return {"scale": scale}, css, f"the page zoomed x{scale} from its top left corner, past the viewport's width"


def page_timing(subject: PageSubject) -> Family:
    family = "timing"
    if subject.page is None:
        return no_page(family)
    if not subject.rendered:
        return [], [NotApplicable(family, "the page is not rendered (no 'render' on the case)")]
    html = subject.html
    made = [MutantClass(family, "late_content", True, SHOWS, seen_by.PAGE, lambda rng: _late(subject, rng))]
    skipped: list[NotApplicable] = []
    if _SCRIPT_SRC.search(html):
        made.append(
            MutantClass(family, "library_fails", True, "the page runs", seen_by.PAGE, lambda rng: _library_fails(subject, rng))
        )
    else:
        skipped.append(NotApplicable(f"{family}/library_fails", "the page loads no library from a URL"))
    if _TABLE.search(html):
        made.append(
            MutantClass(family, "table_never_fills", True, SHOWS, seen_by.PAGE | {"html"}, lambda rng: _empty_table(subject, rng))
        )
    else:
        skipped.append(NotApplicable(f"{family}/table_never_fills", "the page has no <table>"))
    return made, skipped


def _colour(rng: random.Random) -> str:
    return f"#{rng.randint(0, 0xFFFFFF):06x}"


# What paints a covering layer: an element of its own, or a ::before/::after of <body> or <html>, which has
# no element for the DOM to list (a hit test answers the page's own <body>), optionally without pointer events.
_PAINTERS = ("element", "body::after", "body::before", "html::after")


def _layer(rng: random.Random, box: str, text: str) -> tuple[str, str]:
    """A fixed layer at ``box`` (CSS) showing ``text``, painted by a random painter: (its markup, the painter)."""
    painter = rng.choice(_PAINTERS)
    layer = f"position:fixed;{box};z-index:2147483647;font:20px sans-serif;padding:8px;box-sizing:border-box"
    if rng.random() < 0.5:
        layer += ";pointer-events:none"
    if painter == "element":
        return f'<div style="{layer}">{text}</div>', painter
    return f"<style>{painter}{{content:'{text}';{layer}}}</style>", painter


def _overlay(subject: PageSubject, rng: random.Random) -> Variant:
    opacity = round(rng.uniform(0.92, 1.0), 2)
    background = _colour(rng)
    markup, painter = _layer(rng, f"inset:0;background:{background};opacity:{opacity}", "Loading...")
    params = {"background": background, "opacity": opacity, "painter": painter}
    return Variant(
        params,
        f"a full-screen 'Loading...' overlay ({background}, opacity {opacity}, painted by {painter})",
        subject.with_html(before_body_end(subject.html, markup)),
    )


def _bar(subject: PageSubject, rng: random.Random) -> Variant:
    height = rng.randint(45, 75)
    background = _colour(rng)
    # Anchored at the top, where every page's content starts: a bar over the empty bottom of a short
    # page hides nothing a person needs, so it would not be a broken output.
    edge = "top"
    markup, painter = _layer(rng, f"{edge}:0;left:0;right:0;height:{height}vh;background:{background}", "Menu")
    params = {"height_vh": height, "edge": edge, "background": background, "painter": painter}
    return Variant(
        params,
        f"a fixed bar covering the {edge} {height}% of the window, painted by {painter}",
        subject.with_html(before_body_end(subject.html, markup)),
    )


def _hidden(subject: PageSubject, tag: str, rng: random.Random) -> Variant:
    how = rng.choice(("display:none", "visibility:hidden", "opacity:0"))
    style = f"<style>{tag}{{{how} !important}}</style>"
    return Variant(
        {"element": tag, "css": how}, f"every <{tag}> hidden by {how}", subject.with_html(before_body_end(subject.html, style))
    )


def _late(subject: PageSubject, rng: random.Random) -> Variant:
    seconds = rng.randint(20, 60)  # longer than any capture waits (the renderer's page deadline is shorter)
    snippet = (
        '<style id="vx-late">body>*:not(#vx-wait){display:none !important}</style>'
        '<div id="vx-wait" style="font:20px sans-serif;padding:40px">Loading...</div>'
        f"<script>setTimeout(function(){{document.getElementById('vx-late').remove();"
        f"document.getElementById('vx-wait').remove()}},{seconds * 1000})</script>"
    )
    return Variant(
        {"seconds": seconds},
        f"the content shown only {seconds} s after load, a placeholder until then",
        subject.with_html(before_body_end(subject.html, snippet)),
    )


def _library_fails(subject: PageSubject, rng: random.Random) -> Variant:
    urls = [m.group(2) for m in _SCRIPT_SRC.finditer(subject.html)]
    url = rng.choice(urls)
    broken = url.rsplit("/", 1)[0] + "/missing-module.js"
    return Variant({"url": url}, f"the script {url} fails to load (404)", subject.with_html(subject.html.replace(url, broken, 1)))


def _empty_table(subject: PageSubject, rng: random.Random) -> Variant:
    """One table keeps its header row; every other row is taken out as soon as it appears, static or added by a script."""
    count = len(_TABLE.findall(subject.html))
    chosen = rng.randrange(count)
    script = (
        "<script>(function(){function empty(){var t=document.querySelectorAll('table')[" + str(chosen) + "];"
        "if(t){Array.prototype.slice.call(t.rows,1).forEach(function(r){r.remove()})}}"
        "empty();new MutationObserver(empty).observe(document.documentElement,{childList:true,subtree:true});"
        "document.addEventListener('DOMContentLoaded',empty)})()</script>"
    )
    html = _after_head_start(subject.html, script)
    return Variant(
        {"table": chosen}, f"table {chosen + 1} of {count} never fills: only its header row shows", subject.with_html(html)
    )


def _after_head_start(html: str, snippet: str) -> str:
    """``snippet`` first in the page (after ``<head>`` or ``<html>``), so it runs before the page's own scripts."""
    match = re.search(r"<head\b[^>]*>|<html\b[^>]*>", html, re.IGNORECASE)
    return html[: match.end()] + snippet + html[match.end() :] if match else snippet + html
