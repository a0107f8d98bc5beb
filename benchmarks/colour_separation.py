"""How far legitimate variants and colour-broken outputs land from their known image, per measure.

Run on demand (not a test; a few minutes on one core):

    .venv/bin/python benchmarks/colour_separation.py [--seed 0] [--synthetic 6]

Images: the cookbook's shipped references, scikit-image's bundled colour
photos and synthetic flat-colour drawings with seeded random shapes. Each
gets seeded random *legitimate* variants (JPEG q60-95, a whole-image shift of
1-3 px, brightness +-5..8, a same-aspect resize round trip, a blur of sigma
<= 0.7, the image itself) and *broken* ones (a hue rotation of 30-180
degrees, saturation x0.3 or x1.8, a local recolour of one region, another
image of the set resized to this one). For each measure the script prints the
spread per kind, so a threshold can be placed between them:

* ``mad``: 1 - mean |RGB diff| / 255 after undoing a small whole-image shift (``similarity.score``)
* ``changed``: share of content pixels past deltaE00 10 (``changed_content`` of ``similarity`` / ``ssim``)
* ``ssim``: per-channel SSIM after the same alignment (``ssim.ssim``)
* ``palette``: ``colour.coverage`` of the whole image (of the recoloured box for a local recolour)
"""

from __future__ import annotations

import argparse
import io
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageEnhance, ImageFilter

from pytest_visioneval.graders.colour import DEFAULT_MIN_COVERAGE
from pytest_visioneval.graders.colour_difference import (
    DEFAULT_MAX_CHANGED_CONTENT,
    WORK_SIDE,
    content_difference,
    shifted,
    whole_image_shift,
)
from pytest_visioneval.graders.colour_palette import palette_match
from pytest_visioneval.graders.imaging import downscaled
from pytest_visioneval.graders.ssim import ALIGN_SHARE, mean_ssim

ROOT = Path(__file__).resolve().parent.parent
COOKBOOK = ROOT / "cases" / "cookbook"
REFERENCES = [
    "ui_mockups/login.png",
    "ui_mockups/checkout.png",
    "ui_mockups/settings.png",
    "logo_edits/northwind-teal.png",
    "logo_edits/acme-navy.png",
    "virtual_tryon/striped-tee-result.png",
    "virtual_tryon/green-zip-jacket-result.png",
    "virtual_tryon/logo-sweater-result.png",
    "flyers/book-fair.png",
    "promo_flyers/cocoa-nights.png",
]
PHOTOS = ["astronaut", "coffee", "chelsea", "rocket", "immunohistochemistry", "retina"]

Variant = Callable[[Image.Image, np.random.Generator], tuple[str, Image.Image]]


def load_images(synthetic: int, seed: int) -> dict[str, Image.Image]:
    import skimage.data

    images = {path: Image.open(COOKBOOK / path).convert("RGB") for path in REFERENCES}
    for name in PHOTOS:
        photo = Image.fromarray(getattr(skimage.data, name)()).convert("RGB")
        photo.thumbnail((512, 512))
        images[name] = photo
    rng = np.random.default_rng(seed)
    for index in range(synthetic):
        images[f"synthetic-{index}"] = drawing(rng)
    return images


def drawing(rng: np.random.Generator) -> Image.Image:
    """Flat-colour shapes on a light background, like a logo, a mockup or a flyer."""
    width, height = int(rng.integers(240, 640)), int(rng.integers(240, 640))
    image = Image.new("RGB", (width, height), tuple(int(v) for v in rng.integers(225, 256, 3)))
    draw = ImageDraw.Draw(image)
    for _ in range(int(rng.integers(3, 9))):
        x0, y0 = int(rng.integers(0, width - 40)), int(rng.integers(0, height - 40))
        box = (x0, y0, x0 + int(rng.integers(20, width // 2)), y0 + int(rng.integers(20, height // 2)))
        colour = tuple(int(v) for v in rng.integers(0, 256, 3))
        (draw.ellipse if rng.random() < 0.5 else draw.rectangle)(box, fill=colour)
    return image


def jpeg(image: Image.Image, quality: int) -> Image.Image:
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=quality)
    return Image.open(io.BytesIO(out.getvalue())).convert("RGB")


def shift(image: Image.Image, dy: int, dx: int) -> Image.Image:
    pixels = np.asarray(image)
    pad = max(abs(dy), abs(dx))
    padded = np.pad(pixels, ((pad, pad), (pad, pad), (0, 0)), mode="edge")
    return Image.fromarray(padded[pad - dy : pad - dy + image.height, pad - dx : pad - dx + image.width])


def hue_rotated(image: Image.Image, degrees: float, box: tuple[int, int, int, int] | None = None) -> Image.Image:
    from skimage.color import hsv2rgb, rgb2hsv

    hsv = rgb2hsv(np.asarray(image))
    rotated = hsv.copy()
    rotated[..., 0] = (rotated[..., 0] + degrees / 360.0) % 1.0
    if box is not None:
        x0, y0, x1, y1 = box
        keep = np.ones(hsv.shape[:2], bool)
        keep[y0:y1, x0:x1] = False
        rotated[keep] = hsv[keep]
    return Image.fromarray((hsv2rgb(rotated) * 255).round().astype(np.uint8))


def coloured_box(image: Image.Image, rng: np.random.Generator) -> tuple[int, int, int, int]:
    """A box of a quarter of the image around a random saturated pixel (a recolour of grey is no change)."""
    from skimage.color import rgb2hsv

    hsv = rgb2hsv(np.asarray(image))
    ys, xs = np.nonzero((hsv[..., 1] > 0.3) & (hsv[..., 2] > 0.2))
    width, height = image.size
    if len(ys) == 0:
        ys, xs = np.array([height // 2]), np.array([width // 2])
    pick = int(rng.integers(0, len(ys)))
    x0 = int(np.clip(xs[pick] - width // 4, 0, width - width // 2))
    y0 = int(np.clip(ys[pick] - height // 4, 0, height - height // 2))
    return (x0, y0, x0 + width // 2, y0 + height // 2)


def legit_variants(image: Image.Image, rng: np.random.Generator) -> list[tuple[str, Image.Image]]:
    q = int(rng.integers(60, 96))
    dy, dx = (int(v) * int(rng.choice([-1, 1])) for v in rng.integers(1, 4, 2))
    brightness = float(rng.uniform(5, 8)) * float(rng.choice([-1, 1]))
    scale = float(rng.uniform(0.5, 0.9))
    small = image.resize((max(1, round(image.width * scale)), max(1, round(image.height * scale))), Image.Resampling.BICUBIC)
    sigma = float(rng.uniform(0.3, 0.7))
    lifted = np.clip(np.asarray(image, np.float32) + brightness, 0, 255).astype(np.uint8)
    return [
        ("itself", image),
        (f"jpeg_q{q}", jpeg(image, q)),
        (f"shift_{dy}_{dx}", shift(image, dy, dx)),
        (f"brightness_{brightness:+.1f}", Image.fromarray(lifted)),
        (f"resize_{scale:.2f}", small.resize(image.size, Image.Resampling.BICUBIC)),
        (f"blur_{sigma:.2f}", image.filter(ImageFilter.GaussianBlur(sigma))),
    ]


def broken_variants(
    name: str, image: Image.Image, others: dict[str, Image.Image], rng: np.random.Generator, first: bool
) -> list[tuple[str, Image.Image, tuple[int, int, int, int] | None]]:
    """Seeded random broken variants; with ``first`` also the fixed ones (hue 30 and 180, saturation)."""
    degrees = float(rng.uniform(30, 180))
    box = coloured_box(image, rng)
    other = str(rng.choice(sorted(n for n in others if n != name)))
    fixed = [
        ("hue_30", hue_rotated(image, 30), None),
        ("hue_180", hue_rotated(image, 180), None),
        ("desaturated_0.3", ImageEnhance.Color(image).enhance(0.3), None),
        ("saturated_1.8", ImageEnhance.Color(image).enhance(1.8), None),
    ]
    return (fixed if first else []) + [
        (f"hue_{degrees:.0f}", hue_rotated(image, degrees), None),
        (f"local_hue_{degrees:.0f}", hue_rotated(image, degrees, box), box),
        (f"other:{other}", others[other].resize(image.size, Image.Resampling.BILINEAR), None),
    ]


def measure(image: Image.Image, variant: Image.Image, box: tuple[int, int, int, int] | None) -> dict[str, float]:
    target = np.asarray(image, np.float32)
    pixels = np.asarray(variant.convert("RGB"), np.float32)
    # As the graders do: a whole-image shift of up to 2% of the longer side is undone first.
    pixels = shifted(pixels, *whole_image_shift(pixels, target, ALIGN_SHARE))
    difference = content_difference(variant, image)
    # The colour grader's way: both images at the working size, the area scaled with them.
    small_target, small = downscaled(image, WORK_SIDE), downscaled(variant.resize(image.size), WORK_SIDE)
    region = np.zeros(target.shape[:2], np.uint8)
    x0, y0, x1, y1 = box or (0, 0, image.width, image.height)
    region[y0:y1, x0:x1] = 255
    area = np.asarray(Image.fromarray(region).resize(small.shape[1::-1], Image.Resampling.NEAREST)) > 0
    palette = palette_match(small, area, small_target, area)
    return {
        "mad": 1 - float(np.abs(pixels - target).mean()) / 255,
        "changed": difference.changed,
        "mean_dE": difference.mean_delta_e,
        "ssim": mean_ssim(pixels, target) if min(image.size) >= 11 else 1.0,
        "palette": palette.coverage,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--synthetic", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=2, help="random draws of each variant kind per image")
    args = parser.parse_args()
    images = load_images(args.synthetic, args.seed)
    rng = np.random.default_rng(args.seed + 1)
    rows: dict[str, list[dict[str, float]]] = defaultdict(list)
    worst: dict[tuple[str, str], tuple[float, str]] = {}
    details: list[tuple[str, str, dict[str, float]]] = []
    started = time.perf_counter()
    for name, image in images.items():
        for repeat in range(args.repeats):
            for label, variant in legit_variants(image, rng):
                kind = "legit:" + label.split("_")[0]
                values = measure(image, variant, None)
                rows[kind].append(values)
                for key, value in values.items():
                    bad = -value if key in ("mad", "ssim", "palette") else value
                    if (kind, key) not in worst or bad > worst[kind, key][0]:
                        worst[kind, key] = (bad, f"{name} {label}")
            for label, variant, box in broken_variants(name, image, images, rng, repeat == 0):
                kind = "broken:" + label.split("_")[0].split(":")[0] + ("_30" if label == "hue_30" else "")
                kind += "_180" if label == "hue_180" else ""
                values = measure(image, variant, box)
                rows[kind].append(values)
                details.append((name, label, values))
    elapsed = time.perf_counter() - started
    keys = ["mad", "changed", "mean_dE", "ssim", "palette"]
    print(f"{len(images)} images, {sum(len(v) for v in rows.values())} comparisons in {elapsed:.1f} s")
    print(f"{'kind':<22}" + "".join(f"{k:>18}" for k in keys) + "   (min..max)")
    for kind in sorted(rows):
        cells = []
        for key in keys:
            values = [r[key] for r in rows[kind]]
            cells.append(f"{min(values):>8.3f}..{max(values):<8.3f}")
        print(f"{kind:<22}" + "".join(f"{c:>18}" for c in cells) + f"   n={len(rows[kind])}")
    print("\nshare past the defaults (changed_content > 0.08; colour coverage < 0.8):")
    for kind in sorted(rows):
        changed = np.mean([r["changed"] > DEFAULT_MAX_CHANGED_CONTENT for r in rows[kind]])
        palette = np.mean([r["palette"] < DEFAULT_MIN_COVERAGE for r in rows[kind]])
        print(f"  {kind:<22} changed {changed:6.1%}   coverage {palette:6.1%}")
    print("\nborderline broken cases (changed < 0.2 or palette > 0.7):")
    for name, label, values in details:
        if values["changed"] < 0.2 or values["palette"] > 0.7:
            print(f"  {name:<40} {label:<28} changed {values['changed']:.3f} palette {values['palette']:.3f}")
    print("\nworst legitimate case per measure:")
    for (kind, key), (_, where) in sorted(worst.items()):
        if key in ("changed", "palette"):
            print(f"  {kind:<20} {key:<8} {where}")


if __name__ == "__main__":
    main()
