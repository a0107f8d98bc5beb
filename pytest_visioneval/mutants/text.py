"""Mutants of the text an image shows: a one-letter typo, a missing line, a line shown twice.

The text a case asks for is what its prompt and criteria quote ("Place
Order") and the lines its ``text`` graders require. Tesseract finds where
that text stands in the known-good output; the mutants paint over it (with
the colour around it) or copy it, so the rest of the image stays exact.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass

import numpy as np
from PIL import Image

from ..artifacts import Artifact
from ..cases.spec import CaseSpec
from .base import Mutant, NotApplicable, decoded, png, replaced

_QUOTED = re.compile(r"[\"\u201c]([^\"\u201c\u201d]{2,80})[\"\u201d]")
_WORD = re.compile(r"[A-Za-z]{4,}")
UPSCALE_BELOW = 1600  # as the text grader reads small images: doubled


@dataclass(frozen=True)
class Word:
    text: str
    box: tuple[int, int, int, int]  # left, top, right, bottom in image pixels
    line: tuple[int, int, int]  # tesseract's block, paragraph and line numbers


def required_text(case: CaseSpec) -> list[str]:
    """The text the case asks for: quoted in its prompt or criteria, or required by a text grader."""
    found = _QUOTED.findall(f"{case.prompt or ''}\n{case.criteria or ''}")
    for grader in case.graders:
        if grader.use == "text":
            found += [str(line) for line in grader.options.get("required", ())]
    found += [str(line) for line in case.fields.get("required_text", ())]
    return list(dict.fromkeys(line.strip() for line in found if line.strip()))


def text_mutants(case: CaseSpec, artifacts: tuple[Artifact, ...]) -> tuple[list[Mutant], list[NotApplicable]]:
    wanted = required_text(case)
    if not wanted:
        return [], [NotApplicable("typo", "the case asks for no particular text (nothing quoted, no text grader)")]
    if shutil.which("tesseract") is None:
        return [], [NotApplicable("typo", "tesseract is not installed, so the text cannot be located")]
    target = next((a for a in artifacts if a.kind == "image" and decoded(a) is not None), None)
    image = decoded(target) if target is not None else None
    if target is None or image is None:
        return [], [NotApplicable("typo", "the known-good output holds no image")]
    rgb = image.convert("RGB")
    words = read_words(rgb)
    phrase = _located_phrase(wanted, words)
    if phrase is None:
        return [], [NotApplicable("typo", f"none of the asked-for text ({', '.join(wanted[:3])}...) was read in the output")]
    text, located = phrase
    mutants: list[Mutant] = []

    def swap(name: str, description: str, mutated: Image.Image) -> None:
        new = Artifact(target.name if target.name.endswith(".png") else f"{target.name}.png", png(mutated))
        mutants.append(Mutant(name, True, description, replaced(artifacts, target, new)))

    word = max(located, key=lambda w: len(w.text))
    swap("typo", f'one letter of "{word.text}" painted out (in "{text}")', _erase_letter(rgb, word))
    swap("missing_line", f'"{text}" painted out', _erase(rgb, _union(located)))
    criteria = f"{case.prompt or ''} {case.criteria or ''}".lower()
    skipped: list[NotApplicable] = []
    twice = _copied_below(rgb, _union(located)) if "exactly once" in criteria else None
    if twice is not None:
        swap("line_twice", f'"{text}" shown a second time', twice)
    else:
        why = "the case does not ask for each line exactly once" if "exactly once" not in criteria else "no empty space"
        skipped.append(NotApplicable("line_twice", why))
    return mutants, skipped


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


def _located_phrase(wanted: list[str], words: list[Word]) -> tuple[str, list[Word]] | None:
    """The first asked-for line whose words were read in a row on one line, and those words."""
    keys = [re.sub(r"[^a-z0-9]", "", w.text.lower()) for w in words]
    for text in wanted:
        needle = [re.sub(r"[^a-z0-9]", "", part.lower()) for part in text.split()]
        needle = [part for part in needle if part]
        if not needle or not any(_WORD.search(part) for part in text.split()):
            continue
        for start in range(len(words) - len(needle) + 1):
            run = words[start : start + len(needle)]
            if keys[start : start + len(needle)] == needle and len({w.line for w in run}) == 1:
                return text, run
    return None


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


def _erase_letter(image: Image.Image, word: Word) -> Image.Image:
    """Paint out the middle letter's share of the word's box (a whole letter, whatever the font)."""
    left, top, right, bottom = word.box
    step = (right - left) / len(word.text)
    middle = len(word.text) // 2
    return _erase(image, (int(left + middle * step), top, int(left + (middle + 1) * step + 0.999), bottom))


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
