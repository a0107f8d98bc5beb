"""``use: screen_match`` - the output is a plausible next state of the input screen, as a person sees it.

For a GUI step (GEBench single_step and grounding): the next screen keeps the
app's look - its orientation, scale, sharpness, colours and most of its
layout - while a part of it changes. Each output image is compared with the
case's first input image (see :mod:`.screen_compare` for the measures):

* ``orientation`` - the output matches the input best as it is: mirrored,
  flipped or turned, it would not match better by more than ``orientation_margin``.
* ``scale`` - likewise, not better when scaled (shrunk into the canvas,
  cropped and enlarged) by more than ``scale_margin``.
* ``keeps_screen`` - at least ``min_kept`` of the screens' content is kept
  (a scrim over the old screen counts as kept).
* ``sharpness`` - on the edges it keeps, the output has at least
  ``min_sharpness`` of the input's Laplacian energy (a blurred copy has less).
* ``backdrop`` - a darker (or washed-out) copy of part or all of the input
  over at least ``min_veil_area`` of the screen passes only as a modal
  backdrop: a new, lighter panel is drawn on it and at most ``max_unveiled``
  of the input's content below the top band is left in view as it was; see
  :mod:`.screen_veil`.
* ``consistent`` (only for a case with a ``reference`` next screen) - of the
  input's content edges that the reference keeps, the output keeps at least
  ``min_consistent``: what the expected next state leaves as it was stays
  (another screen of the same design keeps the bars, not the labels); and where the input
  and the reference are both empty, the output draws nothing over more than
  ``max_drawn_on_empty`` of the screen (:mod:`.screen_drawn`); and where the
  reference keeps the input as it was, at most ``max_faded_areas`` content
  areas are shown faded, as under a veil (:mod:`.faded_content`).
* ``palette`` - at most ``max_new_colours`` of the output is painted in
  colours farther than ``max_delta_e`` (CIEDE2000) from every colour of the input.

Metric ``kept``: the kept share of the first output. The measured spread of
real next states and broken ones is in docs/graders.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from ..artifacts import Artifact
from ..cases.spec import CaseSpec
from .base import Gate, Grade, GradeContext, Metric

if TYPE_CHECKING:
    import numpy as np
    from PIL import Image

    from .faded_content import Fading
    from .screen_compare import ScreenPair

# numpy, PIL and the comparisons are imported where a screen is graded: collection imports this
# module for its options schema and must stay light.

GATES = ("orientation", "scale", "keeps_screen", "sharpness", "clean", "backdrop", "palette")

# Measured (benchmarks/screen_separation.py, docs/graders.md): real next screens and their re-encoded,
# shifted, brightened and resized copies keep 62% or more and 0.19x or more of the edge energy, lead
# every turn by 0.028 and every scale by -0.001 or more; broken ones keep 35% or less (recoloured,
# other apps), 0.05x or less (blurred) or trail a turn by 0.036 / a scale by 0.23 or more.
DEFAULTS: dict[str, float] = {
    "min_kept": 0.45,
    "min_sharpness": 0.1,
    "max_new_colours": 0.04,
    "max_delta_e": 12.0,
    # The input's flat areas stay flat: the 75th percentile of |output - its 3x3 median| there (grey 0-255).
    # Measured on the shipped GEBench screens: real next states and frames, JPEG q70/95, 2 px shifts, +5
    # brightness and resize round trips 0.00; Gaussian noise of sigma 8 / 16 / 48 gives 1.88 / 3.69 / 11.2 or more.
    "max_speckle": 1.5,
    "orientation_margin": 0.02,
    "scale_margin": 0.05,
    # A darker or washed-out copy of the input over at least this share of the screen must be a modal backdrop
    # (benchmarks/screen_veil_separation.py): a control's own state (a pressed button, a highlighted row) covers
    # 1-8% of a screen; the veils of the self-test cover 20-50%.
    "min_veil_area": 0.1,
    # Of the input's content edges the reference next screen keeps, the share the output must keep. Measured on the
    # shipped pairs (benchmarks/screen_separation.py): the references, their re-encodes, shifts, +-5 and resize round
    # trips 0.985 or more; every other shipped screen of the same aspect 0.73 or less (a Notifications screen of the
    # same design for the Settings one).
    "min_consistent": 0.85,
    # The largest object the output may draw where the input and the reference next screen are both empty, as a
    # share of the screen (screen_drawn.py). The shipped pairs' references and their re-encodes, 2 px shifts, +5
    # and resize round trips draw none (0.0%); the self-test's opaque patches over an empty list area 4-9%.
    "max_drawn_on_empty": 0.01,
    # Content areas (faded_content tiles) that the reference keeps as they were and the output shows faded. The
    # shipped pairs' references and their re-encodes, 2 px shifts, +5 and round trips fade none; the self-test's
    # light veils over the files screen's folders fade 10 or more (docs/graders.md).
    "max_faded_areas": 1,
    # The share of the input's content edges below the top band that a backdrop may leave in view as they were.
    # Measured: real modal steps and synthetic dialogs / sheets / drawers 0.00-0.17; dark veils over a box 0.05-0.78
    # (17 of 18 fail the gate: docs/graders.md).
    "max_unveiled": 0.25,
}


@dataclass(frozen=True)
class Finding:
    passed: bool
    reason: str
    value: float


class ScreenMatchGrader:
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "min_kept": {"type": "number", "minimum": 0, "maximum": 1, "default": DEFAULTS["min_kept"]},
            "min_sharpness": {"type": "number", "minimum": 0, "default": DEFAULTS["min_sharpness"]},
            "max_new_colours": {"type": "number", "minimum": 0, "maximum": 1, "default": DEFAULTS["max_new_colours"]},
            "max_delta_e": {"type": "number", "exclusiveMinimum": 0, "default": DEFAULTS["max_delta_e"]},
            "max_speckle": {"type": "number", "minimum": 0, "default": DEFAULTS["max_speckle"]},
            "orientation_margin": {"type": "number", "minimum": 0, "maximum": 1, "default": DEFAULTS["orientation_margin"]},
            "scale_margin": {"type": "number", "minimum": 0, "maximum": 1, "default": DEFAULTS["scale_margin"]},
            "min_consistent": {"type": "number", "minimum": 0, "maximum": 1, "default": DEFAULTS["min_consistent"]},
            "max_drawn_on_empty": {"type": "number", "minimum": 0, "maximum": 1, "default": DEFAULTS["max_drawn_on_empty"]},
            "max_faded_areas": {"type": "integer", "minimum": 0, "default": DEFAULTS["max_faded_areas"]},
            "min_veil_area": {"type": "number", "exclusiveMinimum": 0, "maximum": 1, "default": DEFAULTS["min_veil_area"]},
            "max_unveiled": {"type": "number", "minimum": 0, "maximum": 1, "default": DEFAULTS["max_unveiled"]},
        },
    }

    def __init__(self, options: Mapping[str, Any]):
        self.options = {name: float(options.get(name, default)) for name, default in DEFAULTS.items()}

    @classmethod
    def check_case(cls, case: CaseSpec, options: Mapping[str, Any]) -> str | None:
        if not case.images:
            return "screen_match compares the output with the input screen, which this case lacks"
        return None

    def grade(self, case: CaseSpec, artifacts: Sequence[Artifact], context: GradeContext | None = None) -> Grade:
        from .imaging import decode, load_path
        from .screen_compare import ScreenPair

        source = load_path(case.images[0])
        outputs = []
        for artifact in (a for a in artifacts if a.kind == "image"):
            try:
                outputs.append((artifact.name, decode(artifact.data)))
            except ValueError:
                continue  # the image grader reports outputs that do not decode
        if not outputs:
            return Grade(gates=(Gate("keeps_screen", False, "no output image decodes"),))
        expected = _expected_screen(case)
        findings = [(name, self._findings(ScreenPair.of(source, image), expected)) for name, image in outputs]
        gates = []
        for gate in GATES + (("consistent",) if expected is not None else ()):
            failed = [f"{name}: {found[gate].reason}" for name, found in findings if not found[gate].passed]
            shown = failed or [f"{name}: {found[gate].reason}" for name, found in findings]
            gates.append(Gate(gate, not failed, "; ".join(shown)))
        kept = findings[0][1]["keeps_screen"].value
        return Grade(gates=tuple(gates), metrics=(Metric("kept", kept, "share of the input screen's content kept"),))

    def _findings(self, pair: ScreenPair, expected: Image.Image | None) -> dict[str, Finding]:
        """Each gate's verdict on one output (``consistent`` only with an expected next screen)."""
        from .screen_compare import geometry_scores

        found = {"consistent": self._consistent(pair, expected)} if expected is not None else {}
        scores = geometry_scores(pair)
        as_is = scores.pop("as it is")
        turned = {name: v for name, v in scores.items() if not name.startswith("scaled")}
        scaled = {name: v for name, v in scores.items() if name.startswith("scaled")}
        return found | {
            "orientation": self._geometry(as_is, turned, self.options["orientation_margin"]),
            "scale": self._geometry(as_is, scaled, self.options["scale_margin"]),
            "keeps_screen": self._kept(as_is),
            "sharpness": self._sharpness(pair),
            "clean": self._clean(pair),
            "backdrop": self.backdrop(pair),
            "palette": self._palette(pair),
        }

    @staticmethod
    def _geometry(as_is: float, alternatives: dict[str, float], margin: float) -> Finding:
        name, best = max(alternatives.items(), key=lambda item: item[1])
        if best > as_is + margin:
            reason = f"the input screen matches it better {name} ({best:.0%} of the content kept) than as it is ({as_is:.0%})"
            return Finding(False, reason, best)
        return Finding(True, f"as it is it keeps {as_is:.0%} of the content, {name} at best {best:.0%}", best)

    def _kept(self, as_is: float) -> Finding:
        minimum = self.options["min_kept"]
        if as_is < minimum:
            return Finding(
                False, f"{as_is:.0%} of the input screen's content kept, below {minimum:.0%}: not the input's screen", as_is
            )
        return Finding(True, f"{as_is:.0%} of the input screen's content kept", as_is)

    def _sharpness(self, pair: ScreenPair) -> Finding:
        from .screen_compare import sharpness_ratio

        ratio = sharpness_ratio(pair)
        if ratio is None:
            return Finding(True, "no kept edge to compare sharpness on", 1.0)
        minimum = self.options["min_sharpness"]
        if ratio < minimum:
            return Finding(False, f"edge energy {ratio:.2f}x the input's (below {minimum:g}x): blurred", ratio)
        return Finding(True, f"edge energy {ratio:.2f}x the input's", ratio)

    def _clean(self, pair: ScreenPair) -> Finding:
        from .screen_compare import speckle

        found = speckle(pair)
        if found is None:
            return Finding(True, "no flat area of the input to look for noise on", 0.0)
        limit = self.options["max_speckle"]
        reason = f"speckle {found:.1f} on the input's flat areas (grey 0-255"
        if found > limit:
            return Finding(False, f"{reason}, above {limit:g}): noisy", found)
        return Finding(True, reason + ")", found)

    def _consistent(self, pair: ScreenPair, expected: Image.Image) -> Finding:
        """What the reference next screen keeps of the input, the output keeps too; value: the kept share."""
        from .screen_compare import ScreenPair, consistency
        from .screen_drawn import drawn_on_empty

        reference = ScreenPair.of(_image(pair.before), expected)  # the reference at the working size of the pair
        drawn = drawn_on_empty(pair.before, reference.after, pair.after)
        limit = self.options["max_drawn_on_empty"]
        problem = ""
        if drawn is not None and drawn.share > limit:
            x0, y0, x1, y1 = drawn.box
            problem = (
                f"something drawn over {drawn.share:.1%} of the screen (x {x0:.0%}-{x1:.0%}, y {y0:.0%}-{y1:.0%}) "
                f"where the input and the reference next screen are both empty (at most {limit:.0%})"
            )
        faded = _faded_where_kept(pair, reference.after)
        if faded is not None and faded.faded > self.options["max_faded_areas"] and faded.box is not None:
            x0, y0, x1, y1 = faded.box
            veil = (
                f"{faded.faded} areas (x {x0:.0%}-{x1:.0%}, y {y0:.0%}-{y1:.0%}) that the reference next screen keeps "
                f"as they were are shown with under 60% of their contrast, as under a veil "
                f"(limit {int(self.options['max_faded_areas'])})"
            )
            problem = f"{problem}; {veil}" if problem else veil
        share = consistency(pair.before, reference.after, pair.after)
        if share is None:
            said = "the reference next screen keeps too little of the input to compare with"
            return Finding(not problem, f"{problem}; {said}" if problem else said, 1.0)
        minimum = self.options["min_consistent"]
        said = f"{share:.0%} of the input's content that the reference next screen keeps is kept"
        if share < minimum:
            why = "the screen changed where the expected next state leaves it: another screen?"
            said = f"{said} (at least {minimum:.0%}): {why}"
        if problem:
            said = f"{said}; {problem}"
        return Finding(share >= minimum and not problem, said, share)

    def backdrop(self, pair: ScreenPair) -> Finding:
        """A darker or washed-out copy of the input passes only as a modal backdrop; value: the largest failing veil's area."""
        from .screen_veil import find_veils

        veils = find_veils(pair, self.options["min_veil_area"])
        if not veils:
            return Finding(True, "no darker or washed-out copy of the input", 0.0)
        limit = self.options["max_unveiled"]
        problems = []
        for veil in veils:
            if veil.panels == 0:
                panel = "new, lighter panel" if veil.darker else "new panel"
                problems.append((veil, f"{veil.describe()} with no {panel} drawn on it"))
            elif veil.unveiled > limit:
                problems.append(
                    (
                        veil,
                        f"{veil.describe()}, stopping inside the content: {veil.unveiled:.0%} of the input's content "
                        f"below the top band still shown as it was, undimmed (a backdrop leaves at most {limit:.0%})",
                    )
                )
        if problems:
            return Finding(False, "; ".join(why for _, why in problems), max(veil.area for veil, _ in problems))
        shown = "; ".join(f"{veil.describe()} behind {veil.panels} new panel(s)" for veil in veils)
        return Finding(True, f"a modal backdrop: {shown}", 0.0)

    def _palette(self, pair: ScreenPair) -> Finding:
        from .screen_palette import new_colour_share, palette, reference_palette

        limit = self.options["max_delta_e"]
        new = new_colour_share(palette(_image(pair.after)), reference_palette(_image(pair.before)), limit)
        reason = f"{new:.1%} of it in colours the input lacks (CIEDE2000 > {limit:g})"
        if new > self.options["max_new_colours"]:
            return Finding(False, f"{reason}, above {self.options['max_new_colours']:.0%}", new)
        return Finding(True, reason, new)


def _expected_screen(case: CaseSpec) -> Image.Image | None:
    """The case's reference next screen, when it is one image (a trajectory's folder is not); one that does not decode
    is a GraderError, as for every reference."""
    from .imaging import load_path

    if case.reference is None or not case.reference.is_file():
        return None
    return load_path(case.reference, "reference image")


def _faded_where_kept(pair: ScreenPair, expected: np.ndarray) -> Fading | None:
    """The content areas the reference next screen keeps as the input had them, shown faded by the output."""
    from .faded_content import fading
    from .screen_compare import aligned, kept_pixels

    reference = aligned(pair.before, expected)
    kept, _ = kept_pixels(pair.before, reference)
    if not kept.any():
        return None
    return fading(aligned(pair.before, pair.after), reference, where=kept)


def _image(pixels: np.ndarray) -> Image.Image:
    from PIL import Image

    return Image.fromarray(pixels.astype("uint8"))
