from __future__ import annotations

import base64
import hashlib
import io
import json

import pytest
from PIL import Image

from pytest_visioneval.errors import GraderError
from pytest_visioneval.judges import ImagePart, TextPart, content
from pytest_visioneval.judges.content import chat_content, downscaled_png, with_image_data


def _png(size: tuple[int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (10, 120, 200)).save(out, format="PNG")
    return out.getvalue()


def test_large_images_are_downscaled_keeping_aspect() -> None:
    small = Image.open(io.BytesIO(downscaled_png(_png((3000, 1500)), 1024)))
    assert small.size == (1024, 512)
    same = Image.open(io.BytesIO(downscaled_png(_png((300, 200)), 1024)))
    assert same.size == (300, 200)


def test_content_keeps_order_and_labels_each_image() -> None:
    parts = [TextPart("prompt"), ImagePart("Input image 1", _png((10, 10))), ImagePart("Output image 1", _png((20, 10)))]
    content = chat_content(parts, max_side=1024, max_images=5)
    kinds = [(c["type"], c.get("text")) for c in content]
    assert kinds == [
        ("text", "prompt"),
        ("text", "[Input image 1]"),
        ("image_url", None),
        ("text", "[Output image 1]"),
        ("image_url", None),
    ]
    url = content[4]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).size == (20, 10)


def test_too_many_images_is_an_error_not_a_silent_cut() -> None:
    parts = [ImagePart(f"frame {i}", _png((8, 8))) for i in range(6)]
    with pytest.raises(GraderError, match="6 images, more than the limit of 5"):
        chat_content(parts, max_side=64, max_images=5)


def test_undecodable_image_is_a_grader_error() -> None:
    with pytest.raises(GraderError, match="cannot prepare an image"):
        downscaled_png(b"not an image", 64)


def test_a_cache_key_names_images_by_hash_and_size_never_by_their_bytes() -> None:
    png = _png((40, 30))
    parts = [TextPart("prompt"), ImagePart("Output image 1", png), ImagePart("big", png, full_size=True)]
    key = chat_content(parts, max_side=1024, max_images=5, placeholders=True)
    urls = [c["image_url"]["url"] for c in key if c["type"] == "image_url"]
    digest = hashlib.sha256(png).hexdigest()
    assert urls == [f"sha256:{digest};max_side=1024", f"sha256:{digest};max_side=full"]
    assert base64.b64encode(png).decode()[:40] not in json.dumps(key)
    # Another size is another request, so another key.
    assert chat_content(parts, max_side=512, max_images=5, placeholders=True) != key
    # The request sent is the key with the images filled in: the same as building it directly.
    messages = [{"role": "system", "content": "rate"}, {"role": "user", "content": key}]
    sent = with_image_data(messages, parts, max_side=1024)
    assert sent[0] == messages[0]
    assert sent[1]["content"] == chat_content(parts, max_side=1024, max_images=5)


def test_an_image_is_prepared_once_per_size(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int | None] = []
    real = content.downscaled_png

    def counting(data: bytes, max_side: int | None) -> bytes:
        calls.append(max_side)
        return real(data, max_side)

    monkeypatch.setattr(content, "downscaled_png", counting)
    part = ImagePart("Output image 1", _png((64, 17)))  # a size no other test prepares
    for _ in range(3):
        content.image_data_url(part, 32)
    content.image_data_url(part, 16)
    assert calls == [32, 16]
