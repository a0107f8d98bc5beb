"""What a mutant is, the classes and families that make them, and the small helpers the generators share."""

from __future__ import annotations

import hashlib
import io
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
from PIL import Image

from ..artifacts import Artifact
from ..cases.spec import CaseSpec
from ..graders.imaging import decode


@dataclass(frozen=True)
class Variant:
    """What one draw of a mutant class made: its random parameters, a description and the output files."""

    params: Mapping[str, Any]
    description: str
    artifacts: tuple[Artifact, ...]


@dataclass(frozen=True)
class MutantClass:
    """A kind of variant: the property it breaks (or keeps), who can see it, and how to draw an instance.

    ``seen_by``: the deterministic grader types (``use:``) that can see the
    property; a case with none of them can only have it judged. ``make`` draws
    parameters from the generator it is given and returns None when this draw
    cannot be made (no room, the same image again).
    """

    family: str
    name: str
    broken: bool
    breaks: str
    seen_by: frozenset[str]
    make: Callable[[random.Random], Variant | None]


@dataclass(frozen=True)
class Mutant:
    """One variant of a known-good output.

    ``broken``: a wrong output the case's gates must catch; otherwise a
    legitimate variant (re-encoded, shifted by a pixel) they must pass.
    """

    family: str
    kind: str
    index: int
    broken: bool
    description: str
    artifacts: tuple[Artifact, ...]
    params: Mapping[str, Any] = field(default_factory=dict)
    breaks: str = ""
    seen_by: frozenset[str] = frozenset()

    @property
    def name(self) -> str:
        return f"{self.family}/{self.kind}"

    @property
    def folder(self) -> str:
        """Where it is stored, below ``<case>/mutants/``."""
        return f"{self.family}-{self.kind}-{self.index}"

    @property
    def label(self) -> str:
        """The name with its parameters: ``photometric/hue_rotation(degrees=137)``, enough to make it again."""
        return f"{self.name}({', '.join(f'{k}={v}' for k, v in self.params.items())})"


@dataclass(frozen=True)
class NotApplicable:
    """A class of mutant that does not apply to the case, and why."""

    name: str
    reason: str


Family = tuple[list[MutantClass], list[NotApplicable]]


def family_random(seed: int, case_uid: str, family: str) -> random.Random:
    """The generator of one family's draws for one case: the same seed makes the same mutants."""
    digest = hashlib.sha256(f"{seed}\0{case_uid}\0{family}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


class Subject:
    """The known-good output a case's mutants are made from, with what the generators look up more than once."""

    def __init__(self, case: CaseSpec, artifacts: tuple[Artifact, ...]) -> None:
        self.case = case
        self.artifacts = artifacts

    @cached_property
    def target(self) -> Artifact | None:
        """The first image of the output that decodes: the one image mutants change."""
        return next((a for a in self.artifacts if a.kind == "image" and decoded(a) is not None), None)

    @cached_property
    def rgb(self) -> Image.Image | None:
        image = decoded(self.target) if self.target is not None else None
        return image.convert("RGB") if image is not None else None

    @property
    def is_edit(self) -> bool:
        return self.case.task == "image_editing" and bool(self.case.images)

    def uses(self, *graders: str) -> bool:
        """Whether a gating grader of one of these types grades the case."""
        return any(g.use in graders and g.gate for g in self.case.graders)

    def with_image(self, image: Image.Image, suffix: str = ".png", data: bytes | None = None) -> tuple[Artifact, ...]:
        """The output with its target image replaced by ``image`` (PNG unless ``data`` is given)."""
        assert self.target is not None
        new = Artifact(with_suffix(self.target.name, suffix), png(image) if data is None else data)
        return replaced(self.artifacts, self.target, new)


def decoded(artifact: Artifact) -> Image.Image | None:
    try:
        return decode(artifact.data)
    except ValueError:
        return None


def png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)  # lossless either way; level 6 takes seconds on a 1024 px photo
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


def border_colour(image: Image.Image) -> tuple[int, int, int]:
    """The median colour of the image's one-pixel frame: what a canvas around it is filled with."""
    pixels = np.asarray(image.convert("RGB"))
    frame = np.concatenate([pixels[0], pixels[-1], pixels[:, 0], pixels[:, -1]])
    return tuple(int(v) for v in np.median(frame, axis=0))  # type: ignore[return-value]


def mean_difference(a: Image.Image, b: Image.Image) -> float:
    """Mean absolute RGB difference (0-255) of two images of the same size."""
    return float(np.abs(np.asarray(a.convert("RGB"), dtype=np.int16) - np.asarray(b.convert("RGB"), dtype=np.int16)).mean())
