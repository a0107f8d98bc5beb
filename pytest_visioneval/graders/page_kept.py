"""Gate ``text_kept`` of ``render_check``: the words the page's source writes are still on the page at the capture.

A page's own script can take its content away after load: the body replaced by "Loading...", every
letter turned into an "x", a section emptied. The DOM then says the little that is left is seen, and a
page with few words is too short for ``text_legible`` to judge. What it lost is in its source.

The rule: of the distinct words of the source (letters only, three or more, lowercased) written as
text of its ``<body>`` (not in scripts, styles, templates or ``<noscript>``, and not inside a
``{{ }}`` or ``${ }`` placeholder a script fills in), at least :data:`MIN_KEPT` must be in the text
of the DOM at the capture, hidden or not (so tabs and closed menus keep their words), unless the DOM
holds more distinct words than the source: a page that builds its content by script replaces its
"Loading your dashboard" with more than it had. A source of fewer than :data:`MIN_SOURCE_WORDS` such
words is not judged.
"""

from __future__ import annotations

import re

from .base import Gate

MIN_KEPT = 0.3
MIN_SOURCE_WORDS = 4
_WORD = re.compile(r"[^\W\d_]{3,}")
_PLACEHOLDER = re.compile(r"\{\{.*?\}\}|\$\{.*?\}", re.DOTALL)


def words_of(html: bytes | str) -> set[str]:
    """The distinct words of the text of ``html``'s body, as :func:`text_kept_gate` counts them."""
    from bs4 import BeautifulSoup

    from .html import visible_text

    text = _PLACEHOLDER.sub(" ", visible_text(BeautifulSoup(html, "html.parser")))
    return {word.lower() for word in _WORD.findall(text)}


def text_kept_gate(source: bytes | str, dom: bytes | str, page: str) -> Gate | None:
    """Whether the DOM at the capture still holds the source's words; None when the source has too few."""
    written = words_of(source)
    if len(written) < MIN_SOURCE_WORDS:
        return None
    now = words_of(dom)
    kept = written & now
    share = len(kept) / len(written)
    message = f"{len(kept)} of the {len(written)} words {page} writes are on the page at the capture ({share:.0%})"
    if share >= MIN_KEPT:
        return Gate("text_kept", True, message)
    if len(now) > len(written):
        return Gate("text_kept", True, f"{message}; its scripts put more in their place ({len(now)} words)")
    lost = sorted(written - kept)[:6]
    return Gate(
        "text_kept",
        False,
        f"{message}; need {MIN_KEPT:.0%}: the page's scripts took its content away (gone: {', '.join(lost)} ...)",
    )
