"""How much of an image shows its named colour (``colour`` option ``shows``), for legitimate and broken variants.

Run on demand (not a test; a minute on one core):

    .venv/bin/python benchmarks/colour_shown_separation.py [--seed 0] [--synthetic 12]

Images: the shipped flyers and promo flyers with the colour of their band or
strips (amber, green, blue, brown), and seeded synthetic flyers: a light
paper, a band of a random hue, chroma and lightness over 4-15% of the canvas,
dark text-like bars. Each gets seeded random *legitimate* variants (JPEG
q60-95, a shift of 1-3 px, brightness +-5..8, a resize round trip 0.5-0.9, a
blur of sigma <= 0.7) and *broken* ones (every hue turned by 30-180 degrees
as the self-test does, saturation x0-0.3 or x2.2-3.0, the named colour
alone repainted in another hue). Prints each variant's share of the named colour
(within deltaE00 ``max_delta_e``) and the spread per kind.
"""

from __future__ import annotations

import argparse
import io
from collections import defaultdict
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageEnhance, ImageFilter

from pytest_visioneval.graders.colour import DEFAULT_MIN_SHARE
from pytest_visioneval.graders.colour_difference import WORK_SIDE
from pytest_visioneval.graders.colour_palette import DEFAULT_MAX_DELTA_E, area_samples, palette_of
from pytest_visioneval.graders.colour_shown import shown
from pytest_visioneval.graders.imaging import downscaled
from pytest_visioneval.mutants.photometric import hue_rotated

COOKBOOK = Path(__file__).resolve().parent.parent / "cases" / "cookbook"
SHIPPED = {
    "flyers/book-fair.png": "#b45309",  # amber band
    "flyers/farmers-market.png": "#15803d",  # green band
    "promo_flyers/bike-repair.png": "#286ea0",  # blue strips
    "promo_flyers/cocoa-nights.png": "#965a32",  # brown strips
}


def hsv_colour(hue: float, saturation: float, value: float) -> tuple[int, int, int]:
    pixel = Image.new("HSV", (1, 1), (int(hue * 255), int(saturation * 255), int(value * 255))).convert("RGB")
    return pixel.getpixel((0, 0))  # type: ignore[return-value]


def synthetic(rng: np.random.Generator) -> tuple[Image.Image, str]:
    """A light flyer with a band of a random colour, and that colour."""
    width, height = 600, 800
    image = Image.new("RGB", (width, height), tuple(int(v) for v in rng.integers(240, 256, 3)))
    colour = hsv_colour(rng.uniform(0, 1), rng.uniform(0.45, 1.0), rng.uniform(0.35, 0.95))
    band_h = int(height * rng.uniform(0.04, 0.15))
    top = int(rng.choice([0, height - band_h, int(rng.integers(0, height - band_h))]))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, top, width, top + band_h), fill=colour)
    for row in range(120, 700, 60):
        if not top - 20 < row < top + band_h:
            draw.rectangle((40, row, 40 + int(rng.integers(120, 500)), row + 12), fill=(30, 30, 30))
    return image, "#{:02x}{:02x}{:02x}".format(*colour)


def jpeg(image: Image.Image, quality: int) -> Image.Image:
    out = io.BytesIO()
    image.save(out, "JPEG", quality=quality)
    return Image.open(io.BytesIO(out.getvalue())).convert("RGB")


def levels(image: Image.Image, by: int) -> Image.Image:
    return Image.fromarray(np.clip(np.asarray(image, dtype=np.int16) + by, 0, 255).astype(np.uint8))


def repainted(image: Image.Image, colour: str, rng: np.random.Generator) -> Image.Image:
    """Every pixel near the named colour (RGB distance < 60: the band, the strips, a rule) turned by 60-180 degrees."""
    pixels = np.asarray(image)
    named = np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)])
    near = np.abs(pixels.astype(np.int16) - named).max(axis=2) < 60
    turned = np.asarray(hue_rotated(image, int(rng.integers(60, 181)) * int(rng.choice([-1, 1]))))
    return Image.fromarray(np.where(near[..., None], turned, pixels))


def variants(image: Image.Image, colour: str, rng: np.random.Generator) -> list[tuple[str, Image.Image]]:
    width, height = image.size
    scale = float(rng.uniform(0.5, 0.9))
    small = image.resize((round(width * scale), round(height * scale)), Image.Resampling.LANCZOS)
    found = [
        ("legit: itself", image),
        ("legit: JPEG q60-95", jpeg(image, int(rng.integers(60, 96)))),
        ("legit: shifted 1-3 px", Image.fromarray(np.roll(np.asarray(image), int(rng.integers(1, 4)), axis=1))),
        ("legit: brightness +-5..8", levels(image, int(rng.integers(5, 9)) * int(rng.choice([-1, 1])))),
        ("legit: resize round trip 0.5-0.9", small.resize(image.size, Image.Resampling.LANCZOS)),
        ("legit: blur sigma <= 0.7", image.filter(ImageFilter.GaussianBlur(float(rng.uniform(0.3, 0.7))))),
        ("broken: hue turned 30-180 deg", hue_rotated(image, int(rng.integers(30, 181)) * int(rng.choice([-1, 1])))),
        ("broken: saturation x0-0.3", ImageEnhance.Color(image).enhance(float(rng.uniform(0.0, 0.3)))),
        ("broken: saturation x2.2-3.0", ImageEnhance.Color(image).enhance(float(rng.uniform(2.2, 3.0)))),
        ("broken: named colour repainted 60-180 deg", repainted(image, colour, rng)),
    ]
    return found


def share(image: Image.Image, colour: str) -> float:
    pixels = downscaled(image, WORK_SIDE)
    area = np.ones(pixels.shape[:2], bool)
    return shown(palette_of(area_samples(pixels, area)), [colour], DEFAULT_MAX_DELTA_E)[0].share


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--synthetic", type=int, default=12)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    images = [(name, Image.open(COOKBOOK / name).convert("RGB"), colour) for name, colour in SHIPPED.items()]
    for index in range(args.synthetic):
        image, colour = synthetic(rng)
        images.append((f"synthetic #{index}", image, colour))
    spread: dict[str, list[float]] = defaultdict(list)
    for name, image, colour in images:
        for kind, variant in variants(image, colour, rng):
            value = share(variant, colour)
            spread[kind].append(value)
            print(f"{name:32s} {colour} {kind:36s} {value:.3f}")
    print(f"\nshare of the named colour (deltaE00 <= {DEFAULT_MAX_DELTA_E:g}); the gate needs {DEFAULT_MIN_SHARE:g}")
    for kind, values in spread.items():
        below = sum(v < DEFAULT_MIN_SHARE for v in values)
        print(f"{kind:36s} n={len(values):3d}  {min(values):.3f}..{max(values):.3f}  below the limit: {below}")


if __name__ == "__main__":
    main()
