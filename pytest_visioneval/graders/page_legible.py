"""Can a person read the text a rendered page shows? The page's own words, read back from its capture by OCR.

The renderer says which text the page shows (``render.json``'s ``visible_text``:
the DOM's text, less what is hidden, covered, clipped or off the page). The DOM
cannot say whether that text can be *read*: a CSS blur or a transform
(upside down, mirrored, squashed), letters shrunk to 3 px or spaced apart, a
layer painted by a pseudo-element leave every word "seen" in the DOM and none
legible on the screen; a veil over the page, or its content at a tenth of
its opacity, leaves the words faint. So the capture a person would look at (the full page
when there is one, else the last screenshot) is read with tesseract (the same
first look as ``use: text``), and each of the page's words is looked for among
the words read: the same word, or for words of five letters or more one edit
away (an OCR slip). A word is a run of letters, digits, ``$``, ``€``, ``£`` or
``%`` of three characters or more, or one with a digit; text in other scripts
than Latin is not counted (tesseract reads English here). The page's text is
measured over the whole page; a screenshot shows only the first screen of it,
so without a full-page capture only the text the renderer saw on the first
screen (``text.first_screen``) is looked for.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image

from .base import Gate

# Measured (docs/graders.md, render_check): the shipped pages' references and copies in another font or
# with a margin read back 0.67-1.0 of their words; blurred by 4 px, upside down, mirrored, squashed to a
# quarter, text at 3 px or clipped to 120 px of height, 0.0-0.25.
MIN_LEGIBLE = 0.5
MIN_WORDS = 4  # fewer words than this: too few to judge by share (a page of two words read as one)
SHOWN = 8  # words quoted in a failing reason
# Grey levels (0-255) between a line's ink and its ground (5th to 95th percentile in its box) below which a
# person can barely make it out: a quarter of the range. Black text at 12% opacity on white spans about 30,
# the whole page at 20% opacity about 51 (a contrast of 1.6:1, under half of the least WCAG asks of large
# text); the palest legitimate text of the shipped pages (grey captions, white on a light button) 90 or more.
FAINT_CONTRAST = 64
_WORD = re.compile(r"[A-Za-z0-9$€£%]+")


@dataclass(frozen=True)
class Legibility:
    capture: str  # the capture read
    wanted: tuple[str, ...]  # the page's words, lower case, in order (repeats kept)
    unread: tuple[str, ...]  # those not read back

    @property
    def share(self) -> float:
        return 1 - len(self.unread) / len(self.wanted) if self.wanted else 1.0


def page_words(text: str) -> list[str]:
    """The words of ``text`` that count (see the module's note), lower case."""
    return [w.lower() for w in _WORD.findall(text) if len(w) >= 3 or any(c.isdigit() for c in w)]


def legibility(shown_text: str, capture_name: str, capture: Image.Image) -> Legibility:
    """How many of the words of ``shown_text`` (what the page shows in ``capture``) tesseract reads back in it.

    Words on a line that stands out from its surroundings by less than ``FAINT_CONTRAST`` grey levels do not
    count: OCR reads text through a veil or at a tenth of its opacity that a person can barely make out.
    """
    import numpy as np

    from .ocr import looked_at

    wanted = page_words(shown_text)
    gray, lines = looked_at(capture)
    greys = np.asarray(gray, dtype=np.float32)
    read: set[str] = set()
    for line in lines:
        left, top, right, bottom = line.box
        inside = greys[max(0, top) : bottom, max(0, left) : right]
        if inside.size and float(np.percentile(inside, 95) - np.percentile(inside, 5)) >= FAINT_CONTRAST:
            read.update(page_words(line.text))
    unread = tuple(w for w in wanted if not _read(w, read))
    return Legibility(capture_name, tuple(wanted), unread)


def _read(word: str, read: set[str]) -> bool:
    if word in read:
        return True
    if len(word) < 5:
        return False
    return any(abs(len(word) - len(r)) <= 1 and difflib.SequenceMatcher(None, word, r).ratio() >= 0.8 for r in read)


def legible_gate(found: Legibility, least: float) -> Gate:
    read = len(found.wanted) - len(found.unread)
    said = f"tesseract reads {read} of the {len(found.wanted)} words the page shows ({found.share:.0%}) in {found.capture}"
    if found.share >= least:
        return Gate("text_legible", True, said)
    return Gate(
        "text_legible",
        False,
        f"{said}; need {least:.0%}: the text is there but cannot be read (blurred, turned, squashed, too small, "
        f"faint or painted over?); not read: {_listed(found.unread)}",
    )


def _listed(words: Sequence[str]) -> str:
    unique = list(dict.fromkeys(words))
    more = f" (+{len(unique) - SHOWN} more)" if len(unique) > SHOWN else ""
    return ", ".join(repr(w) for w in unique[:SHOWN]) + more
