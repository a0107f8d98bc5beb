"""graders/page_legible.py: the page's own words read back from a capture by OCR."""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFilter, ImageFont

from pytest_visioneval.graders.page_legible import legibility, legible_gate, page_words

TEXT = "Harbor Stoneware Mug $24 Hand glazed stoneware, holds 350 ml. Add to cart"


def drawn(text: str, size: tuple[int, int] = (900, 200), ink: tuple[int, int, int] = (20, 20, 20)) -> Image.Image:
    image = Image.new("RGB", size, "white")
    font = ImageFont.truetype("DejaVuSans.ttf", 26)
    ImageDraw.Draw(image).multiline_text((20, 20), text.replace(". ", ".\n"), fill=ink, font=font, spacing=12)
    return image


def test_page_words_keep_words_of_three_characters_or_with_a_digit() -> None:
    assert page_words("A 350 ml mug, $24 - to cart: Ab 5") == ["350", "mug", "$24", "cart", "5"]


def test_the_page_as_shown_reads_back() -> None:
    found = legibility(TEXT, "fullpage.png", drawn(TEXT))
    assert found.share >= 0.9, found.unread
    gate = legible_gate(found, 0.5)
    assert gate.passed
    assert gate.reason.startswith(f"tesseract reads {len(found.wanted) - len(found.unread)} of the {len(found.wanted)} words")


def test_blurred_or_turned_text_does_not() -> None:
    for broken in (drawn(TEXT).filter(ImageFilter.GaussianBlur(4)), drawn(TEXT).rotate(180)):
        found = legibility(TEXT, "fullpage.png", broken)
        assert found.share < 0.3, found
        gate = legible_gate(found, 0.5)
        assert not gate.passed
        assert "cannot be read" in gate.reason and "'harbor'" in gate.reason


def test_faint_text_does_not_count_though_ocr_reads_it() -> None:
    # black at about 12% opacity on white: OCR still reads it, a person barely sees it
    assert legibility(TEXT, "fullpage.png", drawn(TEXT, ink=(225, 225, 225))).share == 0.0
    # a pale grey caption is still text a person reads
    assert legibility(TEXT, "fullpage.png", drawn(TEXT, ink=(150, 150, 150))).share >= 0.9
