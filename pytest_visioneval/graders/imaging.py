"""Small image helpers shared by the pixel graders."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
from PIL import Image, UnidentifiedImageError

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
