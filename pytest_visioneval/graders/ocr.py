"""``use: text`` - the text the output images show, read with OCR (tesseract).

Gate ``text_present``: enough of the ``required`` lines are found (at least
``min_found`` of them; all by default), each as often as ``times`` asks and,
with ``forbid_extra``, no other text was read. Metric ``found``: the fraction
of required lines found as asked, in [0, 1]. Both reasons name the missing,
misread, repeated and extra lines; the metric's reason, and the gate's when it
fails, also quote what OCR read (truncated), so a miss can be checked by eye.

Gate ``in_order`` (``order: listed`` and two or more required lines): the required lines found
are read in the order the case lists them. Reading order is top to bottom, and left to
right within a row; read lines whose vertical extents overlap by at least half the shorter one's
height are one row. With several images, an earlier image is read first. A headline and a call to
action swapped, or two field labels swapped, fail: ``"Visit us" is read before "Summer Book Fair"
(line 5 of the list above line 1)``. It is asked for, not on by default: a list is not always
written in reading order (the shipped bar chart lists its title, then the x axis title, then the
y axis title, which is set vertically beside the bars), and a default that fails such lists would
change the verdict of case files written before it. The cookbook protocol asks for it (its
``required_text`` is the copy in the prompt's order), as do the shipped flyer and mockup suites.

Gate ``text_extent`` (a required line found): the required lines spread over the canvas as they
should. With a reference image (read once with the same OCR), the box around the required lines
found in both is at least ``min_extent_of_reference`` of the reference's in width and in height;
without one, with two or more lines found, the box spans at least ``min_extent`` of the canvas in
its longer direction. Correct copy shrunk into a corner of an empty canvas stays legible, but fails.

Options:

* ``required``     - the lines of text the image must show (at least one).
* ``match``        - ``normalized`` (default; see :func:`normalize`), ``exact`` or ``exact_lines``.
* ``times``        - ``at_least_once`` (default), ``exactly_once``, or a number N: each line read exactly N
                     times (three "Choose" buttons), counted over all read lines of all output images.
* ``forbid_extra`` - also fail when the image shows text no required line accounts for.
* ``min_found``    - the fraction of required lines needed to pass (default 1.0).
* ``lang``         - tesseract language(s), e.g. ``eng`` or ``eng+deu``; by default picked from the required
                     text's script: ``chi_sim`` when it holds Chinese characters (``chi_sim+eng`` with
                     Latin letters too), else ``eng``.
* ``order``        - ``any`` (default) or ``listed``: whether the ``in_order`` gate applies.
* ``min_extent_of_reference`` / ``min_extent`` - the ``text_extent`` gate's floors (see above).

Chinese (and other CJK) text: OCR puts a space between CJK characters, so spaces next to a CJK
character are not compared; full-width punctuation is compared as its ASCII form (NFKC), and
a trailing ``。`` or ``、`` counts like a trailing full stop or comma.

A required line counts where it stands on its own: it is a whole read line,
or it is cut off from the rest of the read line by a separator mark (``|``,
``/``, a dash or a bullet standing as a word) or a wide gap (tesseract puts
side-by-side items such as two buttons on one line; the words of a read line
are split where the gap between them is over twice the text height, while
ordinary word spaces measure under 1.1 of it). Marks without letters or
digits at either end of a read line (a bullet, a list dash, the corner of a
button) do not stop it from standing alone. A required line read only as part
of a longer line - "Open until 10pm" inside "Not open until 10pm" - does not
count in either mode, and the reason says where it was read: extra words on
the same line, set with ordinary spacing, are read as one line by a person
too, and they can turn the meaning round. ``normalized`` compares words
case-folded, with dash and quote variants unified and trailing ``. , : ;``
dropped; ``exact`` compares them character for character, except that the
line may be wrapped in quotes or brackets and followed by ``. , : ;``.

``exact_lines`` is the cookbook's own check (its coffee-flyer example: the
extracted lines against the required set): a required line counts only where a
whole read line equals it, character for character (case, dashes, bullets,
punctuation); any other read line is extra. Word spacing is the one thing not
compared (OCR reports words, not the width of the spaces between them), and
read fragments with fewer than two letters or digits are still dropped as OCR
noise. Used with ``times: at_least_once`` and ``forbid_extra`` it is the
cookbook's set equality: nothing missing, nothing extra, a repeat allowed.

Reading: tesseract misses light text on coloured buttons and banners, so the
image is first turned into dark ink on white whatever the colours (see
:func:`prepare`). A small glyph standing where a list bullet goes, which OCR
reads as ``¢``, ``e`` or ``°``, is read as ``•``. When a required line is
still missing, a second look re-reads lines that nearly match it one at a
time and reads the page once more in sparse-text mode, adding only text found
where the first pass read nothing; it can find a missed line, never hide one.
With ``times: exactly_once`` (or a number), a last look searches for copies of the lines
found that the first reading missed (a small tag whose colour differs from
the area around it can come out as a dark block, or garbled; see
:func:`repeat_look`): it can find a repeat, never a missing line. With
``times`` a number, a line read fewer times than asked gets one more look
(:func:`count_look`: pieces of a sparse-mode read where nothing was read,
each read alone), which can add a copy, never a missing line.
Leftover fragments with fewer than two letters or digits are OCR noise
(bullets, icons, borders) and never count as extra text.

Needs the ``tesseract`` program (Debian package ``tesseract-ocr``); without
it grading raises :class:`GraderError`, so the case is an error, not a pass.
"""

from __future__ import annotations

import difflib
import functools
import itertools
import math
import re
import shutil
import statistics
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytesseract
from PIL import Image, ImageOps

from ..artifacts import Artifact
from ..calls.waiting import waiting
from ..cases.spec import CaseSpec
from ..errors import GraderError
from .base import Gate, Grade, GradeContext, Metric
from .imaging import decode, rgb_array

# Fully automatic page segmentation. Measured on 108 synthetic UI mockups,
# flyers and app screens (1008 lines, 3 fonts, text 7-144 px): psm 3 found 93% of the
# lines, psm 6 90%, psm 11 84%. Sparse-text mode 11 drops text inside filled
# or outlined boxes, i.e. exactly the buttons of a UI; mode 6 assumes a single
# block and garbles side-by-side columns. Mode 11 is the second look: it finds
# some labels psm 3 skips next to input boxes; mode 7 re-reads one line.
PSM = 3
SPARSE_PSM = 11
LINE_PSM = 7
# Doubling images whose longer side is below this cut missed lines from 15%
# to 7% over the same set (small text gained most) and never lost accuracy;
# above it there was no gain, only time. 3x read worse than 2x.
UPSCALE_BELOW = 1600
# Background estimate (see prepare): the structuring element is this fraction of the longer side
# (at least 15 px), wider than the strokes of any text that fits the image several times over.
BACKGROUND_FRACTION = 1 / 25
POLARITY_SIDE = 400  # the median that tells light-on-dark from dark-on-light runs on a copy this size
POLARITY_WINDOW = 15
INK_FLOOR = 10  # grey levels of difference below this are JPEG noise, not ink
INK_GAIN = 2.0
# A dark block in the ink image taken for a label whose polarity came out wrong (see repeat_look):
# at least this tall (px of the prepared image) and this many times as wide as tall; its outline
# encloses this share of its box, and this share of the box is ink.
BLOCK_MIN_HEIGHT = 16
BLOCK_MIN_ASPECT = 1.5
BLOCK_MIN_FILL = 0.8
BLOCK_MIN_INK = 0.15
GAP_SPLIT = 2.0  # a gap over this many text heights splits a read line (word spaces measured 0.3-1.04)
BULLET_HEIGHT = 0.45  # a leading glyph under this share of the line's text height is a bullet (see mark_bullet)
LOW_CONFIDENCE = 75  # a line with a word under this is read again (misreads measured 0-68, sound words 83-96)
NEAR_MISS = 0.7  # difflib ratio from which a read line is re-read as a possible misreading of a missing line
OCR_TIMEOUT_S = 120
# Two read lines are one row when their vertical extents overlap by at least this share of the shorter height.
ROW_OVERLAP = 0.5
# The text_extent gate. Legitimate copies of the shipped flyers and mockups (JPEG, shifts, brightness,
# resize round trips; 56) kept the reference's box whole (ratio 1.0-1.03 in each direction), copies
# shrunk by 0.3-0.8 at most 0.79 of it (benchmarks/text_layout_separation.py; docs/graders.md).
DEFAULT_MIN_TEXT_EXTENT_OF_REFERENCE = 0.9
# Without a reference: the longer side of the box around two or more required lines, as a share of the
# canvas. The shipped flyers', mockups' and bizgeneval examples' required lines span 0.63-0.92 of it.
DEFAULT_MIN_TEXT_EXTENT = 0.3
ORDERS = ("listed", "any")
READ_PREVIEW_CHARS = 300
LIST_PREVIEW = 6  # lines named per list in a reason

_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"
_UNIFY = str.maketrans(
    {
        **dict.fromkeys(_DASHES, "-"),
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032`\u00b4", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033", '"'),
    }
)
# What OCR puts between CJK characters is not a word space: spaces next to one are not compared.
_CJK = (
    "\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u312f\u3190-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"
)
_CJK_SPACE = re.compile(f"(?<=[{_CJK}])\\s+|\\s+(?=[{_CJK}])")
# Full-width ASCII forms (CJK punctuation such as "，" and "！") compare as their ASCII form in exact modes too.
_FULL_WIDTH = str.maketrans({chr(code): chr(code - 0xFEE0) for code in range(0xFF01, 0xFF5F)})
_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_BULLETS = "\u2022\u25e6\u2023\u2219\u00b7\u25cf\u25cb\u25aa\u25ab\u25a0\u25a1\u25ba\u25b8"
# "-" and "*" count as bullets only as a word of their own: "-20%" and "*Terms" keep theirs.
_BULLET_WORDS = frozenset("-*")
_OPTIONAL_TRAILING = ".,:;\u3002\u3001"  # and the ideographic full stop and comma
# The digit 1 and the letter l are one stroke in many sans fonts and OCR swaps them ("11pm" read
# as "1lpm" and "llpm" in DejaVu Sans: 20 of 384 synthetic flyer readings), so normalized matching
# takes them as one character. (I and l are as alike, but I must stay equal to i.)
_SAME_STROKE = str.maketrans("1", "l")
# A word made of these alone separates the items of a line ("Mon - Fri | 9am - 5pm").
_SEPARATORS = frozenset("|\u00a6/\\*~-" + _DASHES + _BULLETS)
# What exact matching lets wrap a line: quotes and brackets around it, and . , : ; after it.
_OPENING = "\"'(\u00ab[\u201c\u2018"
_CLOSING = ".,:;\"')\u00bb]\u201d\u2019"
# Marks OCR reads reliably: a glyph read as one of these is never taken for a bullet.
_RELIABLE_MARKS = frozenset("-*" + _DASHES)
BULLET = "\u2022"

TIMES = ("at_least_once", "exactly_once")
MATCHES = ("normalized", "exact", "exact_lines")

NOT_INSTALLED = (
    "the text grader needs the tesseract OCR program, which was not found "
    "(Debian/Ubuntu: apt-get install tesseract-ocr; elsewhere see https://tesseract-ocr.github.io)"
)

Token = tuple[str, str]  # (the word as read, its matching key)
Box = tuple[int, int, int, int]  # left, top, right, bottom in the prepared image


@dataclass(frozen=True)
class Word:
    text: str
    box: Box
    confidence: float

    @property
    def height(self) -> int:
        return self.box[3] - self.box[1]


@dataclass(frozen=True)
class Page:
    """An output image ready for OCR: greyscale, and as ink on white (what the first look reads)."""

    gray: Image.Image
    ink: Image.Image


@dataclass(frozen=True)
class ReadLine:
    """One line as OCR read it (a run of words split off at wide gaps), with its box."""

    text: str
    box: Box
    confidence: float = 100.0  # tesseract's, of the least sure word (0-100)


@dataclass(frozen=True)
class Tally:
    """How one required line was read over all images."""

    count: int  # times it stands on its own
    inside: str | None = None  # a longer read line holding it, when it never stands alone
    read_as: str | None = None  # exact mode: a line that equals it only once normalized


@dataclass(frozen=True)
class Reading:
    tallies: tuple[Tally, ...]
    extras: tuple[str, ...]  # read text no required line accounts for


@dataclass(frozen=True)
class Place:
    """Where a required line stands on its own: image, reading row and position in it, start word, box."""

    image: int  # the output image's index
    name: str
    row: tuple[int, int]  # (row, position within the row), both in reading order
    word: int  # the word of the read line where the required line starts
    box: Box
    size: tuple[int, int]  # the read image's width and height (the box's frame)

    def key(self) -> tuple[int, int, int, int]:
        return (self.image, *self.row, self.word)


class TextGrader:
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["required"],
        "properties": {
            "required": {"type": "array", "items": {"type": "string", "pattern": "\\S"}, "minItems": 1},
            "match": {"enum": list(MATCHES), "default": "normalized"},
            "times": {"oneOf": [{"enum": list(TIMES)}, {"type": "integer", "minimum": 1}], "default": "at_least_once"},
            "forbid_extra": {"type": "boolean", "default": False},
            "min_found": {"type": "number", "minimum": 0, "maximum": 1, "default": 1.0},
            "lang": {"type": "string", "pattern": "^[A-Za-z0-9_]+(\\+[A-Za-z0-9_]+)*$"},
            "order": {"enum": list(ORDERS), "default": "any"},
            "min_extent_of_reference": {"type": "number", "minimum": 0, "default": DEFAULT_MIN_TEXT_EXTENT_OF_REFERENCE},
            "min_extent": {"type": "number", "minimum": 0, "maximum": 1, "default": DEFAULT_MIN_TEXT_EXTENT},
        },
    }

    def __init__(self, options: Mapping[str, Any]):
        self.required: list[str] = list(options["required"])
        self.match: str = options.get("match", "normalized")
        self.exact = self.match != "normalized"  # what _explain and the reasons treat as exact
        self.exact_count = exact_count(options.get("times", "at_least_once"))
        self.forbid_extra = bool(options.get("forbid_extra", False))
        self.min_found = float(options.get("min_found", 1.0))
        self.lang = str(options.get("lang") or script_lang(self.required))
        self.in_order = options.get("order", "any") == "listed" and len(self.required) > 1
        self.min_extent_of_reference = float(options.get("min_extent_of_reference", DEFAULT_MIN_TEXT_EXTENT_OF_REFERENCE))
        self.min_extent = float(options.get("min_extent", DEFAULT_MIN_TEXT_EXTENT))

    @classmethod
    def check_case(cls, case: CaseSpec, options: Mapping[str, Any]) -> str | None:
        if case.task == "html_generation":
            return "the text grader reads image outputs; this case's task is html_generation"
        if options.get("match", "normalized") == "normalized":
            empty = [line for line in options.get("required", []) if not normalize(line)]
            if empty:
                return f"required line(s) {', '.join(map(_quote, empty))} hold no words once bullets and punctuation are dropped"
        return None

    def grade(self, case: CaseSpec, artifacts: Sequence[Artifact], context: GradeContext | None = None) -> Grade:
        require_tesseract()
        images = [a for a in artifacts if a.kind == "image"]
        if not images:
            reason = "the output holds no image"
            return Grade(gates=(Gate("text_present", False, reason),), metrics=(Metric("found", 0.0, reason),))
        pages: dict[str, Page] = {}
        broken: list[str] = []
        for artifact in images:
            try:
                gray = grayscale(decode(artifact.data))
            except ValueError as exc:
                broken.append(f"{artifact.name}: {exc}")
                continue
            pages[artifact.name] = Page(gray, ink_on_white(gray))
        read = {name: first_look(page, self.lang) for name, page in pages.items()}
        reading = self.tally(read)
        unread = [line for line, tally in zip(self.required, reading.tallies, strict=True) if tally.count == 0]
        if unread and pages:
            read = {name: second_look(pages[name], lines, unread, self.lang, self.match) for name, lines in read.items()}
            reading = self.tally(read)
        found = [line for line, tally in zip(self.required, reading.tallies, strict=True) if tally.count]
        if self.exact_count is not None and found:
            read = {name: repeat_look(pages[name], lines, found, self.lang, self.match) for name, lines in read.items()}
            reading = self.tally(read)
            short = [
                line for line, tally in zip(self.required, reading.tallies, strict=True) if 0 < tally.count < self.exact_count
            ]
            if short:
                read = {name: count_look(pages[name], lines, short, self.lang, self.match) for name, lines in read.items()}
                reading = self.tally(read)
        grade = self._grade(reading, {name: [line.text for line in lines] for name, lines in read.items()}, broken, len(images))
        places = self.places(read, {name: page.gray.size for name, page in pages.items()})
        layout: list[Gate] = []
        if self.in_order:
            layout.append(order_gate(self.required, places))
        if any(places):
            layout.append(self._extent_gate(places, case))
        return Grade(gates=(*grade.gates, *layout), metrics=grade.metrics)

    def places(self, read: Mapping[str, Sequence[ReadLine]], sizes: Mapping[str, tuple[int, int]]) -> list[list[Place]]:
        """Where each required line stands on its own, over all images, in reading order."""
        found: list[list[Place]] = [[] for _ in self.required]
        for image, (name, lines) in enumerate(read.items()):
            rows = reading_rows([line.box for line in lines])
            for index, starts in enumerate(occurrences(self.required, [line.text for line in lines], self.match)):
                found[index] += [Place(image, name, rows[i], start, lines[i].box, sizes[name]) for i, start in starts]
        return [sorted(places, key=Place.key) for places in found]

    def _extent_gate(self, places: Sequence[Sequence[Place]], case: CaseSpec) -> Gate:
        reference = case.reference if case.reference is not None and case.reference.is_file() else None
        if reference is None:
            return absolute_extent_gate(places, self.min_extent)
        ref_places = reference_places(reference, tuple(self.required), self.match, self.lang)
        return reference_extent_gate(self.required, places, ref_places, self.min_extent_of_reference)

    def tally(self, read: Mapping[str, Sequence[ReadLine]]) -> Reading:
        """Each required line's count over all images, and the text no required line accounts for."""
        lines = [line.text for page in read.values() for line in page]
        counts, leftovers = count_lines(self.required, lines, self.match)
        tallies = tuple(
            Tally(count) if count else _explain(required, lines, self.exact)
            for required, count in zip(self.required, counts, strict=True)
        )
        return Reading(tallies, tuple(dict.fromkeys(leftovers)))

    def _satisfied(self, tally: Tally) -> bool:
        return tally.count == self.exact_count if self.exact_count is not None else tally.count >= 1

    def _grade(self, reading: Reading, read: Mapping[str, list[str]], broken: list[str], n_images: int) -> Grade:
        total = len(self.required)
        found = sum(self._satisfied(tally) for tally in reading.tallies)
        need = math.ceil(self.min_found * total - 1e-9)
        extras = list(reading.extras)
        passed = found >= need and not broken and not (self.forbid_extra and extras)
        parts = [f"{len(broken)} of {n_images} image(s) do not decode: " + "; ".join(broken)] if broken else []
        if read and not any(read.values()):
            parts.append("OCR read no text")
        parts.append(_summary(found, total, need))
        parts += self._line_problems(reading.tallies)
        explained = {text for tally in reading.tallies for text in (tally.inside, tally.read_as) if text}
        if extras and self.forbid_extra:
            parts.append("extra: " + _quote_list(extras))
        elif extras and found < total:  # not an error here, but often the misread form of a missing line
            others = [text for text in extras if text not in explained]
            if others:
                parts.append("other text read: " + _quote_list(others))
        reason = "; ".join(parts)
        metric_reason = f"{reason}; read: {_preview(read)}" if read else reason
        return Grade(
            gates=(Gate("text_present", passed, reason if passed else metric_reason),),
            metrics=(Metric("found", found / total, metric_reason),),
        )

    def _line_problems(self, tallies: Sequence[Tally]) -> list[str]:
        """The lines never read on their own (with where they were read, if anywhere), then the repeated ones."""
        missing = [_quote(line) + _where(tally) for line, tally in zip(self.required, tallies, strict=True) if not tally.count]
        parts = ["missing: " + _shorten(missing)] if missing else []
        if self.exact_count is not None:
            parts += [
                f"{_quote(line)} read {tally.count} time{'s' if tally.count != 1 else ''}, expected exactly {self.exact_count}"
                for line, tally in zip(self.required, tallies, strict=True)
                if tally.count and tally.count != self.exact_count
            ]
        return parts


def exact_count(times: str | int) -> int | None:
    """How many times each line must be read (``times``: a number, or ``exactly_once``); None: at least once."""
    if isinstance(times, int):
        return times
    return 1 if times == "exactly_once" else None


def _where(tally: Tally) -> str:
    if tally.read_as:
        return f" (read as {_quote(tally.read_as)})"
    return f" (only found inside {_quote(tally.inside)})" if tally.inside else ""


def tesseract_installed() -> bool:
    return shutil.which(pytesseract.pytesseract.tesseract_cmd) is not None


def require_tesseract() -> None:
    if not tesseract_installed():
        raise GraderError(NOT_INSTALLED)


# -- reading ----------------------------------------------------------------
def ocr_lines(image: Image.Image, lang: str = "eng") -> list[str]:
    """The lines tesseract reads in ``image`` at the first look (:func:`first_look`)."""
    return [line.text for line in looked_at(image, lang)[1]]


def looked_at(image: Image.Image, lang: str = "eng") -> tuple[Image.Image, list[ReadLine]]:
    """``image`` in greyscale as it was read (:func:`grayscale`), and its lines at the first look, with their boxes there."""
    gray = grayscale(image)
    return gray, first_look(Page(gray, ink_on_white(gray)), lang)


def prepare(image: Image.Image) -> Image.Image:
    """Greyscale, doubled in size when small, then dark ink on white whatever the colours (:func:`ink_on_white`)."""
    return ink_on_white(grayscale(image))


def grayscale(image: Image.Image) -> Image.Image:
    """Greyscale with transparency flattened onto white, doubled in size when small."""
    gray = Image.fromarray(rgb_array(image).astype(np.uint8)).convert("L")
    if max(gray.size) < UPSCALE_BELOW:
        gray = gray.resize((gray.width * 2, gray.height * 2), Image.Resampling.LANCZOS)
    return gray


def ink_on_white(gray: Image.Image) -> Image.Image:
    """Each pixel's difference from the local background, as black ink on white.

    The background is a grey closing (dark text removed) where the text is dark and an opening
    (light text removed) where it is light. Both keep the straight edges of bands and buttons, so
    a filled button turns white with its label in black, not into an outline OCR reads as
    brackets. On the shipped flyers and mockups and their JPEG and shifted copies, tesseract on
    plain greyscale missed lines in 11 of 28 images (white labels on blue and purple buttons and
    headers), on this image in 2.
    """
    from scipy import ndimage  # here, not at import: every run collects this module, few read text

    pixels = np.asarray(gray, dtype=np.float32)
    side = max(15, int(max(pixels.shape) * BACKGROUND_FRACTION) | 1)
    closing = ndimage.grey_closing(pixels, size=(side, side))  # the background behind dark text
    opening = ndimage.grey_opening(pixels, size=(side, side))  # the background behind light text
    # Which of the two the area's typical grey is closer to tells dark-on-light from light-on-dark.
    typical = _local_median(pixels)
    dark_text = np.abs(typical - closing) <= np.abs(typical - opening)
    ink = np.where(dark_text, closing - pixels, pixels - opening)
    return Image.fromarray((255 - np.clip((ink - INK_FLOOR) * INK_GAIN, 0, 255)).astype(np.uint8))


def _local_median(pixels: np.ndarray) -> np.ndarray:
    """The median grey around each pixel, computed on a small copy (fast) and scaled back."""
    from scipy import ndimage

    step = max(1, round(max(pixels.shape) / POLARITY_SIDE))
    small = ndimage.median_filter(pixels[::step, ::step], size=POLARITY_WINDOW)
    height, width = pixels.shape
    scaled = Image.fromarray(small.astype(np.uint8)).resize((width, height), Image.Resampling.BILINEAR)
    return np.asarray(scaled, dtype=np.float32)


def read_page(image: Image.Image, lang: str, psm: int = PSM) -> list[ReadLine]:
    """The lines tesseract reads in a prepared image, split at wide gaps, leading bullet glyphs as ``•``."""
    data = _tesseract(pytesseract.image_to_data, image, lang, psm, output_type=pytesseract.Output.DICT)
    lines: dict[tuple[int, int, int], list[Word]] = {}
    for i, text in enumerate(data["text"]):
        if text.strip():
            left, top = data["left"][i], data["top"][i]
            box = (left, top, left + data["width"][i], top + data["height"][i])
            word = Word(text.strip(), box, float(data["conf"][i]))
            lines.setdefault((data["block_num"][i], data["par_num"][i], data["line_num"][i]), []).append(word)
    runs = [run for words in lines.values() for run in split_at_gaps(in_reading_order(words))]
    return [_read_line(run) for run in runs]


def in_reading_order(words: Sequence[Word]) -> list[Word]:
    """A line's words left to right; a line set vertically keeps tesseract's own order.

    In a vertical line (a chart's y-axis title: every word's box taller than wide) the words are
    stacked at nearly the same x, so sorting by x orders them by a pixel of jitter ("sold Loaves"
    after a resize round trip); tesseract's order follows the text's direction.
    """
    if all(w.box[3] - w.box[1] > w.box[2] - w.box[0] for w in words) and len(words) > 1:
        return list(words)
    return sorted(words, key=lambda w: w.box[0])


def _read_line(words: Sequence[Word]) -> ReadLine:
    texts = mark_bullet(words)
    # A bullet glyph is read with low confidence whatever it is taken for; that says nothing of the words.
    weighed = words[1:] if texts[0] != words[0].text else words
    return ReadLine(" ".join(texts), _union(w.box for w in words), min(w.confidence for w in weighed))


def split_at_gaps(words: Sequence[Word]) -> list[list[Word]]:
    """A line's words in runs, split where the gap is over GAP_SPLIT times the text height (side-by-side items)."""
    height = statistics.median(w.height for w in words)
    runs = [[words[0]]]
    for before, word in itertools.pairwise(words):
        if word.box[0] - before.box[2] > GAP_SPLIT * height:
            runs.append([])
        runs[-1].append(word)
    return runs


def mark_bullet(words: Sequence[Word]) -> list[str]:
    """The words' text, with a small glyph before the first word read as a bullet.

    OCR reads a bullet dot (``•``, ``◦``) as ``¢``, ``e``, ``°``, ``o`` or ``c``; what gives it away is
    its height against the median of the line's other words: 0.36-0.42 measured (DejaVu Sans and
    Serif, 14-40 px), while a leading letter or short word ("a", "e", "on") measured 0.51 and more.
    Dashes and asterisks are read reliably and keep their reading; a square bullet (``▪``) is as
    tall as a letter and is not recognised (OCR reads it as ``m``, ``w`` or ``=``).
    """
    texts = [w.text for w in words]
    if len(words) > 1 and len(texts[0]) <= 2 and texts[0] not in _RELIABLE_MARKS:
        if words[0].height < BULLET_HEIGHT * statistics.median(w.height for w in words[1:]):
            texts[0] = BULLET
    return texts


def first_look(page: Page, lang: str) -> list[ReadLine]:
    """The page read in psm 3; a line with a word tesseract is unsure of is read again alone, the surer reading kept.

    Side-by-side items on different baselines can garble each other ("Log In" read as
    "tagiin", confidence 0); read alone, they come out right. The choice is by confidence
    only, never by what the case requires.
    """
    lines = read_page(page.ink, lang)
    boxes = [line.box for line in lines]
    return [
        _surer(page, line, lang, boxes) if line.confidence < LOW_CONFIDENCE and _is_text(line.text) else line for line in lines
    ]


def second_look(page: Page, lines: Sequence[ReadLine], wanted: Sequence[str], lang: str, match: str) -> list[ReadLine]:
    """The lines after another look for the ``wanted`` ones: unread areas in sparse mode, near misses re-read alone.

    Sparse-mode lines are added only where the first look read nothing, and a re-read replaces a
    line only when it then holds a wanted line, so no text read the first time is lost.
    """
    every = [*lines, *_unread_pieces(page, lines, lang)]
    boxes = [line.box for line in every]
    return [_reread(page, line, wanted, lang, match, boxes) for line in every]


def repeat_look(page: Page, lines: Sequence[ReadLine], found: Sequence[str], lang: str, match: str) -> list[ReadLine]:
    """The lines, with copies of the ``found`` lines that the reading so far missed read again.

    The ink image decides each area's polarity from its typical grey, so a small label whose own
    colour differs from the area around it (white text on a green tag set on a light page, dark text
    on a white patch set in a navy band) comes out as a dark block with its letters as holes, which
    OCR reads as nothing or as noise. Each such block is read alone, split into its own two tones
    (see :func:`_label_ink`); a reading that holds a line already found replaces what was read in
    the block, which held none. A tag of another size can instead keep its lettering but garble it:
    a read line that nearly matches a found line is read again alone (as :func:`second_look` does
    for missing lines, and split into its two tones last). So this look can find a repeat, never a
    missing line or extra text.
    """

    def holds_found(line: ReadLine) -> bool:
        return bool(line.text) and any(count_lines(found, [line.text], match)[0])

    # A line that nearly reads as a found one (white lettering on a small tag read "(Checkoul]") is read again.
    boxes = [line.box for line in lines]
    read = [line if holds_found(line) else _reread(page, line, found, lang, match, boxes, label=True) for line in lines]
    for box in dark_blocks(page.ink):
        inside = [line for line in read if _overlap(box, line.box)]
        if any(holds_found(line) for line in inside):
            continue  # what the block shows is already counted
        label = _read_alone(_label_ink(page.gray, box), box, lang)
        if holds_found(label):  # it replaces what was misread there, which held no required line
            read = [line for line in read if line not in inside] + [label]
    return read


def count_look(page: Page, lines: Sequence[ReadLine], short: Sequence[str], lang: str, match: str) -> list[ReadLine]:
    """The lines, with more copies of the ``short`` lines (read fewer times than ``times`` asks) where nothing was read.

    A copy on a filled button can drown in the page's layout (a frame around it read as a dash). The page
    is read in sparse mode; each piece found where no line was read is read again alone (its crops, then
    split into its own two tones) and kept only when it then holds a short line. Costs a page read, so it
    runs only when a line is read at least once and fewer times than asked.
    """
    boxes = [line.box for line in lines]
    more = []
    for piece in _unread_pieces(page, lines, lang):
        crops = [*_crops(page, piece.box, boxes), _label_ink(page.gray, piece.box)]
        for crop in crops:
            again = _read_alone(crop, piece.box, lang)
            if again.text and any(count_lines(short, [again.text], match)[0]):
                more.append(again)
                break
    return [*lines, *more]


def _unread_pieces(page: Page, lines: Sequence[ReadLine], lang: str) -> list[ReadLine]:
    """The page read in sparse mode, kept only where none of ``lines`` was read."""
    return [piece for piece in read_page(page.ink, lang, SPARSE_PSM) if not any(_overlap(piece.box, line.box) for line in lines)]


def dark_blocks(ink: Image.Image) -> list[Box]:
    """Boxes of the ink image's solid dark areas shaped like a label: wider than tall, mostly ink."""
    from scipy import ndimage

    labels, _ = ndimage.label(np.asarray(ink) < 128)
    blocks = []
    for index, area in enumerate(ndimage.find_objects(labels), start=1):
        if area is None:
            continue
        rows, columns = area
        height, width = rows.stop - rows.start, columns.stop - columns.start
        if height < BLOCK_MIN_HEIGHT or width < BLOCK_MIN_ASPECT * height:
            continue
        shape = labels[area] == index
        # Letters left as holes can break the block into a frame around them: its outline must enclose
        # the box nearly whole, and hold some ink itself (an empty frame - an input field - does not).
        if shape.mean() >= BLOCK_MIN_INK and ndimage.binary_fill_holes(shape).mean() >= BLOCK_MIN_FILL:
            blocks.append((columns.start, rows.start, columns.stop, rows.stop))
    return blocks


def _label_ink(gray: Image.Image, box: Box) -> Image.Image:
    """A label's area as black ink on white: split at the middle of its own tones, the smaller share is the lettering."""
    pixels = np.asarray(gray.crop(box), dtype=np.float32)
    light = pixels > (np.percentile(pixels, 10) + np.percentile(pixels, 90)) / 2
    lettering = light if light.mean() < 0.5 else ~light
    pad = max(4, (box[3] - box[1]) // 2)
    return ImageOps.expand(Image.fromarray(np.where(lettering, 0, 255).astype(np.uint8)), border=pad, fill=255)


def _surer(page: Page, line: ReadLine, lang: str, others: Sequence[Box]) -> ReadLine:
    readings = [line, *(_read_alone(crop, line.box, lang) for crop in _crops(page, line.box, others))]
    return max(readings, key=lambda reading: reading.confidence)


def _reread(
    page: Page, line: ReadLine, wanted: Sequence[str], lang: str, match: str, others: Sequence[Box] = (), label: bool = False
) -> ReadLine:
    """``line`` read again alone if it is close to a wanted line; the first reading that holds one replaces it.

    ``label``: also read it split into its own two tones (:func:`_label_ink`), last.
    """
    near = [w for w in wanted if _similarity(line.text, w) >= NEAR_MISS]
    if not near:
        return line
    crops = _crops(page, line.box, others) + ([_label_ink(page.gray, line.box)] if label else [])
    for crop in crops:
        again = _read_alone(crop, line.box, lang)
        if any(count_lines(near, [again.text], match)[0]):
            return again
    return line


def _crops(page: Page, box: Box, others: Sequence[Box] = ()) -> list[Image.Image]:
    """A line's area, padded by half its height: from the ink image, from greyscale, and greyscale at 1.5x.

    On the shipped mockups' JPEG copies, "Sign in" read as "Signin" on the ink image came out
    right from greyscale, or from greyscale enlarged where plain greyscale failed too. The padding
    stops at the other read lines (``others``): an input field read as noise, padded up into its
    label, would read as the label a second time.
    """
    area = _padded(box, max(4, (box[3] - box[1]) // 2), page.ink.size, others)
    gray = page.gray.crop(area)
    larger = gray.resize((gray.width * 3 // 2, gray.height * 3 // 2), Image.Resampling.LANCZOS)
    return [page.ink.crop(area), gray, larger]


def _padded(box: Box, pad: int, size: tuple[int, int], others: Sequence[Box]) -> Box:
    """``box`` widened by ``pad`` on each side, within the image and short of every other box it does not overlap."""
    left, top, right, bottom = box
    outer = [max(0, left - pad), max(0, top - pad), min(size[0], right + pad), min(size[1], bottom + pad)]
    for other in others:
        if other == box or _overlap(other, box):
            continue
        o_left, o_top, o_right, o_bottom = other
        across = o_left < right and left < o_right  # above or below the line
        beside = o_top < bottom and top < o_bottom  # left or right of it
        if across and o_bottom <= top:
            outer[1] = max(outer[1], o_bottom)
        if across and o_top >= bottom:
            outer[3] = min(outer[3], o_top)
        if beside and o_right <= left:
            outer[0] = max(outer[0], o_right)
        if beside and o_left >= right:
            outer[2] = min(outer[2], o_left)
    return outer[0], outer[1], outer[2], outer[3]


def _read_alone(crop: Image.Image, box: Box, lang: str) -> ReadLine:
    """A crop read as a single line (psm 7), placed at ``box``; no words read is confidence 0."""
    lines = read_page(crop, lang, LINE_PSM)
    confidence = min((line.confidence for line in lines), default=0.0)
    return ReadLine(" ".join(line.text for line in lines), box, confidence)


def _similarity(read: str, wanted: str) -> float:
    return difflib.SequenceMatcher(None, normalize(read), normalize(wanted)).ratio()


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _union(boxes: Any) -> Box:
    lefts, tops, rights, bottoms = zip(*boxes, strict=True)
    return min(lefts), min(tops), max(rights), max(bottoms)


def _tesseract(call: Callable[..., Any], image: Image.Image, lang: str, psm: int, **kwargs: Any) -> Any:
    try:
        with waiting("OCR"):
            return call(image, lang=lang, config=f"--psm {psm}", timeout=OCR_TIMEOUT_S, **kwargs)
    except pytesseract.TesseractNotFoundError as exc:
        raise GraderError(NOT_INSTALLED) from exc
    except pytesseract.TesseractError as exc:
        hint = f" (is the language data for {lang!r} installed? Debian: tesseract-ocr-<lang>)" if "language" in str(exc) else ""
        raise GraderError(f"tesseract failed: {exc.message.strip() or exc.status}{hint}") from exc
    except RuntimeError as exc:  # pytesseract's timeout
        raise GraderError(f"tesseract did not finish within {OCR_TIMEOUT_S} s: {exc}") from exc


# -- layout: reading order and extent ----------------------------------------
def reading_rows(boxes: Sequence[Box]) -> list[tuple[int, int]]:
    """Each box's (row, position within the row) in reading order: rows top to bottom, left to right in a row.

    Boxes are taken by their tops; one joins the row above when its vertical extent overlaps a box of
    that row by at least ROW_OVERLAP of the shorter height (two buttons side by side, a label and its value).
    """
    rows: list[list[int]] = []
    for i in sorted(range(len(boxes)), key=lambda i: (boxes[i][1], boxes[i][0])):
        if rows and any(_same_row(boxes[i], boxes[j]) for j in rows[-1]):
            rows[-1].append(i)
        else:
            rows.append([i])
    placed = [(0, 0)] * len(boxes)
    for row, members in enumerate(rows):
        for position, i in enumerate(sorted(members, key=lambda i: boxes[i][0])):
            placed[i] = (row, position)
    return placed


def _same_row(a: Box, b: Box) -> bool:
    overlap = min(a[3], b[3]) - max(a[1], b[1])
    return overlap >= ROW_OVERLAP * min(a[3] - a[1], b[3] - b[1])


def occurrences(required: Sequence[str], lines: Sequence[str], match: str) -> list[list[tuple[int, int]]]:
    """For each required line, the (read line index, start word) of each place it stands on its own, by ``match``."""
    found: list[list[tuple[int, int]]] = [[] for _ in required]
    if match == "exact_lines":
        wanted = [_spaced(line) for line in required]
        for i, line in enumerate(lines):
            for index, want in enumerate(wanted):
                if _spaced(line) == want:
                    found[index].append((i, 0))
        return found
    exact = match == "exact"
    needles = [_needle(line, exact) for line in required]
    for i, line in enumerate(lines):
        keys = _read_words(line, exact)[1]
        for index, needle in enumerate(needles):
            found[index] += [(i, start) for start, _ in standalone(needle, keys, exact)]
    return found


def order_gate(required: Sequence[str], places: Sequence[Sequence[Place]]) -> Gate:
    """``in_order``: the found required lines can be read in the listed order (each from one of its places)."""
    found = [(index, spots) for index, spots in enumerate(places) if spots]
    if len(found) < 2:
        return Gate("in_order", True, f"{len(found)} of {len(required)} required lines found: no order to check")
    last: Place | None = None
    for _, spots in found:
        later = [spot for spot in spots if last is None or spot.key() > last.key()]
        if not later:
            break
        last = later[0]
    else:
        return Gate("in_order", True, f"the {len(found)} required lines found are read in the listed order")
    first = {index: spots[0] for index, spots in found}
    read_order = sorted(first, key=lambda index: first[index].key())
    # The pair read the wrong way round that is furthest apart in the list says most about what moved.
    inversions = [(a, b) for a in first for b in first if a < b and first[b].key() < first[a].key()]
    a, b = max(inversions, key=lambda pair: (pair[1] - pair[0], -pair[0]))
    reason = (
        f"{_quote(required[b])} is read before {_quote(required[a])} "
        f"(line {b + 1} of the list {_relation(first[b], first[a])} line {a + 1}); "
        f"the listed lines are read in the order {', '.join(str(index + 1) for index in read_order)}"
    )
    return Gate("in_order", False, reason)


def _relation(before: Place, after: Place) -> str:
    if before.image != after.image:
        return f"in an earlier image ({before.name}) than"
    return "left of" if before.row[0] == after.row[0] else "above"


def text_box(spots: Sequence[Place]) -> tuple[float, float, float, float]:
    """The box around some places of one image, as shares of its width and height (left, top, right, bottom)."""
    left, top, right, bottom = _union(spot.box for spot in spots)
    width, height = spots[0].size
    return left / width, top / height, right / width, bottom / height


def _span(box: tuple[float, float, float, float]) -> tuple[float, float]:
    return box[2] - box[0], box[3] - box[1]


def _main_image(places: Sequence[Sequence[Place]], lines: Sequence[int]) -> list[Place]:
    """The first place of each of ``lines`` on the image holding most of them."""
    firsts = [places[i][0] for i in lines if places[i]]
    counts: dict[int, int] = {}
    for spot in firsts:
        counts[spot.image] = counts.get(spot.image, 0) + 1
    image = max(counts, key=lambda i: (counts[i], -i))
    return [spot for spot in firsts if spot.image == image]


def absolute_extent_gate(places: Sequence[Sequence[Place]], floor: float) -> Gate:
    """``text_extent`` without a reference: two or more lines found span ``floor`` of the canvas in the longer direction."""
    spots = _main_image(places, range(len(places)))
    if len(spots) < 2:
        return Gate("text_extent", True, "one required line found on an image: its extent is not checked without a reference")
    width, height = _span(text_box(spots))
    reason = f"the required lines span {width:.0%} x {height:.0%} of the canvas"
    if max(width, height) < floor:
        return Gate("text_extent", False, f"{reason}; need {floor:.0%} in the longer direction: the text is shrunk or crowded")
    return Gate("text_extent", True, reason)


def reference_extent_gate(
    required: Sequence[str], places: Sequence[Sequence[Place]], ref_places: Sequence[Sequence[Place]], ratio: float
) -> Gate:
    """``text_extent`` against the reference: the lines found in both span ``ratio`` of the reference's box each way."""
    common = [i for i in range(len(required)) if places[i] and ref_places[i]]
    if not common:
        return Gate("text_extent", True, "no required line is read in both the output and the reference: nothing to compare")
    spots = _main_image(places, common)
    ref_spots = [ref_places[i][0] for i in common if places[i] and places[i][0].image == spots[0].image]
    width, height = _span(text_box(spots))
    ref_width, ref_height = _span(text_box(ref_spots))
    noun = "line spans" if len(spots) == 1 else f"{len(spots)} required lines span"
    reason = f"the {noun} {width:.0%} x {height:.0%} of the canvas, in the reference {ref_width:.0%} x {ref_height:.0%}"
    if width < ratio * ref_width or height < ratio * ref_height:
        return Gate("text_extent", False, f"{reason}; need {ratio:.0%} of the reference's width and height: the text is shrunk")
    return Gate("text_extent", True, reason)


@functools.lru_cache(maxsize=64)
def _reference_reading(
    path: str, mtime_ns: int, required: tuple[str, ...], match: str, lang: str
) -> tuple[tuple[Place, ...], ...]:
    grader = TextGrader({"required": list(required), "match": match, "lang": lang})
    gray = grayscale(decode(Path(path).read_bytes()))
    page = Page(gray, ink_on_white(gray))
    lines = first_look(page, lang)
    unread = [line for line, tally in zip(required, grader.tally({path: lines}).tallies, strict=True) if tally.count == 0]
    if unread:
        lines = second_look(page, lines, unread, lang, match)
    return tuple(tuple(spots) for spots in grader.places({path: lines}, {path: gray.size}))


def reference_places(reference: Path, required: tuple[str, ...], match: str, lang: str) -> tuple[tuple[Place, ...], ...]:
    """Where the required lines stand in the reference image, read once per file version (it is the same for every output)."""
    try:
        return _reference_reading(str(reference), reference.stat().st_mtime_ns, required, match, lang)
    except (OSError, ValueError) as exc:
        raise GraderError(f"cannot read the reference image {reference}: {exc}") from exc


def script_lang(required: Sequence[str]) -> str:
    """The tesseract language(s) for the required text's script: ``chi_sim`` for Chinese characters, else ``eng``."""
    text = " ".join(required)
    if not _HAN.search(text):
        return "eng"
    return "chi_sim+eng" if re.search("[A-Za-z]", text) else "chi_sim"


# -- normalized keys --------------------------------------------------------
def tokens(line: str) -> list[Token]:
    """The words of ``line`` with their matching keys; leading bullets and key-less words are dropped.

    A key is the word case-folded, with dash and quote variants unified and
    trailing ``. , : ;`` removed (OCR drops and invents these freely).
    """
    words = _words(line)
    while words and (words[0] in _BULLET_WORDS or not words[0].strip(_BULLETS)):
        words.pop(0)
    if words:
        words[0] = words[0].lstrip(_BULLETS)
    keyed = [(word, _key(word)) for word in words]
    return [(word, key) for word, key in keyed if key]


def normalize(line: str) -> str:
    """The form normalized matching compares: ``"• Total:  $5"`` -> ``"total $5"``."""
    return " ".join(key for _, key in tokens(line))


def _words(line: str) -> list[str]:
    # Unify before NFKC, which would split an acute accent (\u00b4) into a space and a combining
    # mark, and again after it, for compatibility forms it turns into dashes (\ufe31 -> \u2014).
    return _compact_cjk(unicodedata.normalize("NFKC", line.translate(_UNIFY)).translate(_UNIFY)).split()


def _compact_cjk(line: str) -> str:
    """``line`` without the spaces next to a CJK character (OCR sets each character apart)."""
    return _CJK_SPACE.sub("", line)


def _exact_form(line: str) -> str:
    """What exact matching compares: ``line`` with spaces next to CJK characters dropped and full-width forms as ASCII."""
    return _compact_cjk(line).translate(_FULL_WIDTH)


def _key(word: str) -> str:
    return word.casefold().rstrip(_OPTIONAL_TRAILING)


def _match_key(key: str) -> str:
    """What normalized matching compares: the key with the digit 1 taken as the letter l."""
    return key.translate(_SAME_STROKE)


# -- matching ---------------------------------------------------------------
def count_lines(required: Sequence[str], lines: Sequence[str], match: str) -> tuple[list[int], list[str]]:
    """Each required line's count in the read ``lines`` and the text left over, by the ``match`` mode."""
    if match == "exact_lines":
        return whole_lines(required, lines)
    return match_lines(required, lines, match == "exact")


def whole_lines(required: Sequence[str], lines: Sequence[str]) -> tuple[list[int], list[str]]:
    """How many read lines equal each required line as a whole, and the read lines that equal none.

    The comparison is character for character, with runs of spaces taken as one space. Read
    lines with fewer than two letters or digits are OCR noise and are not left over.
    """
    wanted = [_spaced(line) for line in required]
    read = [_spaced(line) for line in lines]
    counts = [sum(1 for text in read if text == want) for want in wanted]
    leftovers = [text for text in read if text and text not in wanted]
    return counts, [text for text in leftovers if _is_text(text)]


def _spaced(line: str) -> str:
    return " ".join(_exact_form(line).split())


def match_lines(required: Sequence[str], lines: Sequence[str], exact: bool = False) -> tuple[list[int], list[str]]:
    """How many times each required line stands on its own in the read ``lines``, and the text left over.

    Leftovers are the runs of read words no occurrence covers, as read; fragments with fewer
    than two letters or digits are dropped as OCR noise.
    """
    needles = [_needle(line, exact) for line in required]
    counts = [0] * len(required)
    leftovers: list[str] = []
    for line in lines:
        words, keys = _read_words(line, exact)
        covered = [False] * len(words)
        for index, needle in enumerate(needles):
            for start, end in standalone(needle, keys, exact):
                counts[index] += 1
                covered[start:end] = [True] * (end - start)
        leftovers += _uncovered_runs(words, covered)
    return counts, [text for text in leftovers if _is_text(text)]


def standalone(needle: Sequence[str], keys: Sequence[str], exact: bool) -> list[tuple[int, int]]:
    """The non-overlapping runs ``(start, end)`` of ``keys`` equal to ``needle`` that stand on their own."""
    found: list[tuple[int, int]] = []
    start = 0
    while needle and start < len(keys):
        end = _run_end(needle, keys, start, exact)
        if end is not None and _bounded(keys, start, end):
            found.append((start, end))
            start = end
        else:
            start += 1
    return found


def _run_end(needle: Sequence[str], keys: Sequence[str], start: int, exact: bool) -> int | None:
    """Where the run of ``keys`` from ``start`` equal to ``needle`` ends, if there is one.

    Normalized runs compare with the spaces taken out: OCR often drops or adds a space in tight
    type ("Signin", "Visit us" read as "Visitus"), while the words have to be the same.
    """
    if exact:
        end = start + len(needle)
        return end if end <= len(keys) and _exact_equal(needle, keys[start:end]) else None
    want = "".join(needle)
    joined = ""
    for end in range(start, len(keys)):
        joined += keys[end]
        if not want.startswith(joined):
            return None
        if joined == want:
            return end + 1
    return None


def _needle(line: str, exact: bool) -> list[str]:
    return _exact_form(line).split() if exact else [_match_key(key) for _, key in tokens(line)]


def _read_words(line: str, exact: bool) -> tuple[list[str], list[str]]:
    """A read line's words and what matching compares: the words themselves (exact) or their keys."""
    if exact:
        words = _exact_form(line).split()
        return words, words
    # Punctuation standing alone (":" or ",") has no key and is skipped; separators are kept as marks.
    kept = [(word, _key(word)) for word in _words(line) if _key(word) or _is_separator(word)]
    return [word for word, _ in kept], [_match_key(key) or word for word, key in kept]


def _exact_equal(needle: Sequence[str], read: Sequence[str]) -> bool:
    last = len(needle) - 1
    for i, (want, got) in enumerate(zip(needle, read, strict=True)):
        trimmed = got.lstrip(_OPENING) if i == 0 else got
        trimmed = trimmed.rstrip(_CLOSING) if i == last else trimmed
        if got != want and trimmed != want:
            return False
    return True


def _bounded(keys: Sequence[str], start: int, end: int) -> bool:
    """Whether keys[start:end] stands on its own: only marks, or a separator, on either side."""
    left = all(map(_is_mark, keys[:start])) or _is_separator(keys[start - 1])
    right = all(map(_is_mark, keys[end:])) or _is_separator(keys[end])
    return left and right


def _is_mark(word: str) -> bool:
    return not any(ch.isalnum() for ch in word)


def _is_separator(word: str) -> bool:
    return all(ch in _SEPARATORS for ch in word)


def _explain(required: str, lines: Sequence[str], exact: bool) -> Tally:
    """Why a required line never stands alone: read with other case or punctuation, or inside a longer line."""
    needle = _needle(required, exact=False)
    if exact:
        read_as = next((line for line in lines if standalone(needle, _read_words(line, False)[1], False)), None)
        if read_as is not None:
            return Tally(0, read_as=read_as)
    inside = next((line for line in lines if _contains(_read_words(line, False)[1], needle)), None)
    return Tally(0, inside=inside)


def _contains(keys: Sequence[str], needle: Sequence[str]) -> bool:
    return bool(needle) and any(_run_end(needle, keys, start, exact=False) is not None for start in range(len(keys)))


def _uncovered_runs(words: Sequence[str], covered: Sequence[bool]) -> list[str]:
    """The runs of words no occurrence covers, as read, less a separator next to an occurrence ("| Cancel")."""
    runs: list[list[str]] = [[]]
    for word, hit in zip(words, covered, strict=True):
        if hit:
            runs.append([])
        else:
            runs[-1].append(word)
    trimmed = []
    for index, run in enumerate(runs):
        if index > 0:  # an occurrence comes before this run
            run = run[1:] if run and _is_separator(run[0]) else run
        if index < len(runs) - 1:  # and one after it
            run = run[:-1] if run and _is_separator(run[-1]) else run
        trimmed.append(run)
    return [" ".join(run) for run in trimmed if run]


# -- reasons ----------------------------------------------------------------
def _is_text(fragment: str) -> bool:
    """Two letters or digits at least: a lone mark is OCR noise from a bullet, icon or border."""
    return sum(ch.isalnum() for ch in fragment) >= 2


def _summary(found: int, total: int, need: int) -> str:
    noun = "required line" if total == 1 else "required lines"
    if found == total:
        return f"all {total} {noun} found" if total > 1 else f"the {noun} was found"
    enough = f", need {need}" if found < need else f" (min_found allows {total - need} missing)"
    return f"{found} of {total} {noun} found{enough}"


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _quote_list(items: Sequence[str]) -> str:
    return _shorten([_quote(item) for item in items])


def _shorten(items: Sequence[str]) -> str:
    shown = ", ".join(items[:LIST_PREVIEW])
    return shown + (f" (+{len(items) - LIST_PREVIEW} more)" if len(items) > LIST_PREVIEW else "")


def _preview(read: Mapping[str, list[str]]) -> str:
    """What OCR read, per image, lines joined by " | ", cut to about READ_PREVIEW_CHARS."""
    if len(read) == 1:
        text = " | ".join(next(iter(read.values()))) or "(nothing)"
    else:
        text = "; ".join(f"{name}: {' | '.join(lines) or '(nothing)'}" for name, lines in read.items())
    return _quote(text if len(text) <= READ_PREVIEW_CHARS else text[: READ_PREVIEW_CHARS - 1] + "\u2026")
