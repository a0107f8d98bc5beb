"""``use: text`` - the text the output images show, read with OCR (tesseract).

Gate ``text_present``: enough of the ``required`` lines are found (at least
``min_found`` of them; all by default) and, with ``forbid_extra``, no other
text was read. Metric ``found``: the fraction of required lines found, in
[0, 1]. Both reasons name the missing and the extra lines; the metric's
reason also quotes what OCR read (truncated), so a miss can be checked by eye.

Options:

* ``required``     - the lines of text the image must show (at least one).
* ``match``        - ``normalized`` (default; see :func:`normalize`) or ``exact``.
* ``forbid_extra`` - also fail when the image shows text no required line accounts for.
* ``min_found``    - the fraction of required lines needed to pass (default 1.0).
* ``lang``         - tesseract language(s), e.g. ``eng`` (default) or ``eng+deu``.

A required line is found when it equals a line OCR read or a run of words
inside one (OCR often joins neighbouring text into one line). In ``exact``
mode it must appear inside a read line character for character. With several
output images, a line found in any of them counts. Leftover fragments with
fewer than two letters or digits are OCR noise (bullets, icons, borders) and
never count as extra text.

Needs the ``tesseract`` program (Debian package ``tesseract-ocr``); without
it grading raises :class:`GraderError`, so the case is an error, not a pass.
"""

from __future__ import annotations

import math
import shutil
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import pytesseract
from PIL import Image

from ..artifacts import Artifact
from ..cases.spec import CaseSpec
from ..errors import GraderError
from .base import Gate, Grade, GradeContext, Metric
from .imaging import decode, rgb_array

# Fully automatic page segmentation. Measured on 108 synthetic UI mockups,
# flyers and app screens (1008 lines, 3 fonts, text 7-144 px): psm 3 found 93% of the
# lines, psm 6 90%, psm 11 84%. Sparse-text mode 11 drops text inside filled
# or outlined boxes, i.e. exactly the buttons of a UI; mode 6 assumes a single
# block and garbles side-by-side columns.
PSM = 3
# Doubling images whose longer side is below this cut missed lines from 15%
# to 7% over the same set (small text gained most) and never lost accuracy;
# above it there was no gain, only time. 3x read worse than 2x.
UPSCALE_BELOW = 1600
OCR_TIMEOUT_S = 120
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
_BULLETS = "\u2022\u25e6\u2023\u2219\u00b7\u25cf\u25cb\u25aa\u25ab\u25a0\u25a1\u25ba\u25b8"
# "-" and "*" count as bullets only as a word of their own: "-20%" and "*Terms" keep theirs.
_BULLET_WORDS = frozenset("-*")
_OPTIONAL_TRAILING = ".,:;"

NOT_INSTALLED = (
    "the text grader needs the tesseract OCR program, which was not found "
    "(Debian/Ubuntu: apt-get install tesseract-ocr; elsewhere see https://tesseract-ocr.github.io)"
)

Token = tuple[str, str]  # (the word as read, its matching key)


class TextGrader:
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["required"],
        "properties": {
            "required": {"type": "array", "items": {"type": "string", "pattern": "\\S"}, "minItems": 1},
            "match": {"enum": ["normalized", "exact"], "default": "normalized"},
            "forbid_extra": {"type": "boolean", "default": False},
            "min_found": {"type": "number", "minimum": 0, "maximum": 1, "default": 1.0},
            "lang": {"type": "string", "pattern": "^[A-Za-z0-9_]+(\\+[A-Za-z0-9_]+)*$", "default": "eng"},
        },
    }

    def __init__(self, options: Mapping[str, Any]):
        self.required: list[str] = list(options["required"])
        self.exact = options.get("match", "normalized") == "exact"
        self.forbid_extra = bool(options.get("forbid_extra", False))
        self.min_found = float(options.get("min_found", 1.0))
        self.lang = str(options.get("lang", "eng"))

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
        read: dict[str, list[str]] = {}
        broken: list[str] = []
        for artifact in images:
            try:
                image = decode(artifact.data)
            except ValueError as exc:
                broken.append(f"{artifact.name}: {exc}")
                continue
            read[artifact.name] = ocr_lines(image, self.lang)
        return self._grade(read, broken, len(images))

    def _match(self, read: Mapping[str, list[str]]) -> tuple[set[int], list[str]]:
        """Indices of the required lines found in any image, and the text no required line covers."""
        match = match_exact if self.exact else match_normalized
        found: set[int] = set()
        extras: list[str] = []
        for lines in read.values():
            hits, leftovers = match(self.required, lines)
            found |= hits
            extras += [text for text in leftovers if text not in extras]
        return found, extras

    def _grade(self, read: Mapping[str, list[str]], broken: list[str], n_images: int) -> Grade:
        found, extras = self._match(read)
        total = len(self.required)
        need = math.ceil(self.min_found * total - 1e-9)
        missing = [line for i, line in enumerate(self.required) if i not in found]
        passed = len(found) >= need and not broken and not (self.forbid_extra and extras)
        parts = [f"{len(broken)} of {n_images} image(s) do not decode: " + "; ".join(broken)] if broken else []
        if read and not any(read.values()):
            parts.append("OCR read no text")
        parts.append(_summary(len(found), total, need))
        if missing:
            parts.append("missing: " + _quote_list(missing))
        if extras and self.forbid_extra:
            parts.append("extra: " + _quote_list(extras))
        elif extras and missing:  # not an error here, but often the misread form of a missing line
            parts.append("other text read: " + _quote_list(extras))
        reason = "; ".join(parts)
        metric_reason = f"{reason}; read: {_preview(read)}" if read else reason
        return Grade(
            gates=(Gate("text_present", passed, reason),),
            metrics=(Metric("found", len(found) / total, metric_reason),),
        )


def require_tesseract() -> None:
    if shutil.which(pytesseract.pytesseract.tesseract_cmd) is None:
        raise GraderError(NOT_INSTALLED)


def ocr_lines(image: Image.Image, lang: str = "eng") -> list[str]:
    """The non-empty lines tesseract reads in ``image``, stripped."""
    try:
        text = pytesseract.image_to_string(prepare(image), lang=lang, config=f"--psm {PSM}", timeout=OCR_TIMEOUT_S)
    except pytesseract.TesseractNotFoundError as exc:
        raise GraderError(NOT_INSTALLED) from exc
    except pytesseract.TesseractError as exc:
        hint = f" (is the language data for {lang!r} installed? Debian: tesseract-ocr-<lang>)" if "language" in str(exc) else ""
        raise GraderError(f"tesseract failed: {exc.message.strip() or exc.status}{hint}") from exc
    except RuntimeError as exc:  # pytesseract's timeout
        raise GraderError(f"tesseract did not finish within {OCR_TIMEOUT_S} s: {exc}") from exc
    return [line.strip() for line in text.splitlines() if line.strip()]


def prepare(image: Image.Image) -> Image.Image:
    """Greyscale with transparency flattened onto white, doubled in size when small."""
    gray = Image.fromarray(rgb_array(image).astype(np.uint8)).convert("L")
    if max(gray.size) < UPSCALE_BELOW:
        gray = gray.resize((gray.width * 2, gray.height * 2), Image.Resampling.LANCZOS)
    return gray


# -- normalized matching ----------------------------------------------------
def tokens(line: str) -> list[Token]:
    """The words of ``line`` with their matching keys; leading bullets and key-less words are dropped.

    A key is the word case-folded, with dash and quote variants unified and
    trailing ``. , : ;`` removed (OCR drops and invents these freely).
    """
    # Unify before NFKC, which would split an acute accent (\u00b4) into a space and a combining
    # mark, and again after it, for compatibility forms it turns into dashes (\ufe31 -> \u2014).
    words = unicodedata.normalize("NFKC", line.translate(_UNIFY)).translate(_UNIFY).split()
    while words and (words[0] in _BULLET_WORDS or not words[0].strip(_BULLETS)):
        words.pop(0)
    if words:
        words[0] = words[0].lstrip(_BULLETS)
    keyed = [(word, word.casefold().rstrip(_OPTIONAL_TRAILING)) for word in words]
    return [(word, key) for word, key in keyed if key]


def normalize(line: str) -> str:
    """The form normalized matching compares: ``"• Total:  $5"`` -> ``"total $5"``."""
    return " ".join(key for _, key in tokens(line))


def match_normalized(required: Sequence[str], lines: Sequence[str]) -> tuple[set[int], list[str]]:
    """Required lines (by index) whose words appear in order inside a read line, and the unmatched rest."""
    wanted = [[key for _, key in tokens(line)] for line in required]
    found: set[int] = set()
    leftovers: list[str] = []
    for line in lines:
        words = tokens(line)
        keys = [key for _, key in words]
        covered = [False] * len(words)
        for index, needle in enumerate(wanted):
            for start in _occurrences(needle, keys):
                found.add(index)
                covered[start : start + len(needle)] = [True] * len(needle)
        leftovers += _uncovered_runs(words, covered)
    return found, [text for text in leftovers if _is_text(text)]


def _occurrences(needle: Sequence[str], keys: Sequence[str]) -> list[int]:
    n = len(needle)
    return [i for i in range(len(keys) - n + 1) if n and list(keys[i : i + n]) == list(needle)]


def _uncovered_runs(words: Sequence[Token], covered: Sequence[bool]) -> list[str]:
    runs: list[list[str]] = [[]]
    for (word, _), hit in zip(words, covered, strict=True):
        if hit:
            runs.append([])
        else:
            runs[-1].append(word)
    return [" ".join(run) for run in runs if run]


# -- exact matching ---------------------------------------------------------
def match_exact(required: Sequence[str], lines: Sequence[str]) -> tuple[set[int], list[str]]:
    """Required lines (by index) that occur verbatim inside a read line, and the unmatched rest."""
    found = {i for i, needle in enumerate(required) if any(needle in line for line in lines)}
    by_length = sorted((required[i] for i in found), key=len, reverse=True)
    leftovers: list[str] = []
    for line in lines:
        for needle in by_length:
            line = line.replace(needle, "\n")
        leftovers += [piece.strip() for piece in line.split("\n")]
    return found, [text for text in leftovers if _is_text(text)]


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
    shown = ", ".join(_quote(item) for item in items[:LIST_PREVIEW])
    return shown + (f" (+{len(items) - LIST_PREVIEW} more)" if len(items) > LIST_PREVIEW else "")


def _preview(read: Mapping[str, list[str]]) -> str:
    """What OCR read, per image, lines joined by " | ", cut to about READ_PREVIEW_CHARS."""
    if len(read) == 1:
        text = " | ".join(next(iter(read.values()))) or "(nothing)"
    else:
        text = "; ".join(f"{name}: {' | '.join(lines) or '(nothing)'}" for name, lines in read.items())
    return _quote(text if len(text) <= READ_PREVIEW_CHARS else text[: READ_PREVIEW_CHARS - 1] + "\u2026")
