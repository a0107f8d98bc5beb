"""Mutants of a multi-frame output (a GUI trajectory): a repeated step, one frame throughout, reversed order."""

from __future__ import annotations

from ..artifacts import Artifact
from ..cases.spec import CaseSpec
from ..graders.trajectory import natural_key
from .base import Mutant, NotApplicable, decoded, jpeg, with_suffix


def trajectory_mutants(case: CaseSpec, artifacts: tuple[Artifact, ...]) -> tuple[list[Mutant], list[NotApplicable]]:
    frames = sorted((a for a in artifacts if a.kind == "image"), key=lambda a: natural_key(a.name))
    others = tuple(a for a in artifacts if a.kind != "image")
    if len(frames) < 3:
        return [], [NotApplicable("trajectory", f"{len(frames)} frame(s): too few to repeat or reorder")]
    names = [f.name for f in frames]

    def as_frames(contents: list[Artifact], name_list: list[str] | None = None) -> tuple[Artifact, ...]:
        renamed = [Artifact(n, c.data) for n, c in zip(name_list or names, contents, strict=True)]
        return others + tuple(renamed)

    mutants = [
        Mutant(
            "repeated_step",
            True,
            f"{names[1]} replaced by a copy of {names[0]}",
            as_frames([frames[0], *frames[:1], *frames[2:]]),
        ),
        Mutant("one_frame_throughout", True, f"every frame is {names[0]}", as_frames([frames[0]] * len(frames))),
    ]
    skipped: list[NotApplicable] = []
    if case.reference is not None and case.reference.is_dir():
        mutants.append(Mutant("reversed", True, "the frames in reverse order", as_frames(frames[::-1])))
    else:
        skipped.append(NotApplicable("reversed", "no reference trajectory to tell the order by"))
    if case.images:
        source = Artifact(names[0], case.images[0].read_bytes())
        mutants.append(
            Mutant("input_as_first_frame", True, f"{names[0]} is the input screenshot", as_frames([source, *frames[1:]]))
        )
    re_encoded = []
    for frame in frames:
        image = decoded(frame)
        re_encoded.append(Artifact(with_suffix(frame.name, ".jpg"), jpeg(image, 90)) if image is not None else frame)
    mutants.append(Mutant("jpeg_q90", False, "every frame re-encoded as JPEG q90", others + tuple(re_encoded)))
    return mutants, skipped
