"""``use: trajectory`` - the output images are the steps of one interaction, in order.

For a multi-frame output (a GUI trajectory: one screen per step), in the
order the frames came back:

* ``steps_differ``  - each frame differs from the one before it: a step that
  repeats the previous screen shows no interaction.
* ``no_duplicates`` - no two frames are the same screen, however far apart
  (``allow_repeats: true`` turns this off for flows that come back to a screen).
* ``differs_from_input`` - no frame is the input screenshot again (when the
  case has one).
* ``in_order`` - when the case's ``reference`` is a folder of frames (a known
  good trajectory, in natural name order), each output frame is matched to the
  reference frame it looks most like, and those positions must never go
  back: a reversed or shuffled trajectory fails, naming the order seen.
  Pixels alone cannot tell the order of a trajectory without a reference (a
  menu that opens changes more pixels than the three steps after it), so
  there the gate is not reported; the judge's logic dimension covers it.
  ``in_order: false`` turns it off.
* ``like_reference`` - with such a reference folder, no frame looks like no
  reference frame while the others match theirs: a frame whose mean
  perceived difference from its most alike reference frame is over
  ``OUTLIER_RATIO`` times the others' (the median, at least
  ``CLOSE_MATCH``) and at least ``MIN_OUTLIER_DIFFERENCE`` is another
  screen set into the trajectory (a first frame from another app, which
  ``stays_in_app`` takes as the app itself). A model that draws every frame
  in its own style differs from the reference everywhere alike, and passes.
  Judged from ``MIN_FRAMES_FOR_LIKENESS`` frames on; ``like_reference:
  false`` turns it off.
* ``stays_in_app`` - every frame is painted in the colours of the case's
  input screen (of the first frame when the case has none): at most
  ``max_new_colours`` of a frame may be in colours farther than
  ``max_delta_e`` (CIEDE2000) from every colour of that screen, a modal
  scrim's darkening allowed (:mod:`.screen_palette`). Menus, dialogs and other
  screens of one app keep its palette; another app's frames do not.
  ``stays_in_app: false`` turns it off.

Two frames are *the same screen* when fewer than ``min_changed`` of their
pixels differ by more than 24 (0-255), both softened a little and a 1-pixel
shift allowed (:func:`~pytest_visioneval.graders.imaging.perceived_difference`).
The default is low because real GUI steps can be small: in the GEBench
example, a list that differs only in one line of grey text ("Water in 1 day"
to "Watered today") changes 0.013% of its pixels, while a copy of a frame
changes none (a JPEG q85 copy of a flat GUI screen usually none either, but up
to 0.16% for screens with saturated colour edges: such a copy is not caught).
Frames at another aspect ratio always count as different.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from PIL import Image

from ..artifacts import Artifact
from ..cases.spec import CaseSpec
from .base import Gate, Grade, GradeContext
from .imaging import CHANGE_TOLERANCE, aligned_difference, decode, load_path, rgb_array, same_aspect, soften

# See the module docstring: a copy changes no pixel; a real GUI step 0.013% or more.
DEFAULT_MIN_CHANGED_STEP = 0.00005
# Measured on the shipped trajectories (docs/graders.md): a real step paints at most 2.8% of its
# pixels in colours the app's first screen lacks, another app's frame 5.2% or more.
DEFAULT_MAX_NEW_COLOURS = 0.04
DEFAULT_MAX_DELTA_E = 12.0
# like_reference, in mean perceived difference (0-255) from a frame's most alike reference frame. Measured on
# the shipped trajectories (docs/graders.md): JPEG q70, +5 levels and 2 px shifts of their frames stay under
# 5; another case's screen set in is 13.8 or more from every frame of a trajectory without an input screen.
OUTLIER_RATIO = 3.0
CLOSE_MATCH = 2.0  # the others' median counts as at least this: a near-copy makes any small difference look large
MIN_OUTLIER_DIFFERENCE = 8.0
# Fewer frames than this are not judged: with one or two others, a given first screen copied as it is and a
# step drawn in the model's own style would make the step look like a stray.
MIN_FRAMES_FOR_LIKENESS = 4
_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".gif")

Frames = list[tuple[str, "Screen"]]


class Screen:
    """A frame decoded once and softened once, compared with many others."""

    def __init__(self, image: Image.Image):
        self.size = image.size
        self.image = image
        self._soft: dict[tuple[int, int], np.ndarray] = {}

    def soft(self, size: tuple[int, int]) -> np.ndarray:
        if size not in self._soft:
            image = self.image if self.image.size == size else self.image.resize(size, Image.Resampling.BILINEAR)
            self._soft[size] = soften(rgb_array(image))
        return self._soft[size]

    def difference(self, other: Screen) -> np.ndarray | None:
        """Per-pixel perceived difference at this screen's size; None at another aspect ratio."""
        if not same_aspect(other.size, self.size):
            return None
        return aligned_difference(self.soft(self.size), other.soft(self.size))


class TrajectoryGrader:
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "min_changed": {"type": "number", "minimum": 0, "maximum": 1, "default": DEFAULT_MIN_CHANGED_STEP},
            "allow_repeats": {"type": "boolean", "default": False},
            "in_order": {"type": "boolean", "default": True},
            "like_reference": {"type": "boolean", "default": True},
            "stays_in_app": {"type": "boolean", "default": True},
            "max_new_colours": {"type": "number", "minimum": 0, "maximum": 1, "default": DEFAULT_MAX_NEW_COLOURS},
            "max_delta_e": {"type": "number", "exclusiveMinimum": 0, "default": DEFAULT_MAX_DELTA_E},
        },
    }

    def __init__(self, options: Mapping[str, Any]):
        self.min_changed = float(options.get("min_changed", DEFAULT_MIN_CHANGED_STEP))
        self.allow_repeats = bool(options.get("allow_repeats", False))
        self.in_order = bool(options.get("in_order", True))
        self.like_reference = bool(options.get("like_reference", True))
        self.stays_in_app = bool(options.get("stays_in_app", True))
        self.max_new_colours = float(options.get("max_new_colours", DEFAULT_MAX_NEW_COLOURS))
        self.max_delta_e = float(options.get("max_delta_e", DEFAULT_MAX_DELTA_E))

    @classmethod
    def check_case(cls, case: CaseSpec, options: Mapping[str, Any]) -> str | None:
        if case.task == "html_generation":
            return "the trajectory grader grades image frames; this case's task is html_generation"
        return None

    def grade(self, case: CaseSpec, artifacts: Sequence[Artifact], context: GradeContext | None = None) -> Grade:
        frames: Frames = []
        for artifact in (a for a in artifacts if a.kind == "image"):
            try:
                frames.append((artifact.name, Screen(decode(artifact.data))))
            except ValueError:
                continue  # the image grader reports frames that do not decode
        if len(frames) < 2:
            return Grade(gates=(Gate("steps_differ", False, f"{len(frames)} frame(s) decode: a trajectory needs 2 or more"),))
        gates = [self._steps_differ(frames)]
        if not self.allow_repeats:
            gates.append(self._no_duplicates(frames))
        source = Screen(load_path(case.images[0])) if case.images else None
        if source is not None:
            gates.append(self._differs_from_input(frames, source, case.images[0].name))
        reference = reference_frames(case.reference)
        judged = (self.in_order or self.like_reference) and len(reference) >= 2
        matches = _best_matches(frames, reference) if judged else None
        if self.in_order and len(reference) >= 2:
            gates.append(_in_order(matches))
        if self.like_reference and matches and len(frames) >= MIN_FRAMES_FOR_LIKENESS:
            gates.append(_like_reference(frames, matches))
        if self.stays_in_app:
            app = (case.images[0].name, source) if source is not None else frames[0]
            gates.append(self._stays_in_app(frames if source is not None else frames[1:], app))
        return Grade(gates=tuple(gates))

    def _same(self, a: Screen, b: Screen) -> bool:
        difference = a.difference(b)
        return difference is not None and float((difference > CHANGE_TOLERANCE).mean()) < self.min_changed

    def _steps_differ(self, frames: Frames) -> Gate:
        repeats = [
            f"{later} repeats {earlier}"
            for (earlier, first), (later, second) in zip(frames, frames[1:], strict=False)
            if self._same(first, second)
        ]
        if repeats:
            return Gate("steps_differ", False, "; ".join(repeats) + ": a step that shows the same screen is no step")
        return Gate("steps_differ", True, f"each of the {len(frames)} frames differs from the one before it")

    def _no_duplicates(self, frames: Frames) -> Gate:
        pairs = [
            f"{frames[j][0]} is {frames[i][0]} again"
            for i in range(len(frames))
            for j in range(i + 2, len(frames))  # neighbours are steps_differ's
            if self._same(frames[i][1], frames[j][1])
        ]
        if pairs:
            return Gate("no_duplicates", False, "; ".join(pairs) + " (set allow_repeats for a flow that comes back)")
        return Gate("no_duplicates", True, "no two frames show the same screen")

    def _differs_from_input(self, frames: Frames, source: Screen, input_name: str) -> Gate:
        same = [name for name, frame in frames if self._same(source, frame)]
        if same:
            return Gate("differs_from_input", False, f"{', '.join(same)} show(s) {input_name} unchanged")
        return Gate("differs_from_input", True, f"every frame differs from {input_name}")

    def _stays_in_app(self, frames: Frames, app: tuple[str, Screen]) -> Gate:
        from .screen_palette import new_colour_share, palette, reference_palette

        app_name, app_screen = app
        colours = reference_palette(app_screen.image)
        shares = [(name, new_colour_share(palette(frame.image), colours, self.max_delta_e)) for name, frame in frames]
        foreign = [f"{name} ({share:.1%})" for name, share in shares if share > self.max_new_colours]
        limit = f"farther than CIEDE2000 {self.max_delta_e:g} from every colour of {app_name}"
        if foreign:
            return Gate(
                "stays_in_app",
                False,
                f"{', '.join(foreign)} painted in colours {limit}, more than {self.max_new_colours:.0%}: another app's screen",
            )
        most = max((share for _, share in shares), default=0.0)
        return Gate("stays_in_app", True, f"every frame keeps the palette of {app_name}: at most {most:.1%} in colours {limit}")


def reference_frames(reference: Path | None) -> Frames:
    """The images of a reference folder in natural name order (frame-2 before frame-10); none for a file."""
    if reference is None or not reference.is_dir():
        return []
    paths = [p for p in reference.iterdir() if p.is_file() and p.suffix.lower() in _IMAGE_SUFFIXES]
    return [(p.name, Screen(load_path(p))) for p in sorted(paths, key=lambda p: natural_key(p.name))]


def natural_key(name: str) -> list[Any]:
    """Sort key for file names in natural order: frame-2 before frame-10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _best_matches(frames: Frames, reference: Frames) -> list[tuple[float, int]] | None:
    """Each frame's mean perceived difference from its most alike reference frame, and that frame's index.

    None when the frames have another aspect ratio than every reference frame.
    """
    matches = []
    for _, frame in frames:
        known = [(float(d.mean()), i) for i, (_, ref) in enumerate(reference) if (d := ref.difference(frame)) is not None]
        if not known:
            return None
        matches.append(min(known))
    return matches


def _in_order(matches: list[tuple[float, int]] | None) -> Gate:
    if matches is None:
        return Gate("in_order", False, "the frames have another aspect ratio than the reference: order cannot be judged")
    positions = [index + 1 for _, index in matches]
    shown = ", ".join(map(str, positions))
    if any(later < earlier for earlier, later in zip(positions, positions[1:], strict=False)):
        return Gate("in_order", False, f"the frames look like reference frames {shown}, in that order: the trajectory goes back")
    return Gate("in_order", True, f"the frames look like reference frames {shown}: in order")


def _like_reference(frames: Frames, matches: list[tuple[float, int]]) -> Gate:
    differences = [difference for difference, _ in matches]
    strays = []
    for i, difference in enumerate(differences):
        others = differences[:i] + differences[i + 1 :]
        usual = max(float(np.median(others)), CLOSE_MATCH)
        if difference >= MIN_OUTLIER_DIFFERENCE and difference > OUTLIER_RATIO * usual:
            strays.append(f"{frames[i][0]} ({difference:.1f}, the others {usual:.1f})")
    if strays:
        return Gate(
            "like_reference",
            False,
            f"{', '.join(strays)} look(s) like no reference frame while the others match theirs "
            f"(mean difference from the most alike; limit {OUTLIER_RATIO:g}x the others'): another screen set in",
        )
    most = max(differences)
    return Gate(
        "like_reference", True, f"every frame is about as like its nearest reference frame as the others (at most {most:.1f})"
    )
