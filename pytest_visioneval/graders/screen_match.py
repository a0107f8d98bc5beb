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

    from .screen_compare import ScreenPair

# numpy, PIL and the comparisons are imported where a screen is graded: collection imports this
# module for its options schema and must stay light.

GATES = ("orientation", "scale", "keeps_screen", "sharpness", "clean", "palette")

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
        findings = [(name, self._findings(ScreenPair.of(source, image))) for name, image in outputs]
        gates = []
        for gate in GATES:
            failed = [f"{name}: {found[gate].reason}" for name, found in findings if not found[gate].passed]
            shown = failed or [f"{name}: {found[gate].reason}" for name, found in findings]
            gates.append(Gate(gate, not failed, "; ".join(shown)))
        kept = findings[0][1]["keeps_screen"].value
        return Grade(gates=tuple(gates), metrics=(Metric("kept", kept, "share of the input screen's content kept"),))

    def _findings(self, pair: ScreenPair) -> dict[str, Finding]:
        """Each gate's verdict on one output."""
        from .screen_compare import geometry_scores

        scores = geometry_scores(pair)
        as_is = scores.pop("as it is")
        turned = {name: v for name, v in scores.items() if not name.startswith("scaled")}
        scaled = {name: v for name, v in scores.items() if name.startswith("scaled")}
        return {
            "orientation": self._geometry(as_is, turned, self.options["orientation_margin"]),
            "scale": self._geometry(as_is, scaled, self.options["scale_margin"]),
            "keeps_screen": self._kept(as_is),
            "sharpness": self._sharpness(pair),
            "clean": self._clean(pair),
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

    def _palette(self, pair: ScreenPair) -> Finding:
        from .screen_palette import new_colour_share, palette

        limit = self.options["max_delta_e"]
        new = new_colour_share(palette(_image(pair.after)), palette(_image(pair.before)), limit)
        reason = f"{new:.1%} of it in colours the input lacks (CIEDE2000 > {limit:g})"
        if new > self.options["max_new_colours"]:
            return Finding(False, f"{reason}, above {self.options['max_new_colours']:.0%}", new)
        return Finding(True, reason, new)


def _image(pixels: np.ndarray) -> Image.Image:
    from PIL import Image

    return Image.fromarray(pixels.astype("uint8"))
