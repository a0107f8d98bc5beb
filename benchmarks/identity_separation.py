"""How far new pictures of one product and transformed copies land, for ``distinct_images``' transformed-copy test.

Run on demand (not a test; a few minutes on one core):

    .venv/bin/python benchmarks/identity_separation.py [--seed 0]

Pictures: scikit-image's bundled colour photos and the shipped ProductWebGen
pictures (each product's source photo and a showcase). Each gets *broken*
variants - mirrored, flipped, turned 90 / 180 / 270 degrees, hue turned 30 /
90 / 180 degrees (HSV) and 120 degrees (CIELAB), grey, brighter x1.3,
contrast x0.7, saturation x0.5, JPEG q60, half size, six crops of seeded
random area (35-90%) and aspect (sides differing by up to e^0.5) at seeded
places scaled back, a mirrored crop, a hue turn then a mirror, and three
combinations of a crop with greying, hue turns, brightening, JPEG and turns.
*Legitimate* pairs: every ordered pair of one product's pictures (source and
four showcases: other angle, pose, background, zoom) and of different photos.
The score is :func:`~pytest_visioneval.graders.same_picture.best_match`'s
share (R squared); prints the lowest broken and highest legitimate scores and
the catch rate per threshold, at the grader's defaults, and per kind.
"""

from __future__ import annotations

import argparse
import io
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image, ImageEnhance, ImageOps

from pytest_visioneval.graders.same_picture import best_match, thumbnail

REFS = Path(__file__).resolve().parents[1] / "cases" / "productwebgen" / "refs"
THRESHOLD, CROP_THRESHOLD = 0.95, 0.98  # distinct_images' same_explained and same_explained_crop
PHOTOS = ("astronaut", "coffee", "chelsea", "rocket", "hubble_deep_field", "immunohistochemistry")


def jpeg(image: Image.Image, quality: int) -> Image.Image:
    out = io.BytesIO()
    image.convert("RGB").save(out, "JPEG", quality=quality)
    return Image.open(io.BytesIO(out.getvalue())).convert("RGB")


def hue_turned(image: Image.Image, degrees: int) -> Image.Image:
    hue, saturation, value = image.convert("HSV").split()
    turn = round(degrees * 256 / 360)
    return Image.merge("HSV", (hue.point(lambda h: (h + turn) % 256), saturation, value)).convert("RGB")


def lab_hue_turned(image: Image.Image, degrees: int) -> Image.Image:
    """The hue turned in CIELAB (the a*, b* plane rotated), as a colour editor's hue slider may do it."""
    from skimage.color import lab2rgb, rgb2lab

    lab = rgb2lab(np.asarray(image.convert("RGB")) / 255)
    chroma = (lab[..., 1] + 1j * lab[..., 2]) * np.exp(1j * np.radians(degrees))
    lab[..., 1], lab[..., 2] = chroma.real, chroma.imag
    return Image.fromarray((np.clip(lab2rgb(lab), 0, 1) * 255).round().astype(np.uint8))


def cropped(image: Image.Image, side_x: float, side_y: float, at_x: float, at_y: float) -> Image.Image:
    width, height = round(image.width * side_x), round(image.height * side_y)
    left, top = round((image.width - width) * at_x), round((image.height - height) * at_y)
    return image.crop((left, top, left + width, top + height)).resize(image.size)


def broken_variants(image: Image.Image, rng: np.random.Generator) -> dict[str, Image.Image]:
    fixed: dict[str, Callable[[Image.Image], Image.Image]] = {
        "mirrored": ImageOps.mirror,
        "flipped": ImageOps.flip,
        "turned 90": lambda im: im.rotate(90, expand=True),
        "turned 180": lambda im: im.rotate(180),
        "turned 270": lambda im: im.rotate(270, expand=True),
        "hue 30": lambda im: hue_turned(im, 30),
        "hue 90": lambda im: hue_turned(im, 90),
        "hue 180": lambda im: hue_turned(im, 180),
        "grey": lambda im: ImageOps.grayscale(im).convert("RGB"),
        "brighter x1.3": lambda im: ImageEnhance.Brightness(im).enhance(1.3),
        "contrast x0.7": lambda im: ImageEnhance.Contrast(im).enhance(0.7),
        "saturation x0.5": lambda im: ImageEnhance.Color(im).enhance(0.5),
        "jpeg q60": lambda im: jpeg(im, 60),
        "half size": lambda im: im.resize((im.width // 2, im.height // 2)),
        "mirrored crop 80%": lambda im: cropped(ImageOps.mirror(im), 0.8, 0.8, 0.3, 0.6),
        "hue 60 + mirrored": lambda im: ImageOps.mirror(hue_turned(im, 60)),
        "lab hue 120": lambda im: lab_hue_turned(im, 120),
        "grey crop 70% + turned 90": lambda im: cropped(ImageOps.grayscale(im).convert("RGB"), 0.7, 0.7, 0.1, 0.4).rotate(90),
        "hue 150 crop 75% x 65% + flipped": lambda im: ImageOps.flip(cropped(hue_turned(im, 150), 0.75, 0.65, 0.9, 0.2)),
        "brighter x1.2 crop 60% x 90% + jpeg": lambda im: jpeg(
            cropped(ImageEnhance.Brightness(im).enhance(1.2), 0.6, 0.9, 0.5, 0.5), 70
        ),
    }
    variants = {name: make(image) for name, make in fixed.items()}
    for _ in range(6):
        # the area kept, 35-90%, split between the sides by a random aspect ratio
        area, stretch = rng.uniform(0.35, 0.9), np.exp(rng.uniform(-0.5, 0.5))
        side_x = min(np.sqrt(area * stretch), 1.0)
        side_y = min(area / side_x, 1.0)
        variants[f"crop {side_x:.2f} x {side_y:.2f}"] = cropped(image, side_x, side_y, *rng.uniform(0, 1, 2))
    return variants


def main() -> None:
    import skimage.data

    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dump", type=Path, help="also write every score to this file, one tab-separated row each")
    arguments = parser.parse_args()
    rng = np.random.default_rng(arguments.seed)
    photos = {name: Image.fromarray(getattr(skimage.data, name)()).convert("RGB") for name in PHOTOS}
    products = {
        folder.name: [Image.open(p).convert("RGB") for p in sorted(folder.glob("*.png"))] for folder in sorted(REFS.iterdir())
    }
    originals = dict(photos)
    for product, pictures in products.items():
        originals[f"{product}/first"] = pictures[0]
        originals[f"{product}/third"] = pictures[2]

    broken: list[tuple[float, str, str, str]] = []
    for name, image in originals.items():
        seen = thumbnail(image)
        for kind, variant in broken_variants(image, rng).items():
            match = best_match(seen, thumbnail(variant))
            broken.append((match.share, name, kind, match.how))
    legitimate: list[tuple[float, str, str, str]] = []
    for product, pictures in products.items():
        seen = [thumbnail(p) for p in pictures]
        for i, first in enumerate(seen):
            for j, second in enumerate(seen):
                if i != j:
                    match = best_match(first, second)
                    legitimate.append((match.share, product, f"{i}->{j}", match.how))
    photo_seen = {name: thumbnail(image) for name, image in photos.items()}
    for first in photo_seen:
        for second in photo_seen:
            if first != second:
                match = best_match(photo_seen[first], photo_seen[second])
                legitimate.append((match.share, first, second, match.how))

    broken.sort()
    legitimate.sort(reverse=True)
    if arguments.dump:
        rows = [("broken", *row) for row in broken] + [("legitimate", *row) for row in legitimate]
        arguments.dump.write_text("".join("\t".join(map(str, row)) + "\n" for row in rows))
    print("lowest broken:")
    for share, name, kind, how in broken[:10]:
        print(f"  {share:.3f}  {name}  {kind}  (best: {how})")
    print("highest legitimate:")
    for share, name, pair, how in legitimate[:10]:
        print(f"  {share:.3f}  {name}  {pair}  (best: {how})")
    for threshold in (0.9, 0.93, 0.95, 0.97):
        caught = sum(share >= threshold for share, *_ in broken)
        flagged = sum(share >= threshold for share, *_ in legitimate)
        print(
            f"threshold {threshold}: broken caught {caught}/{len(broken)}, legitimate pairs flagged {flagged}/{len(legitimate)}"
        )

    def judged_same(share: float, how: str) -> bool:  # distinct_images' defaults: crops must be explained better
        return share >= (CROP_THRESHOLD if "cropped to" in how else THRESHOLD)

    caught = sum(judged_same(share, how) for share, _, _, how in broken)
    flagged = sum(judged_same(share, how) for share, _, _, how in legitimate)
    print(f"grader defaults ({THRESHOLD}, crops {CROP_THRESHOLD}): broken caught {caught}/{len(broken)}, ", end="")
    print(f"legitimate pairs flagged {flagged}/{len(legitimate)}")
    kinds, caught_kinds = Counter(), Counter()
    for share, _, kind, how in broken:
        key = "random crop" if kind.startswith("crop ") else kind
        kinds[key] += 1
        caught_kinds[key] += judged_same(share, how)
    print("caught at the grader defaults per kind:", ", ".join(f"{k} {caught_kinds[k]}/{n}" for k, n in kinds.items()))


if __name__ == "__main__":
    main()
