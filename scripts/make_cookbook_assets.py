"""Draw the images of the cookbook protocol's example suites with Pillow.

``python scripts/make_cookbook_assets.py`` writes, under ``cases/cookbook/``:

* ``virtual_tryon/``: per case a person, a garment (flat lay), the edit mask
  (transparent over the upper body, where the garment goes) and the try-on
  result, which repaints only the masked area - so the locality gate holds
  on the reference;
* ``promo_flyers/``: flyers showing exactly their required copy, so the
  strict text check (nothing missing, nothing extra) passes on them.

Deterministic: re-running it rewrites identical files.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parent.parent / "cases" / "cookbook"
SIZE = (256, 384)
RGB = tuple[int, int, int]


def save(image: Image.Image, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path, format="PNG", optimize=True)


# -- virtual try-on ----------------------------------------------------------
@dataclass(frozen=True)
class Person:
    skin: RGB
    hair: RGB
    shirt: RGB  # what they wear before the try-on
    trousers: RGB
    backdrop: RGB
    shoulder: int  # half the shoulder width, px


@dataclass(frozen=True)
class Garment:
    base: RGB
    accent: RGB
    pattern: str  # "stripes", "pocket" or "logo"


def upper_body(p: Person) -> list[tuple[int, int]]:
    """The outline of a short-sleeved top on the person (also the garment's shape when worn)."""
    cx, s = 128, p.shoulder
    return [
        (cx - s, 120),
        (cx - s - 30, 150),
        (cx - s - 18, 178),
        (cx - s + 6, 166),
        (cx - s + 10, 250),
        (cx + s - 10, 250),
        (cx + s - 6, 166),
        (cx + s + 18, 178),
        (cx + s + 30, 150),
        (cx + s, 120),
        (cx + 14, 112),
        (cx - 14, 112),
    ]


def person(p: Person, top: Image.Image | None = None) -> Image.Image:
    """A standing figure; ``top`` (an RGB image of SIZE) is worn instead of the plain shirt."""
    img = Image.new("RGB", SIZE, p.backdrop)
    d = ImageDraw.Draw(img)
    d.rectangle((0, 330, 256, 384), fill=(205, 200, 190))  # floor
    cx, s = 128, p.shoulder
    # arms below the sleeves, legs, shoes
    d.rectangle((cx - s - 20, 170, cx - s - 4, 250), fill=p.skin)
    d.rectangle((cx + s + 4, 170, cx + s + 20, 250), fill=p.skin)
    d.rectangle((cx - s + 12, 245, cx - 4, 330), fill=p.trousers)
    d.rectangle((cx + 4, 245, cx + s - 12, 330), fill=p.trousers)
    d.rectangle((cx - s + 8, 326, cx - 2, 340), fill=(40, 40, 40))
    d.rectangle((cx + 2, 326, cx + s - 8, 340), fill=(40, 40, 40))
    # neck and head
    d.rectangle((cx - 10, 95, cx + 10, 120), fill=p.skin)
    d.ellipse((cx - 30, 36, cx + 30, 104), fill=p.skin)
    d.chord((cx - 32, 30, cx + 32, 80), 180, 360, fill=p.hair)
    d.ellipse((cx - 16, 64, cx - 8, 72), fill=(30, 30, 30))
    d.ellipse((cx + 8, 64, cx + 16, 72), fill=(30, 30, 30))
    d.arc((cx - 12, 76, cx + 12, 92), 20, 160, fill=(120, 40, 40), width=3)
    shape = upper_body(p)
    if top is None:
        d.polygon(shape, fill=p.shirt)
    else:
        cut = Image.new("L", SIZE, 0)
        ImageDraw.Draw(cut).polygon(shape, fill=255)
        img.paste(top, (0, 0), cut)
    return img


def pattern_fill(g: Garment, size: tuple[int, int], origin: tuple[int, int]) -> Image.Image:
    """The garment's fabric over ``size``, with its motif placed relative to ``origin`` (the chest)."""
    img = Image.new("RGB", size, g.base)
    d = ImageDraw.Draw(img)
    ox, oy = origin
    if g.pattern == "stripes":
        for y in range(0, size[1], 16):
            d.rectangle((0, y, size[0], y + 6), fill=g.accent)
    elif g.pattern == "pocket":
        d.rectangle((ox + 8, oy + 30, ox + 34, oy + 58), outline=g.accent, width=3)
        d.line((ox, oy, ox, oy + 140), fill=g.accent, width=3)  # the zip
    else:  # logo
        d.ellipse((ox - 22, oy + 24, ox + 22, oy + 68), fill=g.accent)
        d.polygon([(ox, oy + 32), (ox + 14, oy + 60), (ox - 14, oy + 60)], fill=g.base)
    return img


def garment(g: Garment) -> Image.Image:
    """The garment laid flat on a light background."""
    img = Image.new("RGB", (256, 256), (244, 244, 240))
    outline = [(78, 40), (40, 72), (56, 108), (80, 96), (82, 220), (174, 220), (176, 96), (200, 108), (216, 72), (178, 40)]
    outline += [(150, 34), (106, 34)]
    cut = Image.new("L", img.size, 0)
    ImageDraw.Draw(cut).polygon(outline, fill=255)
    img.paste(pattern_fill(g, img.size, (128, 40)), (0, 0), cut)
    return img


def tryon_mask(p: Person) -> Image.Image:
    """RGBA: transparent (editable) over the upper body with a small margin, opaque elsewhere."""
    mask = Image.new("RGBA", SIZE, (0, 0, 0, 255))
    cx, s = 128, p.shoulder
    ImageDraw.Draw(mask).rectangle((cx - s - 34, 106, cx + s + 34, 254), fill=(0, 0, 0, 0))
    return mask


TRYON = {
    "striped-tee": (
        Person((224, 180, 150), (60, 40, 30), (245, 245, 245), (40, 60, 110), (214, 226, 240), 44),
        Garment((200, 30, 45), (250, 250, 250), "stripes"),
    ),
    "green-zip-jacket": (
        Person((150, 100, 70), (20, 20, 20), (120, 120, 120), (60, 50, 40), (236, 228, 214), 48),
        Garment((34, 120, 70), (230, 200, 60), "pocket"),
    ),
    "logo-sweater": (
        Person((240, 205, 180), (190, 120, 50), (90, 140, 200), (30, 30, 30), (226, 236, 222), 42),
        Garment((250, 200, 40), (30, 60, 140), "logo"),
    ),
}


def make_tryon() -> None:
    folder = ROOT / "virtual_tryon"
    for name, (p, g) in TRYON.items():
        save(person(p), folder / f"{name}-person.png")
        save(garment(g), folder / f"{name}-garment.png")
        save(tryon_mask(p), folder / f"{name}-mask.png")
        save(person(p, top=pattern_fill(g, SIZE, (128, 112))), folder / f"{name}-result.png")


# -- flyers with exactly their required copy ----------------------------------
def flyer(lines: list[str], accent: RGB) -> Image.Image:
    """Dark text on a light card, one required line per row; the first line is the headline."""
    big = ImageFont.load_default(size=44)
    body = ImageFont.load_default(size=30)
    # 640x960: the 2:3 portrait of the suite's requested size (1024x1536), as a model would return it.
    img = Image.new("RGB", (640, 960), (250, 247, 240))
    d = ImageDraw.Draw(img)
    d.rectangle((0, 0, 640, 24), fill=accent)
    d.rectangle((0, 936, 640, 960), fill=accent)
    y = 90
    for index, line in enumerate(lines):
        font = big if index == 0 else body
        width = d.textlength(line, font=font)
        d.text(((640 - width) / 2, y), line, font=font, fill=(30, 30, 36))
        y += 150 if index == 0 else 110
    return img


FLYERS = {
    "cocoa-nights": (["HOT COCOA NIGHTS", "Maple Marshmallow Cocoa", "Half price after 6pm", "Open until 10pm"], (150, 90, 50)),
    "bike-repair": (["FREE BIKE CHECK", "Every Saturday", "Bring your bike", "Town Square"], (40, 110, 160)),
}


def make_flyers() -> None:
    for name, (lines, accent) in FLYERS.items():
        save(flyer(lines, accent), ROOT / "promo_flyers" / f"{name}.png")


def main() -> None:
    make_tryon()
    make_flyers()


if __name__ == "__main__":
    main()
