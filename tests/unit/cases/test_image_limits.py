"""The decoded-size limit read from image headers: case images at collection, graders' inputs and outputs."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from pytest_visioneval.cases.image_limits import (
    DEFAULT_MAX_CASE_PIXELS,
    DEFAULT_MAX_IMAGE_PIXELS,
    ImageTooLarge,
    check_case_total,
    check_image_file,
    check_size,
    header_size,
    max_case_pixels,
    max_image_pixels,
    megapixels,
)


def png(size: tuple[int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("L", size, 200).save(out, format="PNG")
    return out.getvalue()


def test_the_limit_is_the_default_or_the_environments(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VISIONEVAL_MAX_IMAGE_PIXELS", raising=False)
    assert max_image_pixels() == DEFAULT_MAX_IMAGE_PIXELS == 40_000_000
    monkeypatch.setenv("VISIONEVAL_MAX_IMAGE_PIXELS", "100_000_000")
    assert max_image_pixels() == 100_000_000
    monkeypatch.setenv("VISIONEVAL_MAX_IMAGE_PIXELS", "40M")
    with pytest.raises(ValueError, match="VISIONEVAL_MAX_IMAGE_PIXELS='40M' is not a positive whole number of pixels"):
        max_image_pixels()


def test_a_size_over_the_limit_is_refused_with_both_sizes_and_the_variable() -> None:
    check_size((4000, 3000), "model output a.png", limit=12_000_000)  # exactly at the limit: accepted
    with pytest.raises(ImageTooLarge) as info:
        check_size((12_000, 12_000), "input image cases/x.png", limit=40_000_000)
    assert str(info.value) == (
        "input image cases/x.png is 12000x12000 = 144 Mpx, over the limit of 40 Mpx (VISIONEVAL_MAX_IMAGE_PIXELS=40000000)"
    )


def test_megapixels_are_written_readably() -> None:
    assert megapixels(144_000_000) == "144 Mpx"
    assert megapixels(2_500_000) == "2.5 Mpx"


def test_the_header_gives_the_size_without_decoding(tmp_path: Path) -> None:
    data = png((6000, 5000))  # 30 Mpx of one colour: a small file
    assert len(data) < 100_000
    assert header_size(data) == (6000, 5000)
    path = tmp_path / "big.png"
    path.write_bytes(data)
    assert header_size(path) == (6000, 5000)
    assert header_size(b"not an image") is None


def test_a_case_image_file_is_checked_from_its_header(tmp_path: Path) -> None:
    path = tmp_path / "input.png"
    path.write_bytes(png((6000, 5000)))
    check_image_file(path, "input image")  # 30 Mpx: under the default
    with pytest.raises(ImageTooLarge, match=r"input image .*input\.png is 6000x5000 = 30 Mpx, over the limit of 20 Mpx"):
        check_image_file(path, "input image", limit=20_000_000)
    (tmp_path / "text.png").write_text("not a png")
    check_image_file(tmp_path / "text.png", "input image")  # not an image: left to whoever decodes it


def test_an_image_past_pillows_own_guard_is_refused_with_its_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1_000_000)  # Pillow errors past twice this
    path = tmp_path / "bomb.png"
    path.write_bytes(png((2000, 1500)))
    with pytest.raises(ImageTooLarge, match=r"reference image .*bomb\.png: Image size \(3000000 pixels\) exceeds limit"):
        check_image_file(path, "reference image")


def test_the_case_total_is_the_default_or_the_environments(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VISIONEVAL_MAX_CASE_PIXELS", raising=False)
    assert max_case_pixels() == DEFAULT_MAX_CASE_PIXELS == 200_000_000
    monkeypatch.setenv("VISIONEVAL_MAX_CASE_PIXELS", "1_000_000_000")
    assert max_case_pixels() == 1_000_000_000
    monkeypatch.setenv("VISIONEVAL_MAX_CASE_PIXELS", "0")
    with pytest.raises(ValueError, match="VISIONEVAL_MAX_CASE_PIXELS='0' is not a positive whole number of pixels"):
        max_case_pixels()


def test_a_cases_images_are_added_up_from_their_headers_and_refused_past_the_total() -> None:
    frames = [(f"frame-{i}.png", png((3000, 2000))) for i in range(4)] + [("big.png", png((4000, 3000)))]
    frames.append(("notes.txt", b"not an image"))  # counts nothing
    assert check_case_total(frames, limit=36_000_000) == 36_000_000  # exactly at the limit
    with pytest.raises(ImageTooLarge) as info:
        check_case_total(frames, limit=30_000_000)
    assert str(info.value) == (
        "the case's 5 output images are 36 Mpx together (the largest, big.png, 4000x3000), over the limit of 30 Mpx "
        "per case (VISIONEVAL_MAX_CASE_PIXELS=30000000); nothing was decoded"
    )
    assert check_case_total([]) == 0


def test_a_png_is_sized_from_its_first_chunk_as_pillow_sizes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    for size, mode in [((1, 1), "RGB"), ((640, 480), "RGBA"), ((17, 3000), "P"), ((300, 200), "L")]:
        buffer = io.BytesIO()
        Image.new(mode, size).save(buffer, "PNG")
        data = buffer.getvalue()
        assert header_size(data) == Image.open(io.BytesIO(data)).size == size
        assert header_size(data[:30]) == size  # the header is all it reads; whoever decodes says the rest is missing
    assert header_size(b"\x89PNG\r\n\x1a\n" + b"\x00" * 16) is None  # a signature without its IHDR
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1_000_000)
    with pytest.raises(ImageTooLarge, match=r"Image size \(3000000 pixels\) exceeds limit"):
        header_size(png((2000, 1500)))  # past Pillow's own guard, from bytes too
