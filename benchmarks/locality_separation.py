"""How far legitimate re-renders and locally broken edits land on the `locality` grader's measures.

Run on demand (not a test; a minute or two on one core):

    .venv/bin/python benchmarks/locality_separation.py [--seed 0] [--variants 4] [--synthetic 4]

Inputs: scikit-image's bundled photos, the cookbook's logo and try-on inputs
(with their masks) and synthetic drawings with seeded random shapes and text;
each photo or drawing gets a seeded random editable box. The "known good
output" is the input with its editable area recoloured. Each gets seeded
random *legitimate* variants (JPEG q60-95, a whole-image shift of up to 4 px,
brightness +-5..8, gain +-3%, a same-aspect resize round trip, a blur of sigma
<= 0.7, and pairs of these) and *broken* ones, outside the editable area at a
random place: a changed letter, a face-like change (eyes and mouth), a small
object added, a local recolour, 3x3 specks over 3% of the outside, the whole
image darkened or brightened by 20, a whole-image shift of 8-12 px, Gaussian
noise of sigma 8-40 over the whole picture.

Prints, per kind, the spread of each measure and which outputs the default
gates pass, then the separation per criterion (worst legit vs weakest broken)
and the time of one comparison at 1024 px.
"""

from __future__ import annotations

import argparse
import io
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from pytest_visioneval.graders.locality import (
    DEFAULT_MAX_CHANGED_OUTSIDE,
    DEFAULT_MAX_FAINT_CHANGE_OUTSIDE,
    DEFAULT_MAX_GRAIN,
    DEFAULT_MAX_LARGEST_CHANGE_OUTSIDE,
    DEFAULT_MAX_SHIFT,
    DEFAULT_MAX_TONE_CHANGE,
    Measured,
    editable_pixels,
    measure,
)

ROOT = Path(__file__).resolve().parent.parent
COOKBOOK = ROOT / "cases" / "cookbook"
COOKBOOK_INPUTS = [
    ("logo_edits/northwind.png", "logo_edits/circle-mask.png"),
    ("logo_edits/acme.png", "logo_edits/circle-mask.png"),
    ("virtual_tryon/striped-tee-person.png", "virtual_tryon/striped-tee-mask.png"),
    ("virtual_tryon/green-zip-jacket-person.png", "virtual_tryon/green-zip-jacket-mask.png"),
    ("virtual_tryon/logo-sweater-person.png", "virtual_tryon/logo-sweater-mask.png"),
]
PHOTOS = ["astronaut", "coffee", "chelsea", "rocket", "camera", "immunohistochemistry"]

Array = np.ndarray
Variant = Callable[[Array, Array, np.random.Generator], Array]  # (good output, editable, rng) -> output


# -- inputs -----------------------------------------------------------------------
def inputs(rng: np.random.Generator, synthetic: int) -> list[tuple[str, Array, Array]]:
    """(name, RGB input 0-255, editable map) for every input of the benchmark."""
    from skimage import data

    found = []
    for path, mask in COOKBOOK_INPUTS:
        image = np.asarray(Image.open(COOKBOOK / path).convert("RGB"), dtype=np.float32)
        editable, _ = editable_pixels(Image.open(COOKBOOK / mask), None)
        found.append((Path(path).stem, image, editable))
    for name in PHOTOS:
        photo = getattr(data, name)()
        photo = np.stack([photo] * 3, axis=2) if photo.ndim == 2 else photo[..., :3]
        image = np.asarray(Image.fromarray(photo).resize((512, round(512 * photo.shape[0] / photo.shape[1]))), np.float32)
        found.append((name, image, random_box(image.shape, rng)))
    for index in range(synthetic):
        image = drawing(rng)
        found.append((f"drawing-{index}", image, random_box(image.shape, rng)))
    return found


def random_box(shape: tuple[int, ...], rng: np.random.Generator) -> Array:
    height, width = shape[:2]
    w, h = int(width * rng.uniform(0.2, 0.5)), int(height * rng.uniform(0.2, 0.5))
    x, y = int(rng.integers(0, width - w)), int(rng.integers(0, height - h))
    editable = np.zeros((height, width), dtype=bool)
    editable[y : y + h, x : x + w] = True
    return editable


def drawing(rng: np.random.Generator) -> Array:
    """A flat-colour drawing: a random background, shapes and a line of text."""
    size = (int(rng.integers(256, 640)), int(rng.integers(256, 640)))
    image = Image.new("RGB", size, tuple(int(v) for v in rng.integers(0, 256, 3)))
    draw = ImageDraw.Draw(image)
    for _ in range(int(rng.integers(3, 9))):
        x0, y0 = int(rng.integers(0, size[0] - 20)), int(rng.integers(0, size[1] - 20))
        x1, y1 = x0 + int(rng.integers(15, size[0] // 3)), y0 + int(rng.integers(15, size[1] // 3))
        colour = tuple(int(v) for v in rng.integers(0, 256, 3))
        (draw.ellipse if rng.random() < 0.5 else draw.rectangle)((x0, y0, x1, y1), fill=colour)
    font = ImageFont.load_default(size=max(10, size[1] // 24))
    draw.text((10, size[1] - size[1] // 10), "SAMPLE WORD MARK 2026", fill=(20, 20, 20), font=font)
    return np.asarray(image, dtype=np.float32)


def known_good(image: Array, editable: Array) -> Array:
    """The input with its editable area recoloured (channels rotated): an edit confined to the area."""
    return np.where(editable[..., None], image[..., [2, 0, 1]], image)


# -- variants ------------------------------------------------------------------------
def encoded(pixels: Array, quality: int) -> Array:
    out = io.BytesIO()
    Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)).save(out, "JPEG", quality=quality)
    return np.asarray(Image.open(out).convert("RGB"), dtype=np.float32)


def moved(pixels: Array, dx: float, dy: float) -> Array:
    from scipy import ndimage

    return np.asarray(ndimage.shift(pixels, (dy, dx, 0), order=1, mode="nearest"), dtype=np.float32)


def round_trip(pixels: Array, scale: float) -> Array:
    image = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
    small = image.resize((round(image.width * scale), round(image.height * scale)), Image.Resampling.LANCZOS)
    return np.asarray(small.resize(image.size, Image.Resampling.BICUBIC), dtype=np.float32)


def blurred(pixels: Array, sigma: float) -> Array:
    from scipy import ndimage

    return np.asarray(ndimage.gaussian_filter(pixels, (sigma, sigma, 0)), dtype=np.float32)


def jpeg_v(p: Array, e: Array, r: np.random.Generator) -> Array:
    return encoded(p, int(r.integers(60, 96)))


def shift_v(p: Array, e: Array, r: np.random.Generator) -> Array:
    return moved(p, *(r.uniform(-4, 4, 2) * 0.7))


def brightness_v(p: Array, e: Array, r: np.random.Generator) -> Array:
    return np.clip(p + r.choice([-1, 1]) * r.uniform(5, 8), 0, 255)


def gain_v(p: Array, e: Array, r: np.random.Generator) -> Array:
    return np.clip(p * r.uniform(0.97, 1.03, 3), 0, 255)


def resize_v(p: Array, e: Array, r: np.random.Generator) -> Array:
    return round_trip(p, r.uniform(0.6, 0.9))


def blur_v(p: Array, e: Array, r: np.random.Generator) -> Array:
    return blurred(p, r.uniform(0.3, 0.7))


def pair_v(p: Array, e: Array, r: np.random.Generator) -> Array:
    first, second = r.choice(len(SINGLE_LEGIT), 2, replace=False)
    return SINGLE_LEGIT[first][1](SINGLE_LEGIT[second][1](p, e, r), e, r)


SINGLE_LEGIT: list[tuple[str, Variant]] = [
    ("jpeg", jpeg_v),
    ("shift", shift_v),
    ("brightness", brightness_v),
    ("gain", gain_v),
    ("resize", resize_v),
    ("blur", blur_v),
]
LEGIT: list[tuple[str, Variant]] = [*SINGLE_LEGIT, ("pair", pair_v)]


def outside_spot(editable: Array, size: tuple[int, int], r: np.random.Generator) -> tuple[int, int]:
    """Top-left corner of a ``size`` (w, h) box lying wholly outside the editable area."""
    height, width = editable.shape
    for _ in range(500):
        x, y = int(r.integers(4, width - size[0] - 4)), int(r.integers(4, height - size[1] - 4))
        if not editable[y : y + size[1], x : x + size[0]].any():
            return x, y
    raise RuntimeError("no room outside the editable area")


def contrasting(pixels: Array, x: int, y: int, r: np.random.Generator) -> tuple[int, int, int]:
    local = pixels[y, x]
    return tuple(int(v) for v in np.where(local > 127, r.integers(0, 60, 3), r.integers(195, 256, 3)))


def drawn(p: Array, paint: Callable[[ImageDraw.ImageDraw], None]) -> Array:
    image = Image.fromarray(np.clip(p, 0, 255).astype(np.uint8))
    paint(ImageDraw.Draw(image))
    return np.asarray(image, dtype=np.float32)


def letter_b(p: Array, e: Array, r: np.random.Generator) -> Array:
    """One character, about the size of a word mark's letter (4-6% of the image height)."""
    height = e.shape[0]
    size = max(9, int(height * r.uniform(0.04, 0.06)))
    x, y = outside_spot(e, (size, size), r)
    font = ImageFont.load_default(size=size)
    glyph = str(r.choice(list("ABEKMRSWX")))
    colour = contrasting(p, x + size // 2, y + size // 2, r)
    return drawn(p, lambda d: d.text((x, y), glyph, fill=colour, font=font))


def face_b(p: Array, e: Array, r: np.random.Generator) -> Array:
    """Two eyes and a mouth drawn in a face-sized box (6-8% of the image height)."""
    side = max(12, int(e.shape[0] * r.uniform(0.06, 0.08)))
    x, y = outside_spot(e, (side, side), r)
    colour = contrasting(p, x + side // 2, y + side // 2, r)
    eye = max(2, side // 6)

    def paint(d: ImageDraw.ImageDraw) -> None:
        d.ellipse((x + side // 4 - eye, y + side // 3 - eye, x + side // 4 + eye, y + side // 3 + eye), fill=colour)
        d.ellipse((x + 3 * side // 4 - eye, y + side // 3 - eye, x + 3 * side // 4 + eye, y + side // 3 + eye), fill=colour)
        d.arc((x + side // 4, y + side // 2, x + 3 * side // 4, y + side - 2), 0, 180, fill=colour, width=max(1, eye // 2))

    return drawn(p, paint)


def object_b(p: Array, e: Array, r: np.random.Generator) -> Array:
    """A filled ellipse of 0.1-0.5% of the image, in a random colour."""
    area = e.size * r.uniform(0.001, 0.005)
    w = max(4, int(np.sqrt(area * r.uniform(0.5, 2))))
    h = max(4, int(area / w))
    x, y = outside_spot(e, (w, h), r)
    colour = contrasting(p, x + w // 2, y + h // 2, r)
    return drawn(p, lambda d: d.ellipse((x, y, x + w, y + h), fill=colour))


def recolour_b(p: Array, e: Array, r: np.random.Generator) -> Array:
    """A box of 4-8% of each side recoloured: its channels rotated and one channel moved by 60-120."""
    height, width = e.shape
    w, h = int(width * r.uniform(0.04, 0.08)), int(height * r.uniform(0.04, 0.08))
    x, y = outside_spot(e, (w, h), r)
    out = p.copy()
    patch = out[y : y + h, x : x + w][..., [1, 2, 0]].copy()
    channel, by = int(r.integers(0, 3)), r.uniform(60, 120)
    patch[..., channel] = np.where(patch[..., channel] > 127, patch[..., channel] - by, patch[..., channel] + by)
    out[y : y + h, x : x + w] = np.clip(patch, 0, 255)
    return out


def specks_b(p: Array, e: Array, r: np.random.Generator) -> Array:
    """3x3 specks of random colours over 3% of the outside area."""
    out = p.copy()
    height, width = e.shape
    count = int(0.03 * (~e).sum() / 9)
    placed = 0
    while placed < count:
        x, y = int(r.integers(0, width - 3)), int(r.integers(0, height - 3))
        if e[y : y + 3, x : x + 3].any():
            continue
        out[y : y + 3, x : x + 3] = r.integers(0, 256, 3)
        placed += 1
    return out


def darkened_b(p: Array, e: Array, r: np.random.Generator) -> Array:
    return np.clip(p - 20, 0, 255)


def brightened_b(p: Array, e: Array, r: np.random.Generator) -> Array:
    return np.clip(p + 20, 0, 255)


def far_shift_b(p: Array, e: Array, r: np.random.Generator) -> Array:
    return moved(p, r.uniform(8, 12) * r.choice([-1, 1]), r.uniform(-3, 3))


def noise_b(p: Array, e: Array, r: np.random.Generator) -> Array:
    """Gaussian noise of sigma 8-40 (0-255) on every pixel: grain a person sees, which softening averages away."""
    return np.clip(p + r.normal(0, r.uniform(8, 40), p.shape), 0, 255)


BROKEN: list[tuple[str, Variant]] = [
    ("letter", letter_b),
    ("face", face_b),
    ("object", object_b),
    ("recolour", recolour_b),
    ("specks", specks_b),
    ("darkened20", darkened_b),
    ("brightened20", brightened_b),
    ("shift8-12", far_shift_b),
    ("noise8-40", noise_b),
]

# -- the gates, as the grader's defaults apply them ----------------------------------------
CRITERIA: list[tuple[str, Callable[[Measured], float], float]] = [
    ("changed_outside", lambda m: m.changed_outside, DEFAULT_MAX_CHANGED_OUTSIDE),
    ("largest_change_outside", lambda m: m.largest_change_outside, DEFAULT_MAX_LARGEST_CHANGE_OUTSIDE),
    ("faint_change_outside", lambda m: m.faint_change_outside, DEFAULT_MAX_FAINT_CHANGE_OUTSIDE),
    ("shift", lambda m: m.shift.length, DEFAULT_MAX_SHIFT),
    ("tone_change", lambda m: m.tone_change, DEFAULT_MAX_TONE_CHANGE),
    ("plain_marks", lambda m: m.plain_marks, 0),
    ("grain", lambda m: m.grain, DEFAULT_MAX_GRAIN),
]
# Printed, not gated by default.
WATCHED: list[tuple[str, Callable[[Measured], float]]] = [
    ("local_changes", lambda m: m.local_changes),
    ("ssim_outside", lambda m: m.ssim_outside),
]


def failing(m: Measured) -> list[str]:
    return [name for name, get, limit in CRITERIA if get(m) > limit]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--variants", type=int, default=4, help="seeded variants per kind and input")
    parser.add_argument("--synthetic", type=int, default=4, help="synthetic drawings")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    values: dict[tuple[str, str], list[float]] = defaultdict(list)  # (kind, criterion) -> values
    caught: dict[str, list[bool]] = defaultdict(list)
    misses: list[str] = []
    for name, image, editable in inputs(rng, args.synthetic):
        good = known_good(image, editable)
        for group, kinds in (("legit", LEGIT), ("broken", BROKEN)):
            for kind, variant in kinds:
                for _ in range(args.variants):
                    m = measure(image, variant(good, editable, rng), editable)
                    for criterion, get, *_ in CRITERIA + WATCHED:
                        values[(kind, criterion)].append(get(m))
                    failed = failing(m)
                    caught[kind].append(bool(failed))
                    if (group == "legit") == bool(failed):
                        misses.append(f"{group} {kind} on {name}: fails {failed or 'nothing'}")
        print(f"  {name} done", flush=True)
    shown = [c for c, *_ in CRITERIA + WATCHED]
    print(f"{'kind':14} {'gate fails':>10}  " + "  ".join(f"{c:>22}" for c in shown))
    for kind, _ in LEGIT + BROKEN:
        spreads = "  ".join(f"{min(values[(kind, c)]):>10.4g}-{max(values[(kind, c)]):<11.4g}" for c in shown)
        print(f"{kind:14} {np.mean(caught[kind]):>10.0%}  {spreads}")
    print("\nper criterion: worst legit (max) / limit")
    for criterion, _, limit in CRITERIA:
        worst = max(max(values[(k, criterion)]) for k, _ in LEGIT)
        print(f"  {criterion:24} worst legit {worst:.4g}  limit {limit:g}")
    print("\nmisjudged:" if misses else "\nmisjudged: none")
    for line in misses:
        print("  " + line)
    big = np.asarray(Image.fromarray(inputs(rng, 0)[5][1].astype(np.uint8)).resize((1024, 1024)), dtype=np.float32)
    editable = random_box(big.shape, rng)
    output = encoded(moved(known_good(big, editable), 1.5, -2), 80)
    start = time.process_time()
    measure(big, output, editable)
    print(f"\none comparison at 1024x1024: {time.process_time() - start:.2f} s of CPU time")


if __name__ == "__main__":
    main()
