from __future__ import annotations

import base64
import io

import pytest
from PIL import Image

from pytest_visioneval.errors import GraderError
from pytest_visioneval.judges import ImagePart, TextPart
from pytest_visioneval.judges.content import chat_content, downscaled_png


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
