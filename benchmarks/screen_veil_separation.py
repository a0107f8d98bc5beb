"""How ``screen_match.backdrop`` separates modal backdrops from veils and global darkening.

Run on demand (not a test; about a minute on one core):

    .venv/bin/python benchmarks/screen_veil_separation.py [--seeds N]

Legitimate outputs: every shipped GEBench trajectory frame against the one
before it and against the first (drawer scrims, a dialog on a dimmed
calendar, a disabled button), the reference next screens, their re-encodes
(JPEG q70), +-5 brightness and 2 px shifts, and synthetic modal screens:
each shipped screen dimmed to 30-70% over the whole screen or all below
the top band, with a seeded panel (a light card of 20-60% of the width
with text-like bars, or a bottom sheet, or a side drawer) drawn on it.
Broken outputs: the same screens with a dark or a light (white) veil of
opacity 0.3-0.85 over a random box of 15-60% of the screen, darkened as a
whole by 30-90 levels, or dimmed whole with no panel. Prints the
spread of each kind and how many the default gate passes.
"""

from __future__ import annotations

import argparse
import io
import random
from collections import defaultdict
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from pytest_visioneval.graders.screen_compare import ScreenPair
from pytest_visioneval.graders.screen_match import DEFAULTS, ScreenMatchGrader
from pytest_visioneval.graders.screen_veil import find_veils

GEBENCH = Path(__file__).resolve().parents[1] / "cases" / "gebench"
PAIRS = [
    ("single_step/settings.png", "single_step/settings-wifi-on.png"),
    ("grounding/files.png", "grounding/files-new-folder.png"),
    ("grounding/inbox.png", "grounding/inbox-archived.png"),
]
TRAJECTORIES = ["multi_step/trajectory", "fiction_app/trajectory", "real_app/trajectory"]
STARTS = {"multi_step/trajectory": "multi_step/notes-home.png"}


def load(name: str | Path) -> Image.Image:
    return Image.open(GEBENCH / name).convert("RGB")


def jpeg(image: Image.Image, quality: int) -> Image.Image:
    out = io.BytesIO()
    image.save(out, "JPEG", quality=quality)
    return Image.open(io.BytesIO(out.getvalue())).convert("RGB")


def levels(image: Image.Image, by: int) -> Image.Image:
    return Image.fromarray(np.clip(np.asarray(image, dtype=np.int16) + by, 0, 255).astype(np.uint8))


def veiled(image: Image.Image, box: tuple[int, int, int, int], opacity: float, shade: int) -> Image.Image:
    pixels = np.asarray(image, dtype=np.float32).copy()
    left, top, right, bottom = box
    pixels[top:bottom, left:right] = pixels[top:bottom, left:right] * (1 - opacity) + shade * opacity
    return Image.fromarray(pixels.astype(np.uint8))


def random_box(size: tuple[int, int], rng: random.Random, low: float, high: float) -> tuple[int, int, int, int]:
    width, height = size
    area = rng.uniform(low, high) * width * height
    box_w = int(min(width, max(2, (area * rng.uniform(0.5, 2.0)) ** 0.5)))
    box_h = int(min(height, max(2, area / box_w)))
    left, top = rng.randint(0, width - box_w), rng.randint(0, height - box_h)
    return left, top, left + box_w, top + box_h


def modal(image: Image.Image, rng: random.Random) -> Image.Image:
    """The screen dimmed (whole, or below the top band) with a seeded dialog, sheet or drawer on it."""
    width, height = image.size
    top = 0 if rng.random() < 0.5 else round(0.08 * height)
    dimmed = veiled(image, (0, top, width, height), rng.uniform(0.3, 0.7), 0)
    draw = ImageDraw.Draw(dimmed)
    kind = rng.choice(("dialog", "sheet", "drawer"))
    if kind == "dialog":
        w, h = round(width * rng.uniform(0.5, 0.85)), round(height * rng.uniform(0.2, 0.45))
        x, y = (width - w) // 2, rng.randint(round(0.15 * height), height - h - 5)
    elif kind == "sheet":
        w, h = width, round(height * rng.uniform(0.25, 0.5))
        x, y = 0, height - h
    else:
        w, h = round(width * rng.uniform(0.55, 0.8)), height
        x, y = 0, 0
    draw.rounded_rectangle((x, y, x + w, y + h), radius=8 if kind == "dialog" else 0, fill=(255, 255, 255))
    line = max(8, h // 8)
    for row in range(y + line, y + h - line, line * 2):
        draw.rectangle((x + 12, row, x + 12 + round((w - 24) * rng.uniform(0.3, 0.9)), row + line // 2), fill=(40, 44, 52))
    if rng.random() < 0.6:
        draw.rounded_rectangle((x + w - 90, y + h - 2 * line, x + w - 12, y + h - line // 2), radius=6, fill=(37, 99, 235))
    return dimmed


def outputs(seeds: int) -> list[tuple[str, str, Image.Image, Image.Image]]:
    """(kind, name, input, output) for every measured output."""
    found: list[tuple[str, str, Image.Image, Image.Image]] = []
    for folder in TRAJECTORIES:
        frames = sorted((GEBENCH / folder).glob("*.png"))
        start = load(STARTS[folder]) if folder in STARTS else load(frames[0])
        previous = start
        for frame in frames:
            image = load(frame)
            found.append(("legit: trajectory frame vs previous", f"{folder}/{frame.name}", previous, image))
            found.append(("legit: trajectory frame vs start", f"{folder}/{frame.name}", start, image))
            previous = image
    screens = [(load(a), load(b), b) for a, b in PAIRS]
    for before, after, name in screens:
        found.append(("legit: reference next screen", name, before, after))
        found.append(("legit: reference re-encoded / +-5 / shifted", name, before, jpeg(after, 70)))
        found.append(("legit: reference re-encoded / +-5 / shifted", name, before, levels(after, -5)))
        found.append(("legit: reference re-encoded / +-5 / shifted", name, before, levels(after, 5)))
        found.append(
            ("legit: reference re-encoded / +-5 / shifted", name, before, Image.fromarray(np.roll(np.asarray(after), 2, 1)))
        )
    for seed in range(seeds):
        rng = random.Random(seed)
        for before, after, name in screens:
            found.append(("legit: synthetic modal (scrim + panel)", f"{name} #{seed}", before, modal(after, rng)))
            box = random_box(after.size, rng, 0.15, 0.6)
            found.append(
                ("broken: dark veil over a box", f"{name} #{seed}", before, veiled(after, box, rng.uniform(0.3, 0.85), 0))
            )
            box = random_box(after.size, rng, 0.15, 0.6)
            light = veiled(after, box, rng.uniform(0.3, 0.85), 255)
            found.append(("broken: light veil over a box", f"{name} #{seed}", before, light))
            found.append(("broken: whole screen darker by 30-90", f"{name} #{seed}", before, levels(after, -rng.randint(30, 90))))
            dimmed = veiled(after, (0, 0, after.width, after.height), rng.uniform(0.3, 0.7), 0)
            found.append(("broken: whole screen dimmed, no panel", f"{name} #{seed}", before, dimmed))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=8)
    args = parser.parse_args()
    grader = ScreenMatchGrader({})
    spread: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    for kind, name, before, after in outputs(args.seeds):
        pair = ScreenPair.of(before, after)
        finding = grader.backdrop(pair)
        veils = find_veils(pair, DEFAULTS["min_veil_area"])
        shown = max((v.unveiled for v in veils), default=0.0)
        spread[kind].append((shown, finding.passed))
        print(f"{kind:45s} {name:45s} {'pass' if finding.passed else 'FAIL'}  {finding.reason}")
    limits = ", ".join(f"{name} {DEFAULTS[name]}" for name in ("min_veil_area", "max_unveiled"))
    print(f"\ndefaults: {limits}")
    print(f"{'kind':45s} {'n':>4s} {'passed':>7s}  input content shown undimmed beside a veil")
    for kind, rows in spread.items():
        shown = [v for v, _ in rows]
        passed = sum(p for _, p in rows)
        print(f"{kind:45s} {len(rows):4d} {passed:7d}  {min(shown):.2f} - {max(shown):.2f}")


if __name__ == "__main__":
    main()
