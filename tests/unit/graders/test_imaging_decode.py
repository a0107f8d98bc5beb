"""imaging.decode / load_path / decode_reduced: the pixel limit is checked before any pixel is decoded."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from pytest_visioneval.cases.image_limits import ImageTooLarge
from pytest_visioneval.errors import GraderError
from pytest_visioneval.graders.imaging import decode, decode_reduced, load_path


def encoded(size: tuple[int, int], fmt: str = "PNG", mode: str = "RGB") -> bytes:
    out = io.BytesIO()
    Image.new(mode, size, (200, 40, 40) if mode == "RGB" else 200).save(out, format=fmt)
    return out.getvalue()


def test_an_image_within_the_limit_decodes() -> None:
    image = decode(encoded((64, 48)))
    assert image.size == (64, 48) and image.getpixel((0, 0)) == (200, 40, 40)


def test_an_image_over_the_limit_is_refused_before_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    # 48 Mpx: 48 MB once decoded, a small file (the peak memory is measured in tests/plugin/test_hostile_inputs.py)
    data = encoded((8000, 6000), mode="L")
    with pytest.raises(ImageTooLarge) as info:
        decode(data, "model output out.png")
    assert str(info.value) == (
        "model output out.png is 8000x6000 = 48 Mpx, over the limit of 40 Mpx (VISIONEVAL_MAX_IMAGE_PIXELS=40000000)"
    )
    assert isinstance(info.value, ValueError)  # graders that catch ValueError for undecodable outputs still do
    monkeypatch.setenv("VISIONEVAL_MAX_IMAGE_PIXELS", "50000000")
    assert decode(data).size == (8000, 6000)  # raised limit: decoded


def test_load_path_names_the_file_in_a_grader_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "reference.png"
    path.write_bytes(encoded((300, 200)))
    assert load_path(path).size == (300, 200)
    monkeypatch.setenv("VISIONEVAL_MAX_IMAGE_PIXELS", "50000")
    with pytest.raises(GraderError) as info:
        load_path(path, "reference image")
    assert str(info.value) == (
        f"reference image {path} is 300x200 = 0.1 Mpx, over the limit of 0.1 Mpx (VISIONEVAL_MAX_IMAGE_PIXELS=50000)"
    )
    (tmp_path / "broken.png").write_bytes(b"\x89PNG broken")
    with pytest.raises(GraderError, match="cannot read image .*broken.png"):
        load_path(tmp_path / "broken.png")


def test_a_jpeg_is_decoded_reduced_by_its_decoder_even_past_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    data = encoded((4000, 3000), fmt="JPEG")
    monkeypatch.setenv("VISIONEVAL_MAX_IMAGE_PIXELS", "1000000")  # 12 Mpx in full: over; 1/8 scale: 0.19 Mpx
    with pytest.raises(ImageTooLarge):
        decode(data)
    image = decode_reduced(data, 500)
    assert image.size == (500, 375)


def test_a_png_is_decoded_within_the_limit_then_reduced() -> None:
    image = decode_reduced(encoded((2048, 1024)), 512)
    assert image.size == (512, 256)
    assert decode_reduced(encoded((300, 200)), 512).size == (300, 200)  # already small: as is
    paletted = io.BytesIO()
    Image.new("P", (1024, 1024), 3).save(paletted, format="PNG")
    assert decode_reduced(paletted.getvalue(), 256).size == (256, 256)


def test_decode_picture_keeps_the_files_format_and_size_and_reduces_only_large_images() -> None:
    from pytest_visioneval.graders.imaging import decode_picture

    big = decode_picture("big.png", encoded((5000, 2000)), 2048)
    assert (big.name, big.format, big.size, big.image.size) == ("big.png", "PNG", (5000, 2000), (2500, 1000))
    small = decode_picture("small.jpg", encoded((3000, 2000), fmt="JPEG"), 2048)  # under twice 2048: not reduced
    assert (small.format, small.size, small.image.size) == ("JPEG", (3000, 2000), (3000, 2000))
    photo = decode_picture("photo.jpg", encoded((8000, 6000), fmt="JPEG"), 2048)  # the decoder's 1/2 scale: under 4096
    assert (photo.format, photo.size, photo.image.size) == ("JPEG", (8000, 6000), (4000, 3000))


def test_load_picture_and_load_path_reduce_on_request_and_name_the_file(tmp_path: Path) -> None:
    from pytest_visioneval.graders.imaging import load_picture

    path = tmp_path / "input.png"
    path.write_bytes(encoded((4096, 1024)))
    assert load_path(path, longest=1024).size == (1024, 256)
    picture = load_picture(path, 1024, "input image")
    assert (picture.name, picture.size, picture.image.size) == ("input.png", (4096, 1024), (1024, 256))
    with pytest.raises(GraderError, match=r"cannot read input image .*missing\.png"):
        load_picture(tmp_path / "missing.png", 1024, "input image")


def test_downscaled_is_the_float_copy_resized_without_holding_the_full_size_as_float() -> None:
    import numpy as np

    from pytest_visioneval.graders.imaging import downscaled, rgb_array

    rgba = Image.new("RGBA", (900, 600), (0, 0, 0, 0))
    rgba.paste((200, 40, 40, 128), (100, 100, 500, 400))
    expected = Image.fromarray(rgb_array(rgba).astype(np.uint8)).resize((256, 171), Image.Resampling.BOX)
    assert np.array_equal(downscaled(rgba), np.asarray(expected, dtype=np.float32))  # the values of the float path
