"""Text in the wrong order and content shrunk on its canvas, against legitimate copies: how the gates separate them.

Run on demand (not a test; OCR makes it take several minutes on one core):

    .venv/bin/python benchmarks/text_layout_separation.py [--seed 0] [--shrinks 6] [--swaps 4] [--extent-only]

The cases are the shipped flyers, promo flyers and UI mockups (their text grader options as the
case files configure them, the reference as the case's reference). Each reference gets seeded
random variants:

* legitimate: JPEG q60-95, a shift of 1-2 px (edge repeated or wrapped round), brightness +-5,
  a resize round trip (x0.5-0.9), the reference itself;
* broken, order: two required lines swapped - the pixel bands OCR finds them in exchanged, for
  random pairs and for neighbouring lines (field labels);
* broken, extent: the whole picture scaled by 0.3-0.8 into a random corner or the centre of an
  empty canvas of the same size (the picture's own background colour, or white).

For each variant the script reports the ``text`` grader's ``in_order`` and ``text_extent`` gates and
the ``image`` grader's ``fills_canvas`` gate, and the spread of the extent ratios (output box /
reference box, the smaller of width and height) per kind. ``--extent-only`` measures the image
extent alone, also on scikit-image's photos and synthetic layouts, with more shrinks (no OCR; fast).
"""

from __future__ import annotations

import argparse
import io
import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from pytest_visioneval.artifacts import Artifact
from pytest_visioneval.graders import canvas_extent
from pytest_visioneval.graders.image import ImageGrader
from pytest_visioneval.graders.ocr import TextGrader, grayscale
from pytest_visioneval.protocols.case_files import load_case_file

ROOT = Path(__file__).resolve().parent.parent
SUITES = ["cases/cookbook/flyers.eval.yaml", "cases/cookbook/promo_flyers.eval.yaml", "cases/cookbook/ui_mockups.eval.yaml"]
CORNERS = ("top-left", "top-right", "bottom-left", "bottom-right", "centre")
Variant = tuple[str, str, Image.Image]  # kind, description, image


def png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def jpeg(image: Image.Image, quality: int) -> Image.Image:
    out = io.BytesIO()
    image.convert("RGB").save(out, format="JPEG", quality=quality)
    return Image.open(io.BytesIO(out.getvalue())).convert("RGB")


def shifted(image: Image.Image, dx: int, dy: int, wrap: bool) -> Image.Image:
    pixels = np.asarray(image)
    if wrap:
        return Image.fromarray(np.roll(pixels, (dy, dx), axis=(0, 1)))
    moved = np.pad(pixels, ((max(dy, 0), max(-dy, 0)), (max(dx, 0), max(-dx, 0)), (0, 0)), mode="edge")
    height, width = pixels.shape[:2]
    top, left = max(-dy, 0), max(-dx, 0)
    return Image.fromarray(moved[top : top + height, left : left + width])


def brighter(image: Image.Image, delta: int) -> Image.Image:
    return Image.fromarray(np.clip(np.asarray(image).astype(np.int16) + delta, 0, 255).astype(np.uint8))


def round_trip(image: Image.Image, factor: float) -> Image.Image:
    small = image.resize((max(1, round(image.width * factor)), max(1, round(image.height * factor))), Image.Resampling.LANCZOS)
    return small.resize(image.size, Image.Resampling.LANCZOS)


def shrunk(image: Image.Image, scale: float, corner: str, canvas: tuple[int, int, int]) -> Image.Image:
    small = image.resize((max(1, round(image.width * scale)), max(1, round(image.height * scale))), Image.Resampling.LANCZOS)
    out = Image.new("RGB", image.size, canvas)
    free_x, free_y = image.width - small.width, image.height - small.height
    x = {"top-left": 0, "bottom-left": 0, "top-right": free_x, "bottom-right": free_x, "centre": free_x // 2}[corner]
    y = {"top-left": 0, "top-right": 0, "bottom-left": free_y, "bottom-right": free_y, "centre": free_y // 2}[corner]
    out.paste(small, (x, y))
    return out


def legit_variants(image: Image.Image, rng: random.Random) -> list[Variant]:
    out: list[Variant] = [("legit", "reference", image)]
    for quality in (rng.randint(60, 75), rng.randint(85, 95)):
        out.append(("legit", f"jpeg q{quality}", jpeg(image, quality)))
    for wrap in (False, True):
        dx, dy = rng.choice([-2, -1, 1, 2]), rng.choice([-2, -1, 0, 1, 2])
        out.append(("legit", f"shift {dx},{dy}{' wrapped' if wrap else ''}", shifted(image, dx, dy, wrap)))
    for delta in (5, -5):
        out.append(("legit", f"brightness {delta:+d}", brighter(image, delta)))
    factor = rng.uniform(0.5, 0.9)
    out.append(("legit", f"resize round trip x{factor:.2f}", round_trip(image, factor)))
    return out


def shrunk_variants(image: Image.Image, rng: random.Random, count: int) -> list[Variant]:
    own = tuple(int(v) for v in canvas_extent.background(image))
    out: list[Variant] = []
    for _ in range(count):
        scale, corner = rng.uniform(0.3, 0.8), rng.choice(CORNERS)
        canvas = rng.choice([own, (255, 255, 255)])
        out.append(("shrunk", f"x{scale:.2f} {corner} on {canvas}", shrunk(image, scale, corner, canvas)))
    return out


def swapped_variants(image: Image.Image, grader: TextGrader, rng: random.Random, count: int) -> list[Variant]:
    """Two required lines' pixel bands exchanged: random pairs, then neighbours in the list."""
    gray = grayscale(image)
    scale = gray.width / image.width
    from pytest_visioneval.graders.ocr import Page, first_look, ink_on_white

    lines = first_look(Page(gray, ink_on_white(gray)), grader.lang)
    places = grader.places({"ref": lines}, {"ref": gray.size})
    boxes = [tuple(round(v / scale) for v in spots[0].box) if spots else None for spots in places]
    pairs = [(i, i + 1) for i in range(len(boxes) - 1)]
    others = [(a, b) for a in range(len(boxes)) for b in range(a + 2, len(boxes))]
    rng.shuffle(others)
    out: list[Variant] = []
    for a, b in (pairs + others)[: count + len(pairs)]:
        swapped = swap_bands(image, boxes[a], boxes[b])
        if swapped is not None:
            out.append(("swapped", f"lines {a + 1} and {b + 1}", swapped))
    return out


def swap_bands(image: Image.Image, first: Any, second: Any) -> Image.Image | None:
    """The full-width bands around two boxes exchanged (same height, centred on each); None if they overlap."""
    if first is None or second is None:
        return None
    pad = 4
    height = max(first[3] - first[1], second[3] - second[1]) + 2 * pad
    tops = []
    for box in (first, second):
        middle = (box[1] + box[3]) // 2
        tops.append(min(max(0, middle - height // 2), image.height - height))
    if abs(tops[0] - tops[1]) < height:  # same row: exchange the boxes themselves, left and right
        return swap_boxes(image, first, second, pad)
    out = image.copy()
    bands = [image.crop((0, top, image.width, top + height)) for top in tops]
    out.paste(bands[1], (0, tops[0]))
    out.paste(bands[0], (0, tops[1]))
    return out


def swap_boxes(image: Image.Image, first: Any, second: Any, pad: int) -> Image.Image | None:
    width = max(first[2] - first[0], second[2] - second[0]) + 2 * pad
    height = max(first[3] - first[1], second[3] - second[1]) + 2 * pad
    corners = [
        (max(0, min(box[0] - pad, image.width - width)), max(0, min(box[1] - pad, image.height - height)))
        for box in (first, second)
    ]
    if abs(corners[0][0] - corners[1][0]) < width and abs(corners[0][1] - corners[1][1]) < height:
        return None
    out = image.copy()
    crops = [image.crop((x, y, x + width, y + height)) for x, y in corners]
    out.paste(crops[1], corners[0])
    out.paste(crops[0], corners[1])
    return out


def gate(grade: Any, name: str) -> Any:
    return next((g for g in grade.gates if g.name == name), None)


def run_cases(args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    outcome: dict[tuple[str, str], list[bool]] = defaultdict(list)
    ratios: dict[str, list[float]] = defaultdict(list)
    for suite_path in SUITES:
        suite = load_case_file(ROOT / suite_path)
        for case in suite.cases:
            spec = next((g for g in case.graders if g.use == "text"), None)
            if spec is None or case.reference is None or "quality=high" in case.uid:
                continue
            text = TextGrader(spec.options)
            image = ImageGrader({})
            reference = Image.open(case.reference).convert("RGB")
            variants = legit_variants(reference, rng)
            variants += swapped_variants(reference, text, rng, args.swaps)
            variants += shrunk_variants(reference, rng, args.shrinks)
            for kind, what, picture in variants:
                artifact = Artifact("image-0.png", png(picture))
                text_grade = text.grade(case, [artifact])
                image_grade = image.grade(case, [artifact])
                gates = {g.name: g for g in (*text_grade.gates, *image_grade.gates)}
                for name in ("text_present", "in_order", "text_extent", "fills_canvas"):
                    if name in gates:
                        outcome[(kind, name)].append(gates[name].passed)
                failed = [name for name, g in gates.items() if not g.passed]
                outcome[(kind, "any gate")].append(not failed)
                ratio = extent_ratio(gates.get("text_extent"))
                if ratio is not None:
                    ratios[f"text {kind}"].append(ratio)
                ratios[f"image {kind}"].append(image_ratio(picture, reference))
                shown = "; ".join(f"{name}: {gates[name].reason}" for name in failed) or "all gates pass"
                print(f"{case.uid:40s} {kind:8s} {what:40s} {shown[:220]}")
    print("\npasses per kind and gate")
    for (kind, name), values in sorted(outcome.items()):
        print(f"  {kind:8s} {name:13s} passed {sum(values)}/{len(values)}")
    print_ratios(ratios)


def extent_ratio(text_extent: Any) -> float | None:
    """The smaller of width and height ratio from a text_extent reason (output box / reference box)."""
    if text_extent is None or "in the reference" not in text_extent.reason:
        return None
    import re

    numbers = [float(v) for v in re.findall(r"(\d+)%", text_extent.reason)[:4]]
    width, height, ref_width, ref_height = numbers
    return min(width / ref_width, height / ref_height) if ref_width and ref_height else None


def image_ratio(output: Image.Image, reference: Image.Image) -> float:
    """The image grader's measure: the output's content box over the reference's, the smaller of the two directions."""
    ref_flat, out_flat = canvas_extent.flat_background(reference), canvas_extent.flat_background(output)
    own = canvas_extent.content_extent(output, [] if ref_flat is None else [ref_flat], tolerance=canvas_extent.OUTPUT_TOLERANCE)
    want = canvas_extent.content_extent(reference, [] if out_flat is None else [out_flat])
    return min(own.width / want.width, own.height / want.height) if want.width and want.height else float("inf")


def print_ratios(ratios: dict[str, list[float]]) -> None:
    print("\nextent ratios (output / reference, smaller direction)")
    for kind, values in sorted(ratios.items()):
        array = np.asarray(values)
        print(f"  {kind:16s} n={array.size:4d} min {array.min():.3f} median {np.median(array):.3f} max {array.max():.3f}")


# -- the image extent alone, on more pictures --------------------------------
def pictures(seed: int, synthetic: int) -> dict[str, Image.Image]:
    import skimage.data

    out = {
        str(path.relative_to(ROOT)): Image.open(path).convert("RGB")
        for path in sorted((ROOT / "cases").rglob("*.png"))
        if "mask" not in path.name
    }
    for name in (
        "astronaut",
        "coffee",
        "chelsea",
        "rocket",
        "camera",
        "text",
        "page",
        "horse",
        "hubble_deep_field",
        "moon",
        "retina",
    ):
        array = getattr(skimage.data, name)()
        if array.dtype == bool:
            array = array.astype(np.uint8) * 255
        out[f"skimage.{name}"] = Image.fromarray(array).convert("RGB")
    rng = random.Random(seed)
    for index in range(synthetic):
        out[f"synthetic-{index}"] = synthetic_layout(rng)
    return out


def synthetic_layout(rng: random.Random) -> Image.Image:
    """A poster-like layout: a background, a few bands, boxes and text lines within random margins."""
    width, height = rng.choice([(600, 800), (800, 600), (512, 512), (1024, 1536)])
    background = tuple(rng.randrange(180, 256) for _ in range(3))
    image = Image.new("RGB", (width, height), background)
    draw = ImageDraw.Draw(image)
    margin_x, margin_y = round(width * rng.uniform(0.03, 0.2)), round(height * rng.uniform(0.03, 0.2))
    for _ in range(rng.randint(3, 8)):
        left = rng.randint(margin_x, width // 2)
        top = rng.randint(margin_y, height - margin_y - 20)
        right = rng.randint(left + 20, width - margin_x)
        bottom = min(height - margin_y, top + rng.randint(10, height // 4))
        fill = tuple(rng.randrange(0, 200) for _ in range(3))
        if rng.random() < 0.5:
            draw.rectangle((left, top, right, bottom), fill=fill)
        else:
            draw.text((left, top), "Sample line", fill=fill, font_size=rng.randint(14, 60))
    draw.rectangle((margin_x, margin_y, margin_x + 10, margin_y + 10), fill=(20, 20, 20))
    draw.rectangle((width - margin_x - 10, height - margin_y - 10, width - margin_x, height - margin_y), fill=(20, 20, 20))
    return image


def run_extent_only(args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    ratios: dict[str, list[float]] = defaultdict(list)
    absolute: list[tuple[float, str]] = []
    worst: dict[str, tuple[float, str]] = {}
    for name, image in pictures(args.seed, args.synthetic).items():
        extent = canvas_extent.content_extent(image)
        absolute.append((max(extent.width, extent.height), name))
        variants = legit_variants(image, rng) + shrunk_variants(image, rng, args.shrinks)
        for kind, what, picture in variants:
            ratio = image_ratio(picture, image)
            ratios[kind].append(ratio)
            key = "legit" if kind == "legit" else "shrunk"
            pick = min if key == "legit" else max
            if key not in worst or pick(ratio, worst[key][0]) == ratio:
                worst[key] = (ratio, f"{name} {what}")
    print_ratios(ratios)
    floor = ImageGrader.options_schema["properties"]["min_extent_of_reference"]["default"]
    legit_below = sum(r < floor for r in ratios["legit"])
    print(f"  legit below {floor}: {legit_below}, shrunk at or above: {sum(r >= floor for r in ratios['shrunk'])}")
    print(f"  worst legit {worst['legit']}; worst shrunk {worst['shrunk']}")
    absolute.sort()
    print(f"  no reference: the longer side of the content box over {len(absolute)} pictures, smallest: {absolute[:4]}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shrinks", type=int, default=6)
    parser.add_argument("--swaps", type=int, default=4, help="random non-neighbouring pairs per reference (neighbours always)")
    parser.add_argument("--synthetic", type=int, default=20, help="synthetic layouts for --extent-only")
    parser.add_argument("--extent-only", action="store_true")
    args = parser.parse_args(argv)
    run: Callable[[argparse.Namespace], None] = run_extent_only if args.extent_only else run_cases
    run(args)


if __name__ == "__main__":
    main()
