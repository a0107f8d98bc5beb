"""Small image helpers shared by the pixel graders."""

from __future__ import annotations

import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, UnidentifiedImageError

from ..cases.spec import CaseSpec
from ..errors import GraderError


def decode(data: bytes) -> Image.Image:
    """Decode fully (``load``) so truncated files fail here, not later."""
    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError) as exc:
        raise ValueError(str(exc) or type(exc).__name__) from exc
    return image


def load_path(path: Path) -> Image.Image:
    try:
        return decode(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise GraderError(f"cannot read image {path}: {exc}") from exc


def rgb_array(image: Image.Image) -> np.ndarray:
    """RGB as float32 in [0, 255]; transparency is flattened onto white."""
    if image.mode in ("RGBA", "LA", "P"):
        rgba = image.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        image = Image.alpha_composite(background, rgba)
    return np.asarray(image.convert("RGB"), dtype=np.float32)


def missing_comparison(case: CaseSpec, options: Mapping[str, Any], grader: str) -> str | None:
    """Why a grader comparing with ``against`` (reference or first input) cannot grade this case."""
    against = options.get("against", "reference")
    if against == "reference" and case.reference is None:
        return f"the {grader} grader compares with 'reference', which this case lacks"
    if against == "input" and not case.images:
        return f"the {grader} grader compares with the first input image, which this case lacks"
    return None


def comparison_path(case: CaseSpec, against: str, grader: str) -> Path:
    """The reference, or the first input image, of ``case``."""
    path = case.reference if against == "reference" else (case.images[0] if case.images else None)
    if path is None:
        raise GraderError(f"{grader}: case {case.uid} has no {against} image")
    return path
