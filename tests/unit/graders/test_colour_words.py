"""graders/colour_words.py: the colours a prompt names, and how much of an image shows each family."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from pytest_visioneval.graders.colour_words import FAMILIES, family_share, hsv, named_colours
from pytest_visioneval.graders.imaging import reduced_rgb


def words(prompt: str) -> list[str]:
    return [n.word for n in named_colours(prompt)]


def test_named_colours_in_the_order_first_named_each_once() -> None:
    assert words("Colour the Monday bar orange and the others teal; an orange title") == ["orange", "teal"]


def test_a_hyphenated_colour_names_both() -> None:
    assert words("a blue-green wave") == ["blue", "green"]


@pytest.mark.parametrize(
    "prompt",
    [
        'the headline "Green Valley Farm" on a cream band',  # quoted text is what the image says
        "a poster for the Orange County fair",  # a capitalised word inside a sentence is a name
        "Orange County fair, in black and white",  # opening a sentence, followed by a capital: a name
        "a slide with no red anywhere",
        "remove the purple car",
        "a logo that isn't yellow",
        "a greenhouse at noon, white walls, grey roof",  # one word; black, white and grey name no hue
    ],
)
def test_colours_that_need_not_be_shown_are_left_out(prompt: str) -> None:
    assert words(prompt) == []


def test_a_sentence_may_open_with_a_colour() -> None:
    assert words("Blue header. Red button: Buy") == ["blue", "red"]


def test_a_muted_word_lowers_the_saturation_asked_for() -> None:
    named = {n.word: n.muted for n in named_colours("a pastel pink card, sage green leaves and a red pot")}
    assert named == {"pink": True, "green": True, "red": False}


def solid(colour: tuple[int, int, int], box: tuple[int, int, int, int], size: int = 256) -> Image.Image:
    image = Image.new("RGB", (size, size), "white")
    ImageDraw.Draw(image).rectangle(box, fill=colour)
    return reduced_rgb(image, 512)


def share(image: Image.Image, word: str, prompt: str | None = None) -> float:
    named = next(n for n in named_colours(prompt or f"a {word} thing") if n.word == word)
    return family_share(*hsv(image), named)


@pytest.mark.parametrize(
    ("word", "colour"),
    [
        ("red", (220, 38, 38)),
        ("orange", (249, 115, 22)),
        ("amber", (180, 83, 9)),
        ("yellow", (234, 179, 8)),
        ("green", (22, 163, 74)),
        ("teal", (13, 148, 136)),
        ("blue", (37, 99, 235)),
        ("navy", (30, 58, 138)),
        ("indigo", (79, 70, 229)),
        ("purple", (147, 51, 234)),
        ("pink", (244, 114, 182)),
        ("brown", (120, 72, 30)),
    ],
)
def test_a_common_shade_of_each_word_is_in_its_family(word: str, colour: tuple[int, int, int]) -> None:
    assert share(solid(colour, (64, 64, 191, 127)), word) == pytest.approx(128 * 64 / 256**2, rel=0.1)


def test_another_family_is_not_shown() -> None:
    assert share(solid((37, 99, 235), (0, 0, 255, 127)), "orange") == 0.0


def test_grey_shows_no_colour_and_a_muted_shade_counts_only_when_muted() -> None:
    assert share(solid((128, 128, 128), (0, 0, 255, 127)), "blue") == 0.0
    sage = solid((156, 175, 136), (0, 0, 255, 127))  # saturation 0.22
    assert share(sage, "green") == 0.0
    assert share(sage, "green", "sage green leaves") > 0.4


def test_a_seam_between_two_colours_is_not_a_patch_of_the_colour_between() -> None:
    image = Image.new("RGB", (256, 256), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 127, 255), fill=(230, 0, 0))
    draw.rectangle((129, 0, 255, 255), fill=(0, 0, 230))
    draw.line((128, 0, 128, 255), fill=(115, 0, 115))  # the blend a renderer leaves on the edge
    assert share(reduced_rgb(image, 512), "purple") == 0.0


def test_every_family_has_a_word_and_ranges_inside_the_circle() -> None:
    for word, family in FAMILIES.items():
        assert word == family.word
        assert all(0 <= low < high <= 360 for low, high in family.hues)
