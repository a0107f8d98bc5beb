"""How far real GUI steps and broken next screens land, per measure of ``screen_match`` and ``trajectory.stays_in_app``.

Run on demand (not a test; a minute or two on one core):

    .venv/bin/python benchmarks/screen_separation.py

Screens: the shipped GEBench examples (cases/gebench). For each single_step
and grounding pair (input, reference next screen) the reference gets
*legitimate* variants (JPEG q70 / q95, shifts of 1-2 px, brightness +-5,
resize round trips 0.5x / 1.5x / 2x) and *broken* ones (mirrored, flipped,
cropped to 80% / 90% and enlarged, shrunk to 80% / 90% into a white canvas,
blurred with sigma 1 / 1.5 / 2, hue turned 15 / 60 degrees, greyscale), and
every other shipped screen at the same aspect ratio is tried as the output
too. ``consistent``: of the input's content edges that the reference keeps,
the share the output keeps. For ``stays_in_app``: each shipped trajectory's
frames, re-encoded ones, and the other apps' frames at the same aspect,
against the app's input screen (or first frame). Prints one line per
output, then the spread per kind.
"""

from __future__ import annotations

import io
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image, ImageFilter, ImageOps

from pytest_visioneval.graders.imaging import same_aspect
from pytest_visioneval.graders.screen_compare import ScreenPair, consistency, geometry_scores, sharpness_ratio
from pytest_visioneval.graders.screen_palette import new_colour_share, palette, reference_palette

GEBENCH = Path(__file__).resolve().parents[1] / "cases" / "gebench"
PAIRS = [
    ("single_step/settings.png", "single_step/settings-wifi-on.png"),
    ("grounding/files.png", "grounding/files-new-folder.png"),
    ("grounding/inbox.png", "grounding/inbox-archived.png"),
]
TRAJECTORIES = {"multi_step": "multi_step/notes-home.png", "fiction_app": None, "real_app": None}


def load(name: str | Path) -> Image.Image:
    return Image.open(GEBENCH / name).convert("RGB")


def jpeg(image: Image.Image, quality: int) -> Image.Image:
    out = io.BytesIO()
    image.save(out, "JPEG", quality=quality)
    return Image.open(io.BytesIO(out.getvalue())).convert("RGB")


def shifted(image: Image.Image, dx: int, dy: int) -> Image.Image:
    return Image.fromarray(np.roll(np.asarray(image), (dy, dx), axis=(0, 1)))


def brighter(image: Image.Image, by: int) -> Image.Image:
    return Image.fromarray(np.clip(np.asarray(image, dtype=np.int16) + by, 0, 255).astype(np.uint8))


def round_trip(image: Image.Image, factor: float) -> Image.Image:
    size = (round(image.width * factor), round(image.height * factor))
    return image.resize(size, Image.Resampling.BICUBIC).resize(image.size, Image.Resampling.BICUBIC)


def cropped(image: Image.Image, side: float) -> Image.Image:
    width, height = round(image.width * side), round(image.height * side)
    left, top = (image.width - width) // 2, (image.height - height) // 2
    return image.crop((left, top, left + width, top + height)).resize(image.size)


def shrunk(image: Image.Image, side: float) -> Image.Image:
    canvas = Image.new("RGB", image.size, (255, 255, 255))
    small = image.resize((round(image.width * side), round(image.height * side)))
    canvas.paste(small, ((image.width - small.width) // 2, (image.height - small.height) // 2))
    return canvas


def hue_turned(image: Image.Image, degrees: int) -> Image.Image:
    hue, saturation, value = image.convert("HSV").split()
    turn = round(degrees * 256 / 360)
    return Image.merge("HSV", (hue.point(lambda h: (h + turn) % 256), saturation, value)).convert("RGB")


LEGITIMATE: dict[str, Callable[[Image.Image], Image.Image]] = {
    "reference": lambda im: im,
    "jpeg q70": lambda im: jpeg(im, 70),
    "jpeg q95": lambda im: jpeg(im, 95),
    "shift 2,1 px": lambda im: shifted(im, 2, 1),
    "shift -2,-2 px": lambda im: shifted(im, -2, -2),
    "brightness +5": lambda im: brighter(im, 5),
    "brightness -5": lambda im: brighter(im, -5),
    "round trip 0.5x": lambda im: round_trip(im, 0.5),
    "round trip 1.5x": lambda im: round_trip(im, 1.5),
    "round trip 2x": lambda im: round_trip(im, 2),
}
BROKEN: dict[str, Callable[[Image.Image], Image.Image]] = {
    "mirrored": ImageOps.mirror,
    "flipped": ImageOps.flip,
    "cropped 80%": lambda im: cropped(im, 0.8),
    "cropped 90%": lambda im: cropped(im, 0.9),
    "shrunk 80%": lambda im: shrunk(im, 0.8),
    "shrunk 90%": lambda im: shrunk(im, 0.9),
    "blur 1": lambda im: im.filter(ImageFilter.GaussianBlur(1)),
    "blur 1.5": lambda im: im.filter(ImageFilter.GaussianBlur(1.5)),
    "blur 2": lambda im: im.filter(ImageFilter.GaussianBlur(2)),
    "hue +15": lambda im: hue_turned(im, 15),
    "hue +60": lambda im: hue_turned(im, 60),
    "greyscale": lambda im: ImageOps.grayscale(im).convert("RGB"),
}


def screen_measures(source: Image.Image, output: Image.Image, reference: Image.Image) -> dict[str, float]:
    pair = ScreenPair.of(source, output)
    expected = ScreenPair.of(source, reference)
    consistent = consistency(pair.before, expected.after, pair.after)
    scores = geometry_scores(pair)
    as_is = scores.pop("as it is")
    turns = max(v for k, v in scores.items() if not k.startswith("scaled"))
    scales = max(v for k, v in scores.items() if k.startswith("scaled"))
    sharp = sharpness_ratio(pair)
    return {
        "kept": as_is,
        "orientation lead": as_is - turns,
        "scale lead": as_is - scales,
        "sharpness": float("nan") if sharp is None else sharp,
        "new colours": new_colour_share(palette(output), reference_palette(source), 12.0),
        "consistent": float("nan") if consistent is None else consistent,
    }


def main() -> None:
    spread: dict[tuple[str, str], list[float]] = defaultdict(list)
    screens = sorted(GEBENCH.rglob("*.png"))
    for source_name, reference_name in PAIRS:
        source, reference = load(source_name), load(reference_name)
        outputs = {f"legitimate: {k}": f(reference) for k, f in LEGITIMATE.items()}
        outputs |= {f"broken: {k}": f(reference) for k, f in BROKEN.items()}
        for path in screens:
            name = str(path.relative_to(GEBENCH))
            if name not in (source_name, reference_name) and same_aspect(Image.open(path).size, source.size):
                outputs[f"another screen: {name}"] = load(path)
        for label, output in outputs.items():
            measures = screen_measures(source, output, reference)
            kind = label if label.startswith("another") is False else "another screen"
            shown = "  ".join(f"{k} {v:6.3f}" for k, v in measures.items())
            print(f"{source_name:26s} {label:48s} {shown}")
            for measure, value in measures.items():
                spread[(kind.split(":")[0] if kind == "another screen" else kind, measure)].append(value)
    print("\nspread per kind (min - max):")
    for (kind, measure), values in sorted(spread.items()):
        finite = [v for v in values if v == v]
        if finite:
            print(f"  {kind:40s} {measure:18s} {min(finite):7.3f} - {max(finite):7.3f}")

    print("\nstays_in_app: share of a frame in colours the app's first screen lacks")
    frames = {t: sorted((GEBENCH / t / "trajectory").glob("frame-*.png")) for t in TRAJECTORIES}
    for task, input_name in TRAJECTORIES.items():
        base = load(input_name) if input_name else Image.open(frames[task][0]).convert("RGB")
        colours = reference_palette(base)
        own = [new_colour_share(palette(Image.open(p)), colours, 12.0) for p in frames[task]]
        # the whole trajectory re-encoded, the app's own screen too (as the self-test's legitimate JPEG does)
        re_encoded = [
            new_colour_share(palette(jpeg(Image.open(p).convert("RGB"), quality)), reference_palette(jpeg(base, quality)), 12.0)
            for quality in (60, 70, 81, 90)
            for p in frames[task]
        ]
        others = [
            new_colour_share(palette(Image.open(p)), colours, 12.0)
            for other, paths in frames.items()
            if other != task
            for p in paths
            if same_aspect(Image.open(p).size, base.size)
        ]
        others += [
            new_colour_share(palette(Image.open(p)), colours, 12.0)
            for p in (GEBENCH / "grounding").glob("files*.png")
            if same_aspect(Image.open(p).size, base.size)
        ]
        line = f"  {task:12s} own steps {min(own):.3f} - {max(own):.3f}"
        line += f"   JPEG q60-90 {min(re_encoded):.3f} - {max(re_encoded):.3f}"
        if others:
            line += f"   another app's frames {min(others):.3f} - {max(others):.3f}"
        print(line)


if __name__ == "__main__":
    main()
