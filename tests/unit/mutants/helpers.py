"""What the mutant tests share: decoding a mutant's image, and the shipped assets they start from."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
from PIL import Image

from pytest_visioneval.artifacts import Artifact

CASES = Path(__file__).parents[3] / "cases"
LOGO = CASES / "cookbook" / "logo_edits"
FLYER = CASES / "cookbook" / "flyers" / "book-fair.png"
FRAMES = sorted((CASES / "gebench" / "multi_step" / "trajectory").glob("frame-*.png"))


def pixels(artifact: Artifact) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(artifact.data)).convert("RGB")).astype(np.int16)


def rgba(artifact: Artifact) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(artifact.data)).convert("RGBA"))


def output(path: Path, name: str = "output-0.png") -> tuple[Artifact, ...]:
    return (Artifact(name, path.read_bytes()),)


def synthetic(seed: int, size: tuple[int, int] = (160, 120)) -> Image.Image:
    """A colourful picture with structure: a gradient and a few random rectangles (asymmetric, saturated)."""
    rng = np.random.default_rng(seed)
    width, height = size
    x = np.linspace(0, 1, width)[None, :, None]
    y = np.linspace(0, 1, height)[:, None, None]
    base = (np.array([220, 40, 30]) * x + np.array([20, 60, 200]) * y + 20).clip(0, 255)
    pixels = np.broadcast_to(base, (height, width, 3)).astype(np.uint8).copy()
    for _ in range(6):
        left, top = int(rng.integers(0, width - 20)), int(rng.integers(0, height - 20))
        pixels[top : top + int(rng.integers(8, 40)), left : left + int(rng.integers(8, 40))] = rng.integers(0, 256, 3)
    return Image.fromarray(pixels)


def png_artifact(image: Image.Image, name: str = "output-0.png") -> Artifact:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return Artifact(name, out.getvalue())
