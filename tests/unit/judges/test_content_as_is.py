"""judges/content.py: an image within the judge's limits goes as its own bytes; others are decoded and re-encoded."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image

from pytest_visioneval.judges import ImagePart, content
from pytest_visioneval.judges.content import chat_content, prepared_image


def _encoded(size: tuple[int, int], fmt: str, mode: str = "RGB", **save: object) -> bytes:
    out = io.BytesIO()
    Image.new(mode, size, 90).save(out, format=fmt, **save)
    return out.getvalue()


def _animated_gif() -> bytes:
    frames = [Image.new("RGB", (20, 20), colour) for colour in ((255, 0, 0), (0, 255, 0), (0, 0, 255))]
    out = io.BytesIO()
    frames[0].save(out, format="GIF", save_all=True, append_images=frames[1:], duration=100)
    data = out.getvalue()
    assert Image.open(io.BytesIO(data)).n_frames == 3  # Pillow merges identical frames: these differ
    return data


def _refuse_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(content, "downscaled_png", lambda *a: pytest.fail("an image within the limits was re-encoded"))


@pytest.mark.parametrize(
    ("fmt", "mode", "mime"),
    [("PNG", "RGB", "image/png"), ("PNG", "P", "image/png"), ("JPEG", "RGB", "image/jpeg"),
     ("WEBP", "RGBA", "image/webp"), ("GIF", "P", "image/gif")],
)  # fmt: skip
def test_an_image_within_the_limits_is_sent_as_its_own_bytes(
    monkeypatch: pytest.MonkeyPatch, fmt: str, mode: str, mime: str
) -> None:
    _refuse_decoding(monkeypatch)
    data = _encoded((300, 200), fmt, mode)
    assert prepared_image(data, 1024) == (mime, data)
    assert prepared_image(data, 300) == (mime, data)  # the longest side at the limit is within it
    assert prepared_image(data, None) == (mime, data)  # full size


def test_the_data_url_carries_the_file_base64_and_its_own_type(monkeypatch: pytest.MonkeyPatch) -> None:
    _refuse_decoding(monkeypatch)
    jpeg = _encoded((64, 48), "JPEG")
    [_, image] = chat_content([ImagePart("Output image 1", jpeg)], max_side=1024, max_images=2)
    assert image["image_url"]["url"] == "data:image/jpeg;base64," + base64.b64encode(jpeg).decode()


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "WEBP"])
def test_an_image_over_the_limit_is_downscaled_to_png(fmt: str) -> None:
    data = _encoded((2000, 500), fmt)
    mime, sent = prepared_image(data, 1024)
    assert mime == "image/png" and sent != data
    assert Image.open(io.BytesIO(sent)).size == (1024, 256)


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (_encoded((40, 30), "JPEG", "CMYK"), "a CMYK JPEG"),
        (_encoded((40, 30), "PNG", "I;16"), "a 16-bit PNG"),
        (_encoded((40, 30), "TIFF"), "a TIFF"),
        (_encoded((40, 30), "BMP"), "a BMP"),
        (_animated_gif(), "an animated GIF"),
    ],
    ids=["cmyk-jpeg", "16-bit-png", "tiff", "bmp", "animated-gif"],
)
def test_a_format_or_mode_the_api_may_not_take_is_converted_to_png(data: bytes, why: str) -> None:
    mime, sent = prepared_image(data, 1024)
    assert (mime, sent[:8]) == ("image/png", b"\x89PNG\r\n\x1a\n"), f"{why} was sent as {mime}"
    decoded = Image.open(io.BytesIO(sent))
    assert decoded.size == Image.open(io.BytesIO(data)).size and decoded.mode in ("RGB", "RGBA", "L", "LA")


def test_a_full_size_part_over_max_side_still_goes_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    _refuse_decoding(monkeypatch)
    png = _encoded((1500, 900), "PNG")
    urls = [
        c["image_url"]["url"]
        for c in chat_content([ImagePart("big", png, full_size=True)], max_side=1024, max_images=2)
        if c["type"] == "image_url"
    ]
    assert urls == ["data:image/png;base64," + base64.b64encode(png).decode()]
