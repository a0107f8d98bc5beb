"""Temporal mutants of a multi-frame output (a GUI trajectory), and its legitimate re-encodes.

Broken: a step repeated, the frames reversed or shuffled, one frame
throughout, the input as one of the frames, another case's frames, a frame
from another app. Legitimate: every frame re-encoded, or every frame a few
levels brighter.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from PIL import Image

from ..artifacts import Artifact
from ..graders.trajectory import natural_key
from . import seen_by
from .base import Family, MutantClass, NotApplicable, Subject, Variant, decoded, jpeg, png, with_suffix
from .legitimate import brightened
from .siblings import sibling_references

TEMPORAL = "temporal"
ORDER = "the steps, in order"
MIN_FRAMES = 3


class Frames:
    """The output's frames in name order, and how a list of new contents becomes an output again."""

    def __init__(self, subject: Subject) -> None:
        self.subject = subject
        self.frames = sorted((a for a in subject.artifacts if a.kind == "image"), key=lambda a: natural_key(a.name))
        self.others = tuple(a for a in subject.artifacts if a.kind != "image")
        self.names = [f.name for f in self.frames]

    def output(self, contents: list[bytes]) -> tuple[Artifact, ...]:
        return self.others + tuple(Artifact(n, c) for n, c in zip(self.names, contents, strict=True))

    @property
    def data(self) -> list[bytes]:
        return [f.data for f in self.frames]

    def size(self) -> tuple[int, int] | None:
        image = decoded(self.frames[0])
        return image.size if image is not None else None


def temporal(subject: Subject) -> Family:
    frames = Frames(subject)
    count = len(frames.frames)
    if count < MIN_FRAMES:
        return [], [NotApplicable(TEMPORAL, f"{count} frame(s): too few to repeat or reorder")]
    made = [
        _class("repeated_step", lambda rng: _repeated(frames, rng)),
        _class("one_frame_throughout", lambda rng: _one_frame(frames, rng)),
        _class("reversed", lambda rng: _reversed(frames)),
        _class("shuffled", lambda rng: _shuffled(frames, rng)),
    ]
    skipped: list[NotApplicable] = []
    if subject.case.images:
        made.append(_class("input_as_frame", lambda rng: _input_frame(frames, rng)))
    else:
        skipped.append(NotApplicable(f"{TEMPORAL}/input_as_frame", "the case has no input screenshot"))
    size = frames.size()
    others = sibling_references(subject.case)
    trajectories = [p for p in others if p.is_dir() and size is not None and _same_aspect(_frame_files(p), size)]
    if trajectories:
        made.append(_class("another_case_frames", lambda rng: _another_case(frames, trajectories, size, rng)))
    else:
        skipped.append(NotApplicable(f"{TEMPORAL}/another_case_frames", "no other trajectory of the same aspect in the suite"))
    screens = [
        f for p in others for f in (_frame_files(p) if p.is_dir() else [p]) if f.suffix.lower() in (".png", ".jpg", ".jpeg")
    ]
    if screens and size is not None:
        made.append(_class("frame_from_another_app", lambda rng: _foreign_frame(frames, screens, size, rng)))
    else:
        skipped.append(NotApplicable(f"{TEMPORAL}/frame_from_another_app", "no other case's screens in the suite"))
    return made, skipped


def legitimate_frames(subject: Subject) -> Family:
    frames = Frames(subject)
    if len(frames.frames) < MIN_FRAMES:
        return [], []
    keeps = "what a person sees"
    return [
        MutantClass("legitimate", "jpeg", False, keeps, frozenset(), lambda rng: _jpeg(frames, rng)),
        MutantClass("legitimate", "brightness", False, keeps, frozenset(), lambda rng: _brighter(frames, rng)),
    ], []


def _class(name: str, make: Callable[[random.Random], Variant | None]) -> MutantClass:
    return MutantClass(TEMPORAL, name, True, ORDER, seen_by.ORDER, make)


def _frame_files(folder: Path) -> list[Path]:
    return sorted(
        (p for p in folder.iterdir() if p.suffix.lower() in (".png", ".jpg", ".jpeg")), key=lambda p: natural_key(p.name)
    )


def _same_aspect(files: list[Path], size: tuple[int, int]) -> bool:
    if not files:
        return False
    with Image.open(files[0]) as image:
        return abs(image.width / image.height - size[0] / size[1]) < 0.02


def _fitted(path: Path, size: tuple[int, int]) -> bytes:
    with Image.open(path) as image:
        return png(image.convert("RGB").resize(size, Image.Resampling.LANCZOS))


def _repeated(frames: Frames, rng: random.Random) -> Variant:
    step = rng.randrange(1, len(frames.names))
    data = frames.data
    data[step] = data[step - 1]
    names = frames.names
    return Variant({"step": step}, f"{names[step]} replaced by a copy of {names[step - 1]}", frames.output(data))


def _one_frame(frames: Frames, rng: random.Random) -> Variant:
    index = rng.randrange(len(frames.names))
    return Variant(
        {"frame": index}, f"every frame is {frames.names[index]}", frames.output([frames.data[index]] * len(frames.names))
    )


def _reversed(frames: Frames) -> Variant:
    return Variant({}, "the frames in reverse order", frames.output(frames.data[::-1]))


def _shuffled(frames: Frames, rng: random.Random) -> Variant | None:
    order = list(range(len(frames.names)))
    for _ in range(20):  # an order that is neither the right one nor simply reversed
        rng.shuffle(order)
        if order != sorted(order) and order != sorted(order, reverse=True):
            data = frames.data
            return Variant(
                {"order": list(order)}, f"the frames shuffled into the order {order}", frames.output([data[i] for i in order])
            )
    return None


def _input_frame(frames: Frames, rng: random.Random) -> Variant:
    index = rng.randrange(len(frames.names))
    data = frames.data
    data[index] = frames.subject.case.images[0].read_bytes()
    return Variant({"frame": index}, f"{frames.names[index]} is the input screenshot", frames.output(data))


def _another_case(frames: Frames, trajectories: list[Path], size: tuple[int, int], rng: random.Random) -> Variant | None:
    folder = rng.choice(trajectories)
    files = _frame_files(folder)
    count = len(frames.names)
    if len(files) < 2:
        return None
    chosen = [files[min(i, len(files) - 1)] for i in range(count)]
    return Variant(
        {"trajectory": folder.name},
        f"the frames of another case ({folder.parent.name}/{folder.name})",
        frames.output([_fitted(p, size) for p in chosen]),
    )


def _foreign_frame(frames: Frames, screens: list[Path], size: tuple[int, int], rng: random.Random) -> Variant:
    index = rng.randrange(len(frames.names))
    screen = rng.choice(screens)
    data = frames.data
    data[index] = _fitted(screen, size)
    where = f"{screen.parent.name}/{screen.name}"
    return Variant(
        {"frame": index, "screen": where}, f"{frames.names[index]} is a screen of another case ({where})", frames.output(data)
    )


def _jpeg(frames: Frames, rng: random.Random) -> Variant:
    quality = rng.randint(70, 95)
    out = []
    for frame in frames.frames:
        image = decoded(frame)
        out.append(Artifact(with_suffix(frame.name, ".jpg"), jpeg(image, quality)) if image is not None else frame)
    return Variant({"quality": quality}, f"every frame re-encoded as JPEG q{quality}", frames.others + tuple(out))


def _brighter(frames: Frames, rng: random.Random) -> Variant:
    offset = rng.choice((-5, -4, -3, 3, 4, 5))
    out = []
    for frame in frames.frames:
        image = decoded(frame)
        out.append(png(brightened(image.convert("RGB"), offset)) if image is not None else frame.data)
    return Variant({"offset": offset}, f"every frame's levels moved by {offset:+d}/255", frames.output(out))
