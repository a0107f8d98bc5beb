"""Variants of an image for the text grader's tests: legitimate re-encodings and broken copies.

The broken copies are made where OCR says the text is (tesseract's word and character boxes on
the grader's own prepared image), so they work on any shipped reference: erase one character
(a one-letter typo), paint a line out, copy a line into empty background, or swap two lines; and
the whole image shrunk onto an empty canvas.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytesseract
from PIL import Image

from pytest_visioneval.graders.ocr import prepare

ROOT = Path(__file__).resolve().parents[3]
Box = tuple[int, int, int, int]  # left, top, right, bottom


def load(relative: str) -> Image.Image:
    """A shipped reference, e.g. ``cases/cookbook/flyers/book-fair.png``, as RGB."""
    return Image.open(ROOT / relative).convert("RGB")


def png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def jpeg(image: Image.Image, quality: int) -> bytes:
    out = io.BytesIO()
    image.convert("RGB").save(out, format="JPEG", quality=quality)
    return out.getvalue()


def shifted(image: Image.Image, dx: int = 1, dy: int = 1) -> bytes:
    """The image moved right and down by a pixel, the uncovered edge in the bottom-right colour."""
    out = Image.new("RGB", image.size, image.getpixel((image.width - 1, image.height - 1)))
    out.paste(image, (dx, dy))
    return png(out)


def line_box(image: Image.Image, line: str) -> Box:
    """Where OCR reads ``line`` (its words in a row), in the image's pixels."""
    words = _words(image)
    wanted = line.split()
    for i in range(len(words) - len(wanted) + 1):
        run = words[i : i + len(wanted)]
        if [text.strip(".,") for text, _ in run] == [w.strip(".,") for w in wanted]:
            boxes = [box for _, box in run]
            return min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes)
    raise AssertionError(f"OCR does not read {line!r} in the image: {[text for text, _ in words]}")


def erase_character(image: Image.Image, word: str, index: int) -> bytes:
    """``word`` with its character ``index`` painted over with the background: a one-letter typo."""
    left, top, right, bottom = line_box(image, word)
    chars = [b for b in _characters(image) if left - 1 <= b[0] and b[2] <= right + 1 and top - 2 <= b[1] and b[3] <= bottom + 2]
    assert len(chars) == len(word), f"OCR boxes {len(chars)} characters in {word!r}"
    x0, _, x1, _ = chars[index]
    out = np.asarray(image).copy()
    out[top - 2 : bottom + 3, x0:x1] = _background(out, (left, top, right, bottom))
    return png(Image.fromarray(out))


def remove_line(image: Image.Image, line: str, pad: int = 6) -> bytes:
    left, top, right, bottom = line_box(image, line)
    out = np.asarray(image).copy()
    out[top - pad : bottom + pad, left - pad : right + pad] = _background(out, (left, top, right, bottom))
    return png(Image.fromarray(out))


def duplicate_line(image: Image.Image, line: str, to_top: int, pad: int = 6) -> bytes:
    """The image with ``line``'s area copied ``to_top`` px down the image, same left edge."""
    left, top, right, bottom = line_box(image, line)
    out = np.asarray(image).copy()
    region = out[top - pad : bottom + pad, left - pad : right + pad].copy()
    out[to_top : to_top + region.shape[0], left - pad : right + pad] = region
    return png(Image.fromarray(out))


def swap_lines(image: Image.Image, first: str, second: str, pad: int = 6) -> bytes:
    """The full-width bands ``first`` and ``second`` are read in, exchanged: the two lines swap places.

    The bands are of one height (the taller line's, padded), each centred on its line, so the
    lines are redrawn as they were, each where the other stood.
    """
    boxes = [line_box(image, line) for line in (first, second)]
    height = max(box[3] - box[1] for box in boxes) + 2 * pad
    tops = [min(max(0, (box[1] + box[3]) // 2 - height // 2), image.height - height) for box in boxes]
    assert abs(tops[0] - tops[1]) >= height, f"the lines' bands overlap: {boxes}"
    bands = [image.crop((0, top, image.width, top + height)) for top in tops]
    out = image.copy()
    out.paste(bands[1], (0, tops[0]))
    out.paste(bands[0], (0, tops[1]))
    return png(out)


def shrunk(image: Image.Image, scale: float, corner: str) -> bytes:
    """The whole image scaled by ``scale`` into a corner (or the centre) of an empty canvas of its own size and background."""
    small = image.convert("RGB").resize((round(image.width * scale), round(image.height * scale)), Image.Resampling.LANCZOS)
    out = Image.new("RGB", image.size, image.convert("RGB").getpixel((0, 0)))
    free_x, free_y = image.width - small.width, image.height - small.height
    x = {"top-left": 0, "centre": free_x // 2, "bottom-right": free_x}[corner]
    y = {"top-left": 0, "centre": free_y // 2, "bottom-right": free_y}[corner]
    out.paste(small, (x, y))
    return png(out)


def _words(image: Image.Image) -> list[tuple[str, Box]]:
    prepared = prepare(image)
    scale = prepared.width / image.width
    data = pytesseract.image_to_data(prepared, config="--psm 3", output_type=pytesseract.Output.DICT)
    words = []
    for i, text in enumerate(data["text"]):
        left, top = data["left"][i], data["top"][i]
        if text.strip():
            words.append((text.strip(), _scaled((left, top, left + data["width"][i], top + data["height"][i]), scale)))
    return words


def _characters(image: Image.Image) -> list[Box]:
    prepared = prepare(image)
    scale = prepared.width / image.width
    boxes = pytesseract.image_to_boxes(prepared, config="--psm 3", output_type=pytesseract.Output.DICT)
    height = prepared.height  # tesseract's character boxes count y from the bottom
    return [
        _scaled((boxes["left"][i], height - boxes["top"][i], boxes["right"][i], height - boxes["bottom"][i]), scale)
        for i in range(len(boxes["char"]))
    ]


def _scaled(box: tuple[int, int, int, int], scale: float) -> Box:
    left, top, right, bottom = box
    return int(left / scale), int(top / scale), int(np.ceil(right / scale)), int(np.ceil(bottom / scale))


def _background(pixels: np.ndarray, box: Box) -> np.ndarray:
    """The median colour of the rows just above and below ``box``."""
    left, top, right, bottom = box
    ring = np.concatenate([pixels[max(0, top - 4), left:right], pixels[min(pixels.shape[0] - 1, bottom + 4), left:right]])
    return np.median(ring, axis=0).astype(np.uint8)
