"""Mutants of an HTML output: a script error, a hidden body, images that are not images, copied showcases."""

from __future__ import annotations

import re

from ..artifacts import Artifact
from ..cases.spec import CaseSpec
from .base import Mutant, NotApplicable, decoded, png, replaced

_IMG_SRC = re.compile(r"(<img\b[^>]*?\bsrc\s*=\s*)(\"[^\"]*\"|'[^']*'|[^\s>]+)", re.IGNORECASE)
_CAPTURE = "screenshot-1.png"  # what the renderer writes next to the page


def page_mutants(case: CaseSpec, artifacts: tuple[Artifact, ...]) -> tuple[list[Mutant], list[NotApplicable]]:
    page = next((a for a in artifacts if a.kind == "html"), None) or next((a for a in artifacts if a.kind == "text"), None)
    if page is None:
        return [], [NotApplicable("page", "the known-good output holds no page or reply")]
    html = page.data.decode("utf-8", errors="replace")
    mutants: list[Mutant] = []
    skipped: list[NotApplicable] = []

    def swap(name: str, broken: bool, description: str, text: str, others: tuple[Artifact, ...] = ()) -> None:
        base = replaced(artifacts, page, Artifact(page.name, text.encode("utf-8"), page.mime))
        for old, new in others:
            base = tuple(new if a.name == old.name else a for a in base)
        mutants.append(Mutant(name, broken, description, base))

    rendered = case.render is not None
    if rendered:
        swap("script_error", True, "an uncaught exception thrown on load", _before_body_end(html, _SCRIPT_ERROR))
        swap("hidden_body", True, "body { display: none }", _in_head(html, "<style>body{display:none !important}</style>"))
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


def _before_body_end(html: str, snippet: str) -> str:
    at = html.lower().rfind("</body>")
    return html[:at] + snippet + html[at:] if at >= 0 else html + snippet


def _in_head(html: str, snippet: str) -> str:
    at = html.lower().find("</head>")
    return html[:at] + snippet + html[at:] if at >= 0 else snippet + html


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
