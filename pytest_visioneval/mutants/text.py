"""Text mutants of an image: a typo, a missing line, a line twice, two lines swapped, two labels swapped.

The text a case asks for is what its prompt and criteria quote ("Place
Order") and the lines its ``text`` graders require. Tesseract finds where
that text stands in the known-good output; the mutants paint over it (with
the colour around it), copy it or swap it with another, so the rest of the
image stays exact.
"""

from __future__ import annotations

import random
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from PIL import Image

from ..cases.spec import CaseSpec
from . import seen_by
from .base import Family, MutantClass, NotApplicable, Subject, Variant

FAMILY = "text"

_QUOTED = re.compile(r"[\"\u201c]([^\"\u201c\u201d]{2,80})[\"\u201d]")
_WORD = re.compile(r"[A-Za-z]{4,}")
UPSCALE_BELOW = 1600  # as the text grader reads small images: doubled


@dataclass(frozen=True)
class Word:
    text: str
    box: tuple[int, int, int, int]  # left, top, right, bottom in image pixels
    line: tuple[int, int, int]  # tesseract's block, paragraph and line numbers


Line = tuple[str, list[Word]]  # an asked-for line and the words it was read as


def required_text(case: CaseSpec) -> list[str]:
    """The text the case asks for: quoted in its prompt or criteria, or required by a text grader."""
    found = _QUOTED.findall(f"{case.prompt or ''}\n{case.criteria or ''}")
    for grader in case.graders:
        if grader.use == "text":
            found += [str(line) for line in grader.options.get("required", ())]
    found += [str(line) for line in case.fields.get("required_text", ())]
    return list(dict.fromkeys(line.strip() for line in found if line.strip()))


def text_family(subject: Subject) -> Family:
    wanted = required_text(subject.case)
    if not wanted:
        return [], [NotApplicable(FAMILY, "the case asks for no particular text (nothing quoted, no text grader)")]
    if shutil.which("tesseract") is None:
        return [], [NotApplicable(FAMILY, "tesseract is not installed, so the text cannot be located")]
    image = subject.rgb
    if image is None:
        return [], [NotApplicable(FAMILY, "the known-good output holds no image")]
    lines = located_lines(wanted, read_words(image))
    if not lines:
        return [], [NotApplicable(FAMILY, f"none of the asked-for text ({', '.join(wanted[:3])}...) was read in the output")]
    made = [
        _class("typo", "the spelling", lambda rng: _typo(subject, image, lines, rng)),
        _class("missing_line", "every line there", lambda rng: _missing(subject, image, lines, rng)),
        _class("duplicated_line", "each line once", lambda rng: _twice(subject, image, lines, rng)),
    ]
    skipped: list[NotApplicable] = []
    if len(lines) >= 2:
        made += [
            _class("swapped_lines", "the order of the lines", lambda rng: _swapped_bands(subject, image, lines, rng)),
            _class("swapped_labels", "which label stands where", lambda rng: _swapped_labels(subject, image, lines, rng)),
        ]
    else:
        why = "only one asked-for line was read in the output: nothing to swap it with"
        skipped += [NotApplicable(f"{FAMILY}/swapped_lines", why), NotApplicable(f"{FAMILY}/swapped_labels", why)]
    return made, skipped


def _class(name: str, breaks: str, make: Callable[[random.Random], Variant | None]) -> MutantClass:
    return MutantClass(FAMILY, name, True, breaks, seen_by.TEXT, make)


def _typo(subject: Subject, image: Image.Image, lines: list[Line], rng: random.Random) -> Variant:
    text, words = rng.choice(lines)
    word = rng.choice([w for w in words if len(w.text) >= 3] or words)
    letter = rng.randrange(len(word.text))
    changed = _erase_letter(image, word, letter)
    params = {"line": text, "word": word.text, "letter": letter}
    return Variant(params, f'letter {letter + 1} of "{word.text}" painted out (in "{text}")', subject.with_image(changed))


def _missing(subject: Subject, image: Image.Image, lines: list[Line], rng: random.Random) -> Variant:
    text, words = rng.choice(lines)
    return Variant({"line": text}, f'"{text}" painted out', subject.with_image(_erase(image, _union(words))))


def _twice(subject: Subject, image: Image.Image, lines: list[Line], rng: random.Random) -> Variant | None:
    text, words = rng.choice(lines)
    twice = _copied_below(image, _union(words))
    if twice is None:
        return None
    return Variant({"line": text}, f'"{text}" shown a second time', subject.with_image(twice))


def _two_lines(lines: list[Line], rng: random.Random, *, rows_apart: bool) -> tuple[Line, Line] | None:
    pairs = [(a, b) for i, a in enumerate(lines) for b in lines[i + 1 :]]
    if rows_apart:  # bands of whole rows: the two lines must not share one
        pairs = [(a, b) for a, b in pairs if _union(a[1])[3] <= _union(b[1])[1] or _union(b[1])[3] <= _union(a[1])[1]]
    return rng.choice(pairs) if pairs else None


def _swapped_bands(subject: Subject, image: Image.Image, lines: list[Line], rng: random.Random) -> Variant | None:
    """Two lines' full-width bands swapped: the same text, in the other order."""
    pair = _two_lines(lines, rng, rows_apart=True)
    if pair is None:
        return None
    (first, first_words), (second, second_words) = sorted(pair, key=lambda line: _union(line[1])[1])
    a, b = _union(first_words), _union(second_words)
    height = max(a[3] - a[1], b[3] - b[1]) + 4
    top_a = max(0, (a[1] + a[3] - height) // 2)
    top_b = min(image.height - height, max(top_a + height, (b[1] + b[3] - height) // 2))
    if top_b < top_a + height or top_b < 0:
        return None
    pixels = np.asarray(image).copy()
    band_a = pixels[top_a : top_a + height].copy()
    pixels[top_a : top_a + height] = pixels[top_b : top_b + height]
    pixels[top_b : top_b + height] = band_a
    params = {"first": first, "second": second}
    return Variant(params, f'the rows of "{first}" and "{second}" swapped', subject.with_image(Image.fromarray(pixels)))


def _swapped_labels(subject: Subject, image: Image.Image, lines: list[Line], rng: random.Random) -> Variant | None:
    """Two lines' boxes exchanged, each fitted into the other's place on its background."""
    pair = _two_lines(lines, rng, rows_apart=False)
    if pair is None:
        return None
    (first, first_words), (second, second_words) = pair
    a, b = _padded(_union(first_words), image.size), _padded(_union(second_words), image.size)
    if not (a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]):
        return None  # overlapping boxes
    patch_a, patch_b = image.crop(a), image.crop(b)
    out = _erase(_erase(image, a), b)
    _fit_into(out, patch_b, a)
    _fit_into(out, patch_a, b)
    params = {"first": first, "second": second, "first_box": list(a), "second_box": list(b)}
    return Variant(params, f'"{first}" and "{second}" swapped places', subject.with_image(out))


def _fit_into(image: Image.Image, patch: Image.Image, box: tuple[int, int, int, int]) -> None:
    """``patch`` scaled (keeping its aspect, so the text stays text) to fit ``box``, centred in it."""
    width, height = box[2] - box[0], box[3] - box[1]
    scale = min(width / patch.width, height / patch.height)
    size = (max(1, round(patch.width * scale)), max(1, round(patch.height * scale)))
    image.paste(patch.resize(size, Image.Resampling.LANCZOS), (box[0] + (width - size[0]) // 2, box[1] + (height - size[1]) // 2))


def read_words(image: Image.Image) -> list[Word]:
    import pytesseract

    scale = 2 if max(image.size) < UPSCALE_BELOW else 1
    gray = image.convert("L")
    if scale != 1:
        gray = gray.resize((gray.width * scale, gray.height * scale), Image.Resampling.LANCZOS)
    data = pytesseract.image_to_data(gray, config="--psm 3", output_type=pytesseract.Output.DICT, timeout=120)
    words = []
    for i, text in enumerate(data["text"]):
        if text.strip():
            left, top = data["left"][i] // scale, data["top"][i] // scale
            right, bottom = left + max(1, data["width"][i] // scale), top + max(1, data["height"][i] // scale)
            words.append(
                Word(text.strip(), (left, top, right, bottom), (data["block_num"][i], data["par_num"][i], data["line_num"][i]))
            )
    return words


def located_lines(wanted: list[str], words: list[Word]) -> list[Line]:
    """Each asked-for line whose words were read in a row on one line, with those words (first reading only)."""
    keys = [re.sub(r"[^a-z0-9]", "", w.text.lower()) for w in words]
    found: list[Line] = []
    for text in wanted:
        needle = [re.sub(r"[^a-z0-9]", "", part.lower()) for part in text.split()]
        needle = [part for part in needle if part]
        if not needle or not any(_WORD.search(part) for part in text.split()):
            continue
        for start in range(len(words) - len(needle) + 1):
            run = words[start : start + len(needle)]
            if keys[start : start + len(needle)] == needle and len({w.line for w in run}) == 1:
                found.append((text, run))
                break
    return found


def _background(pixels: np.ndarray, box: tuple[int, int, int, int]) -> tuple[int, int, int]:
    """The most common colour of a 2-pixel ring around ``box``: what the text stands on."""
    left, top, right, bottom = box
    height, width = pixels.shape[:2]
    outer = pixels[max(0, top - 2) : min(height, bottom + 2), max(0, left - 2) : min(width, right + 2)].reshape(-1, 3)
    values, counts = np.unique(outer, axis=0, return_counts=True)
    return tuple(int(v) for v in values[int(np.argmax(counts))])  # type: ignore[return-value]


def _erase(image: Image.Image, box: tuple[int, int, int, int]) -> Image.Image:
    pixels = np.asarray(image).copy()
    left, top, right, bottom = _padded(box, image.size)
    pixels[top:bottom, left:right] = _background(pixels, (left, top, right, bottom))
    return Image.fromarray(pixels)


def _erase_letter(image: Image.Image, word: Word, letter: int) -> Image.Image:
    """Paint out one letter's share of the word's box (a whole letter, whatever the font)."""
    left, top, right, bottom = word.box
    step = (right - left) / len(word.text)
    return _erase(image, (int(left + letter * step), top, int(left + (letter + 1) * step + 0.999), bottom))


def _padded(box: tuple[int, int, int, int], size: tuple[int, int], pad: int = 1) -> tuple[int, int, int, int]:
    left, top, right, bottom = box
    return max(0, left - pad), max(0, top - pad), min(size[0], right + pad), min(size[1], bottom + pad)


def _union(words: list[Word]) -> tuple[int, int, int, int]:
    return (
        min(w.box[0] for w in words),
        min(w.box[1] for w in words),
        max(w.box[2] for w in words),
        max(w.box[3] for w in words),
    )


def _copied_below(image: Image.Image, box: tuple[int, int, int, int]) -> Image.Image | None:
    """The line copied into the first empty (one-colour) stretch at its own x, with room around it; or None."""
    pixels = np.asarray(image)
    left, top, right, bottom = _padded(box, image.size, pad=3)
    patch = pixels[top:bottom, left:right]
    height = bottom - top
    margin = height // 2 + 4  # clear of the lines around it, so it reads as a line of its own
    starts = list(range(bottom + margin, image.height - height - margin, 4)) + list(range(margin, top - height - margin, 4))
    for y in starts:
        area = pixels[y - margin : y + height + margin, left:right]
        if int(np.ptp(area.reshape(-1, 3), axis=0).max()) <= 8:
            out = pixels.copy()
            out[y : y + height, left:right] = patch
            return Image.fromarray(out)
    return None
