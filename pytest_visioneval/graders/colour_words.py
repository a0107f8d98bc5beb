"""The colours a prompt names in words ("a blue header", "teal bars"), and how much of an image shows each.

A person reading "a green header" expects to see something green; not that
exact green, any green a person would call green. So a word names a *family*:
a range of hues (HSV, degrees) with enough colour in it, and for a few words
a range of lightness (navy is a dark blue, pink a light red). An image shows
the family where a solid patch of its pixels has it: a pixel counts when it
and its four neighbours are all in the family, so the blended pixels along
the edge between two colours (red beside blue gives a purple seam) count for
nothing, while a stroke of three pixels or more still counts.

Words inside quotes are text the image must *say*, not colours it must show
("Green Valley Farm"); a capitalised word inside a sentence is a name
("Orange County"); a word after "no", "not", "without", "instead of",
"remove" or "replace" (within three words) is a colour that must *not* be
there, and is left alone; black, white and grey name no hue and are left
alone too, as are compounds that name no colour ("red carpet" is kept;
"greenhouse" is one word and never matched).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from PIL import Image


@dataclass(frozen=True)
class Family:
    word: str
    hues: tuple[tuple[float, float], ...]  # HSV hue ranges in degrees, each [low, high)
    min_saturation: float = 0.35  # HSV saturation (chroma / value)
    value: tuple[float, float] = (0.15, 1.01)  # HSV value range


# Hue ranges as the words are commonly drawn (CSS and design-system palettes of each name), wide
# enough for a model's choice of shade and no wider: a hue turned by 30 degrees or more leaves most
# of them. Muted words ("pastel", "pale", "muted", "dusty", "sage") lower the saturation asked for.
_FAMILIES = (
    Family("red", ((345, 360), (0, 15))),
    Family("crimson", ((335, 360), (0, 12))),
    Family("scarlet", ((350, 360), (0, 18))),
    Family("maroon", ((335, 360), (0, 20)), value=(0.12, 0.65)),
    Family("burgundy", ((320, 360), (0, 15)), value=(0.1, 0.65)),
    Family("orange", ((14, 42),)),
    Family("amber", ((20, 50),)),
    Family("terracotta", ((2, 30),), min_saturation=0.3),
    Family("coral", ((0, 25),), min_saturation=0.3),
    Family("brown", ((8, 45),), min_saturation=0.25, value=(0.12, 0.72)),
    Family("yellow", ((44, 66),)),
    Family("gold", ((36, 58),)),
    Family("lime", ((66, 105),)),
    Family("olive", ((48, 90),), min_saturation=0.3, value=(0.15, 0.7)),
    Family("green", ((72, 165),)),
    Family("emerald", ((125, 170),)),
    Family("mint", ((120, 175),), min_saturation=0.15),
    Family("teal", ((158, 200),)),
    Family("turquoise", ((160, 195),)),
    Family("cyan", ((170, 200),)),
    Family("aqua", ((165, 200),)),
    Family("blue", ((192, 250),)),
    Family("navy", ((205, 250),), min_saturation=0.3, value=(0.08, 0.62)),
    Family("cobalt", ((205, 240),)),
    Family("azure", ((195, 225),)),
    Family("indigo", ((225, 268),)),
    Family("violet", ((255, 300),)),
    Family("purple", ((255, 305),)),
    Family("lavender", ((240, 300),), min_saturation=0.12),
    Family("magenta", ((285, 335),)),
    Family("fuchsia", ((285, 335),)),
    Family("pink", ((300, 360), (0, 12)), min_saturation=0.12, value=(0.55, 1.01)),
)
FAMILIES: dict[str, Family] = {f.word: f for f in _FAMILIES}
MUTED_WORDS = frozenset({"pastel", "pale", "muted", "dusty", "soft", "sage", "faded", "light", "washed"})
MUTED_SATURATION = 0.12
_NEGATIONS = ("no", "not", "without", "instead", "remove", "removed", "removing", "replace", "replacing", "never", "non")
_NEGATION_REACH = 3  # words before a colour word that a negation governs
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|‘[^’]*’|(?<!\w)'[^']*'(?!\w)")
_WORD = re.compile(r"[A-Za-z]+(?:['’-][A-Za-z]+)*")


@dataclass(frozen=True)
class Named:
    word: str  # as the prompt spells it, lower case ("navy")
    family: Family
    muted: bool  # a muted word came just before it ("pastel blue")


def named_colours(prompt: str) -> list[Named]:
    """The colour families ``prompt`` asks to see, each once, in the order first named."""
    text = _QUOTED.sub(" . ", prompt)
    found: dict[str, Named] = {}
    words = [(m.group(0), m.start()) for m in _WORD.finditer(text)]
    for index, (word, start) in enumerate(words):
        for part in word.split("-"):  # "blue-green" names both
            family = FAMILIES.get(part.lower())
            if family is None or family.word in found:
                continue
            if part[0].isupper() and (not _sentence_start(text, start) or _name_follows(words, index)):
                continue  # a name ("Orange County", "Blue Bottle")
            before = [w.lower() for w, _ in words[max(0, index - _NEGATION_REACH) : index]]
            if any(w in _NEGATIONS or w.endswith(("n't", "n’t")) for w in before):
                continue
            muted = bool(before) and before[-1] in MUTED_WORDS
            found[family.word] = Named(part.lower(), family, muted)
    return list(found.values())


def _name_follows(words: list[tuple[str, int]], index: int) -> bool:
    """Whether a capitalised word comes next: "Orange County" opening a sentence is a name too."""
    return index + 1 < len(words) and words[index + 1][0][:1].isupper()


def _sentence_start(text: str, start: int) -> bool:
    """Whether the word at ``start`` opens the text or a sentence (after . ! ? : or a line break)."""
    before = text[:start].rstrip()
    return not before or before[-1] in ".!?:\n;"


def hsv(image: Image.Image) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hue (degrees), saturation and value (0-1) of an 8-bit RGB image, by Pillow's HSV conversion.

    Pillow's hue has 256 steps (1.4 degrees each), finer than any family's edge needs, and it is
    several times faster than the same arithmetic in numpy (about 3 against 27 ms at 512 px).
    """
    channels = np.asarray(image.convert("HSV"), dtype=np.float32)
    return channels[..., 0] * (360.0 / 256.0), channels[..., 1] / 255.0, channels[..., 2] / 255.0


def family_share(hue: np.ndarray, saturation: np.ndarray, value: np.ndarray, named: Named) -> float:
    """The share of the image in solid patches of ``named``'s family (a pixel and its 8 neighbours all in it)."""
    family = named.family
    inside = np.zeros(hue.shape, dtype=bool)
    for low, high in family.hues:
        inside |= (hue >= low) & (hue < high)
    least = MUTED_SATURATION if named.muted else family.min_saturation
    inside &= saturation >= least
    inside &= (value >= family.value[0]) & (value < family.value[1])
    return float(_solid(inside).mean())


def _solid(mask: np.ndarray) -> np.ndarray:
    """``mask`` eroded by a cross (a pixel stays when its four neighbours are in it too; the border is outside)."""
    solid = np.zeros_like(mask)
    if mask.shape[0] < 3 or mask.shape[1] < 3:
        return solid
    solid[1:-1, 1:-1] = mask[1:-1, 1:-1] & mask[:-2, 1:-1] & mask[2:, 1:-1] & mask[1:-1, :-2] & mask[1:-1, 2:]
    return solid
