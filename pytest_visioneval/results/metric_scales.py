"""The declared scale of metrics that are not on 0-1, for baseline tolerances.

A baseline tolerance of ``0.01`` is one hundredth of a value's scale. On a
0-1 metric that is one point in a hundred; on a metric with units of its own
(CIEDE2000, pixels, grey levels, a judge's 0-10) a scale of 1 would make any
visible change a regression. Each entry gives the width at which 0.01 of it
is the smallest change a person or the grader tells apart:

* CIEDE2000 (``mean_delta_e``): 100, the span of L*; 0.01 of it is 1.0
  deltaE00, about one just-noticeable colour difference.
* grey or RGB levels (``tone_change``, ``faint_change_outside``): 255, the
  span of a channel; 0.01 of it is 2.55 levels (re-encodes and +-5
  brightness move these by up to 5).
* pixels (locality's ``shift``): 100; 0.01 of it is one pixel, the smallest
  whole-pixel move.
* judge scores on 0-10 (``viescore``, ``image_quality``, and ``score`` at its
  default scale, each with its ``.std`` spread): 10; 0.01 of it is a tenth
  of a point.

Keys are a metric's name after its grader's (``mean_delta_e`` whatever the
grader is called) or a grader's default name with the metric (``viescore.*``:
a grader given another ``name:`` in a case file is not recognised and keeps
scale 1). Protocol scores declare their own scale (``ScoreSpec``) and come
first.
"""

from __future__ import annotations

from fnmatch import fnmatchcase

DELTA_E = 100.0
LEVELS = 255.0
PIXELS = 100.0
JUDGE_0_10 = 10.0

# The metric's own name (after the grader's), whatever the grader is called.
BY_METRIC: dict[str, float] = {
    "mean_delta_e": DELTA_E,
    "tone_change": LEVELS,
    "faint_change_outside": LEVELS,
}
# "grader.metric" patterns for a grader under its default name.
BY_GRADER: dict[str, float] = {
    "locality.shift": PIXELS,
    "viescore.*": JUDGE_0_10,
    "image_quality.*": JUDGE_0_10,
    "score.*": JUDGE_0_10,  # the score grader's default scale (its option `scale`)
}
ON_0_1 = ("*.normalized", "*.p_yes")  # a 0-1 value among a 0-10 grader's metrics


def declared_scale(name: str) -> float | None:
    """The declared scale of metric ``name`` (``grader.metric``, a spread ``.std`` as its metric), or None."""
    base = name.removesuffix(".std")
    if any(fnmatchcase(base, pattern) for pattern in ON_0_1):
        return None
    own = base.rpartition(".")[2]
    if own in BY_METRIC:
        return BY_METRIC[own]
    for pattern, scale in BY_GRADER.items():
        if fnmatchcase(base, pattern):
            return scale
    return None
