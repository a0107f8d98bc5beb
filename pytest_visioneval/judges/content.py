"""What a judge is shown: labelled text and images, in a fixed order.

Images go as base64 data URLs: the judge sees our bytes only, never a remote
URL, and never a 20-megapixel upload. An image whose longest side is already
at most ``max_side``, in a format the API takes (PNG, JPEG, WebP, a GIF of one
frame) and a plain colour mode, is sent as its own file's bytes: only its
header is read to decide. Any other image is decoded, downscaled so its
longest side is at most ``max_side`` and re-encoded as PNG. A grader may mark
a part ``full_size`` (an official harness that sends the original image, e.g.
BizGenEval's): it keeps its own size, and is re-encoded only when its format
needs it. More images than ``max_images`` is an error rather than a silent
cut, so a trajectory is never judged without some of its frames.

Preparing an image costs milliseconds, so it is done once per image and size
(a small in-process memory, keyed by the image's SHA-256), and only for a
request the cache cannot answer: the cache key names each image by its hash
and size (:func:`chat_content` with ``placeholders``), never by its bytes.
"""

from __future__ import annotations

import base64
import hashlib
import io
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import GraderError

if TYPE_CHECKING:
    from PIL import Image

DEFAULT_MAX_SIDE = 1024
DEFAULT_MAX_IMAGES = 12


@dataclass(frozen=True)
class TextPart:
    text: str


@dataclass(frozen=True)
class ImagePart:
    label: str  # said to the judge just before the image, e.g. "Output image 1"
    data: bytes
    full_size: bool = False  # sent at its own size, not downscaled to the judge's max_side

    @cached_property
    def sha256(self) -> str:
        """The image's hash, computed once: it names the image in cache keys and in the prepared images."""
        return hashlib.sha256(self.data).hexdigest()


Part = TextPart | ImagePart


@dataclass(frozen=True)
class JudgeRequest:
    """One question to a judge: instructions, content, and the reply's JSON Schema."""

    instructions: str
    parts: tuple[Part, ...]
    schema: dict
    schema_name: str
    # Sampling temperature for this question (a protocol's official setting); None: the run's judge setting.
    temperature: float | None = None


def image_part(label: str, source: bytes | Path) -> ImagePart:
    data = source.read_bytes() if isinstance(source, Path) else source
    return ImagePart(label, data)


def downscaled_png(data: bytes, max_side: int | None) -> bytes:
    """PNG bytes of the image with its longest side at most ``max_side`` (``None``: at its own size)."""
    from PIL import Image  # on a cache miss: loading the plugin and a warm run need no Pillow here

    try:
        image: Image.Image = Image.open(io.BytesIO(data))
        image.load()
    except Exception as exc:  # Pillow raises many types for bad input
        raise GraderError(f"cannot prepare an image for the judge: {exc}") from exc
    if image.mode not in ("RGB", "RGBA", "L", "LA"):
        image = image.convert("RGBA" if "A" in image.getbands() or image.mode == "P" else "RGB")
    if max_side is not None and max(image.size) > max_side:
        image.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False)
    return out.getvalue()


# Formats the judge APIs take as they are, with the colour modes sent untouched in each (others are converted).
_SENT_AS_IS = {
    "PNG": ("image/png", frozenset({"RGB", "RGBA", "L", "LA", "P", "1"})),
    "JPEG": ("image/jpeg", frozenset({"RGB", "L"})),
    "WEBP": ("image/webp", frozenset({"RGB", "RGBA"})),
    "GIF": ("image/gif", frozenset({"P", "L"})),
}


def prepared_image(data: bytes, max_side: int | None) -> tuple[str, bytes]:
    """The image as the judge is sent it: its MIME type and bytes (``max_side`` ``None``: at its own size).

    Only the header is read when the image can go as it is; it is decoded only to be downscaled or converted.
    """
    from PIL import Image  # on a cache miss: loading the plugin and a warm run need no Pillow here

    try:
        image = Image.open(io.BytesIO(data))  # lazy: reads the header, not the pixels
    except Exception as exc:  # Pillow raises many types for bad input
        raise GraderError(f"cannot prepare an image for the judge: {exc}") from exc
    sent = _SENT_AS_IS.get(image.format or "")
    fits = max_side is None or max(image.size) <= max_side
    # A GIF of several frames would show the judge its first only once decoded: sent as a PNG of that frame.
    if sent is not None and fits and image.mode in sent[1] and not getattr(image, "is_animated", False):
        return sent[0], data
    return "image/png", downscaled_png(data, max_side)


_PREPARED_KEPT = 32  # prepared images kept in memory (a few MB each at most)
_prepared: OrderedDict[tuple[str, int | None], str] = OrderedDict()
_prepared_lock = threading.Lock()
_PLACEHOLDER = "sha256:"


def _side(part: ImagePart, max_side: int) -> int | None:
    return None if part.full_size else max_side


def image_placeholder(part: ImagePart, max_side: int) -> str:
    """What names an image in a cache key: its content's hash and the size it is sent at."""
    side = _side(part, max_side)
    return f"{_PLACEHOLDER}{part.sha256};max_side={'full' if side is None else side}"


def image_data_url(part: ImagePart, max_side: int) -> str:
    """The image as the judge receives it (a data URL, see :func:`prepared_image`), prepared once per image and size."""
    key = (part.sha256, _side(part, max_side))
    with _prepared_lock:
        url = _prepared.get(key)
        if url is not None:
            _prepared.move_to_end(key)
            return url
    mime, data = prepared_image(part.data, key[1])
    url = f"data:{mime};base64," + base64.b64encode(data).decode()
    with _prepared_lock:
        _prepared[key] = url
        while len(_prepared) > _PREPARED_KEPT:
            _prepared.popitem(last=False)
    return url


def chat_content(parts: Sequence[Part], max_side: int, max_images: int, *, placeholders: bool = False) -> list[dict]:
    """Chat Completions content parts, each image preceded by its label.

    With ``placeholders`` each image is named by :func:`image_placeholder` instead of
    its data (a cache key's form; :func:`with_image_data` turns it into a request).
    """
    images = sum(isinstance(p, ImagePart) for p in parts)
    if images > max_images:
        raise GraderError(
            f"the judge would be sent {images} images, more than the limit of {max_images} "
            "(raise --judge-max-images rather than judging without some of them)"
        )
    content: list[dict] = []
    for part in parts:
        if isinstance(part, TextPart):
            content.append({"type": "text", "text": part.text})
        else:
            url = image_placeholder(part, max_side) if placeholders else image_data_url(part, max_side)
            content.append({"type": "text", "text": f"[{part.label}]"})
            content.append({"type": "image_url", "image_url": {"url": url}})
    return content


def with_image_data(messages: list[dict[str, Any]], parts: Sequence[Part], max_side: int) -> list[dict[str, Any]]:
    """``messages`` with every image placeholder of ``parts`` replaced by the image's data URL."""
    urls = {image_placeholder(p, max_side): p for p in parts if isinstance(p, ImagePart)}

    def resolved(item: dict[str, Any]) -> dict[str, Any]:
        url = item.get("image_url", {}).get("url") if item.get("type") == "image_url" else None
        if url in urls:
            return {**item, "image_url": {**item["image_url"], "url": image_data_url(urls[url], max_side)}}
        return item

    return [{**m, "content": [resolved(c) for c in m["content"]]} if isinstance(m.get("content"), list) else m for m in messages]
