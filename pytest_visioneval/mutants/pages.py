"""Mutants of an HTML output: a script error, a hidden body, images that are not images, copied showcases."""

from __future__ import annotations

import re

from ..artifacts import Artifact
from ..cases.spec import CaseSpec
from ..graders.rendered import screenshot_name
from .base import Mutant, NotApplicable, decoded, png, replaced

_IMG_SRC = re.compile(r"(<img\b[^>]*?\bsrc\s*=\s*)(\"[^\"]*\"|'[^']*'|[^\s>]+)", re.IGNORECASE)
_CAPTURE = screenshot_name(1)  # what the renderer writes next to the page


def page_mutants(case: CaseSpec, artifacts: tuple[Artifact, ...]) -> tuple[list[Mutant], list[NotApplicable]]:
    page = next((a for a in artifacts if a.kind == "html"), None) or next((a for a in artifacts if a.kind == "text"), None)
    if page is None:
        return [], [NotApplicable("page", "the known-good output holds no page or reply")]
    reply = page.data.decode("utf-8", errors="replace")
    # A reply (reply.md) holds the page in a fenced code block: mutate inside it, where extraction will look.
    block = _page_block(reply) if page.kind == "text" else None
    html = reply if block is None else reply[block[0] : block[1]]
    mutants: list[Mutant] = []
    skipped: list[NotApplicable] = []

    def swap(name: str, broken: bool, description: str, text: str, others: tuple[tuple[Artifact, Artifact], ...] = ()) -> None:
        if block is not None:
            text = reply[: block[0]] + text + reply[block[1] :]
        base = replaced(artifacts, page, Artifact(page.name, text.encode("utf-8"), page.mime))
        for old, new in others:
            base = tuple(new if a.name == old.name else a for a in base)
        mutants.append(Mutant(name, broken, description, base))

    rendered = case.render is not None
    if rendered:
        swap("script_error", True, "an uncaught exception thrown on load", _before_body_end(html, _SCRIPT_ERROR))
        hidden = _before_body_end(html, "<style>body{display:none !important}</style>")
        swap("hidden_body", True, "body { display: none }", hidden)
    else:
        skipped.append(NotApplicable("script_error", "the page is not rendered (no 'render' on the case)"))
    if _IMG_SRC.search(html):
        self_name = "page.html" if page.kind == "text" else page.name
        swap("img_is_the_page", True, f'the first <img> shows "{self_name}", the page itself', _first_src(html, self_name))
        if rendered:
            swap("img_is_a_capture", True, f'the first <img> shows "{_CAPTURE}", a capture', _first_src(html, _CAPTURE))
    else:
        skipped.append(NotApplicable("img_is_the_page", "the page has no <img>"))
    copies = _showcase_copies(case, artifacts)
    if copies:
        swap("showcase_copies_source", True, "every showcase image is the source image again", html, copies)
    else:
        skipped.append(NotApplicable("showcase_copies_source", "no source image and showcase images to copy"))
    swap("reformatted", False, "the same page, re-indented and with a comment", _reformatted(html))
    return mutants, skipped


_SCRIPT_ERROR = "<script>throw new Error('injected by the mutation self-test')</script>"


_FENCED = re.compile(r"```[^\n`]*\n(.*?)```", re.DOTALL)


def _page_block(reply: str) -> tuple[int, int] | None:
    """Start and end of the content of the reply's code block that holds the page (css and js blocks
    are merged into it by extraction), else of its largest block; None without blocks."""
    blocks = [m.span(1) for m in _FENCED.finditer(reply)]
    pages = [s for s in blocks if any(tag in reply[s[0] : s[1]].lower() for tag in ("<body", "<html", "<svg"))]
    chosen = pages or blocks
    return max(chosen, key=lambda span: span[1] - span[0]) if chosen else None


def _before_body_end(html: str, snippet: str) -> str:
    """``snippet`` at the end of the body (or inside an SVG's root element, where it runs and styles too)."""
    lower = html.lower()
    at = lower.rfind("</body>")
    if at < 0:
        at = lower.rfind("</svg>")
    return html[:at] + snippet + html[at:] if at >= 0 else html + snippet


def _first_src(html: str, target: str) -> str:
    return _IMG_SRC.sub(lambda m: f'{m.group(1)}"{target}"', html, count=1)


def _reformatted(html: str) -> str:
    # Whitespace between tags only: what a formatter changes without changing the page.
    return "<!-- reformatted -->\n" + re.sub(r">\s*\n\s*<", ">\n    <", html)


def _showcase_copies(case: CaseSpec, artifacts: tuple[Artifact, ...]) -> tuple[tuple[Artifact, Artifact], ...]:
    """For a page built around a source image: every other image file of the output replaced by the source."""
    if not case.images:
        return ()
    source = case.images[0].read_bytes()
    images = [a for a in artifacts if a.kind == "image" and a.data != source]
    if len(images) < 2:
        return ()
    image = decoded(Artifact(case.images[0].name, source))
    data = png(image) if image is not None else source
    return tuple((a, Artifact(a.name, data, a.mime)) for a in images)
