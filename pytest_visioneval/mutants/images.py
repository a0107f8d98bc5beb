"""Mutants of an image output: blank, wrong aspect, the input again, a faint global change; re-encodes."""

from __future__ import annotations

import numpy as np
from PIL import Image

from ..artifacts import Artifact
from ..cases.spec import CaseSpec
from ..graders.image import requested_size
from .base import Mutant, NotApplicable, decoded, jpeg, png, replaced, shifted, with_suffix

SIZE_OPTIONS = ("width", "height", "aspect")


def image_mutants(case: CaseSpec, artifacts: tuple[Artifact, ...]) -> tuple[list[Mutant], list[NotApplicable]]:
    """Mutants of the first image of the output (the others are kept as they are)."""
    target = next((a for a in artifacts if a.kind == "image" and decoded(a) is not None), None)
    if target is None:
        return [], [NotApplicable("image", "the known-good output holds no image that decodes")]
    image = decoded(target)
    assert image is not None
    rgb = image.convert("RGB")
    width, height = rgb.size
    mutants: list[Mutant] = []
    skipped: list[NotApplicable] = []

    def swap(name: str, broken: bool, description: str, data: bytes, suffix: str = ".png") -> None:
        new = Artifact(with_suffix(target.name, suffix), data)
        mutants.append(Mutant(name, broken, description, replaced(artifacts, target, new)))

    swap("transparent", True, "a fully transparent PNG of the same size", png(Image.new("RGBA", (width, height), (0, 0, 0, 0))))
    rng = np.random.default_rng(0)
    noise = np.clip(250 + rng.normal(0, 4, (height, width, 3)), 0, 255).astype(np.uint8)
    swap("faint_noise", True, "a white image with faint noise", png(Image.fromarray(noise)))
    if _expects_aspect(case):
        stretched = rgb.resize((round(width * 1.5), height), Image.Resampling.BILINEAR)
        swap("wrong_aspect", True, f"the output stretched to {stretched.width}x{height}", png(stretched))
    else:
        skipped.append(NotApplicable("wrong_aspect", "the case asks for no size or aspect (no edit, no params.size)"))
    if case.task == "image_editing" and case.images:
        source = Image.open(case.images[0])
        source.load()
        swap("input_copy", True, f"the input {case.images[0].name} re-saved as JPEG q90", jpeg(source, 90), ".jpg")
        touched = source.convert("RGB")
        touched.putpixel((touched.width // 2, touched.height // 2), (0, 0, 0))
        swap("input_touched", True, f"the input {case.images[0].name} with one pixel changed", png(touched))
    else:
        skipped.append(NotApplicable("input_copy", "not an edit of an input image"))
    if case.task == "image_editing" and (case.mask is not None or any(g.use == "locality" for g in case.graders)):
        darker = np.clip(np.asarray(rgb, dtype=np.int16) - 20, 0, 255).astype(np.uint8)
        swap("darkened", True, "the whole edit darkened by 20/255, outside the mask too", png(Image.fromarray(darker)))
    else:
        skipped.append(NotApplicable("darkened", "no area outside an edit to keep (no mask, no locality grader)"))
    swap("jpeg_q85", False, "the output re-encoded as JPEG q85", jpeg(rgb, 85), ".jpg")
    swap("shift_1px", False, "the output shifted right by one pixel", png(shifted(rgb, 1, 0)))
    return mutants, skipped


def _expects_aspect(case: CaseSpec) -> bool:
    if case.task == "image_editing" and case.images:
        return True
    if requested_size(case.params) is not None:
        return True
    return any(g.use == "image" and any(k in g.options for k in SIZE_OPTIONS) for g in case.graders)
