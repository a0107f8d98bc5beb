"""Shared helpers for the unit tests: images made with Pillow and case specs."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw

from pytest_visioneval.cases.spec import CaseSpec

RGB = tuple[int, int, int]


def image_bytes(
    size: tuple[int, int] = (32, 32),
    color: RGB = (200, 60, 40),
    *,
    pattern: bool = True,
    fmt: str = "PNG",
    mode: str = "RGB",
) -> bytes:
    """Encoded image; with ``pattern`` a white square is drawn in the middle so it is not blank."""
    img = Image.new(mode, size, color)
    if pattern:
        w, h = size
        ImageDraw.Draw(img).rectangle((w // 4, h // 4, 3 * w // 4, 3 * h // 4), fill=(255, 255, 255))
    out = io.BytesIO()
    img.save(out, format=fmt)
    return out.getvalue()


@pytest.fixture
def make_image(tmp_path: Path) -> Callable[..., Path]:
    """Write an image below ``tmp_path`` and return its path."""

    def make(name: str = "image.png", size: tuple[int, int] = (32, 32), color: RGB = (200, 60, 40), **kwargs: Any) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(image_bytes(size, color, **kwargs))
        return path

    return make


@pytest.fixture
def make_case(tmp_path: Path) -> Callable[..., CaseSpec]:
    """A :class:`CaseSpec` with sensible defaults; keyword arguments override."""

    def make(**overrides: Any) -> CaseSpec:
        fields: dict[str, Any] = {
            "suite": "unit",
            "id": "case-1",
            "protocol": "generic",
            "task": "image_generation",
            "source": tmp_path / "unit.eval.yaml",
            "line": 1,
            "prompt": "a red square",
        }
        fields.update(overrides)
        return CaseSpec(**fields)

    return make


@pytest.fixture
def encode_image() -> Callable[..., bytes]:
    """The :func:`image_bytes` helper, as a fixture (test modules do not import conftest)."""
    return image_bytes
