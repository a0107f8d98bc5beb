"""What a mutant is, and the small image helpers the generators share."""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
from PIL import Image

from ..artifacts import Artifact
from ..graders.imaging import decode


@dataclass(frozen=True)
class Mutant:
    """One variant of a known-good output.

    ``broken``: a wrong output the case's gates must catch; otherwise a
    legitimate variant (re-encoded, shifted by a pixel) they must pass.
    """

    name: str
    broken: bool
    description: str
    artifacts: tuple[Artifact, ...]


@dataclass(frozen=True)
class NotApplicable:
    """A class of mutant that does not apply to the case, and why."""

    name: str
    reason: str


def decoded(artifact: Artifact) -> Image.Image | None:
    try:
        return decode(artifact.data)
    except ValueError:
        return None


def png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def jpeg(image: Image.Image, quality: int) -> bytes:
    out = io.BytesIO()
    image.convert("RGB").save(out, format="JPEG", quality=quality)
    return out.getvalue()


def with_suffix(name: str, suffix: str) -> str:
    stem = name.rsplit(".", 1)[0] if "." in name else name
    return f"{stem}{suffix}"


def replaced(artifacts: tuple[Artifact, ...], old: Artifact, *new: Artifact) -> tuple[Artifact, ...]:
    """``artifacts`` with ``old`` replaced by ``new`` (in its place)."""
    out: list[Artifact] = []
    for artifact in artifacts:
        out.extend(new if artifact is old else (artifact,))
    return tuple(out)


def shifted(image: Image.Image, dx: int, dy: int) -> Image.Image:
    """``image`` moved by (dx, dy) pixels, the uncovered edge filled by repeating the border."""
    pixels = np.asarray(image.convert("RGB"))
    height, width = pixels.shape[:2]
    padded = np.pad(pixels, ((abs(dy), abs(dy)), (abs(dx), abs(dx)), (0, 0)), mode="edge")
    top, left = abs(dy) - dy, abs(dx) - dx
    return Image.fromarray(padded[top : top + height, left : left + width])
