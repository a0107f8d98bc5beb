"""Intervals and tests: the bootstrap of a mean and the Wilson score interval behind every
aggregate, and the paired bootstrap and McNemar's exact test behind ``compare``.

All are small enough to write out, which keeps scipy out of the results layer
and makes every number reproducible from the seed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where used: the plugin reads DEFAULT_CONFIDENCE at start, numpy costs 0.1 s
    import numpy as np

DEFAULT_RESAMPLES = 10_000
# Fewer than compare's: a run bootstraps every metric of every group, and with 2,000 the 95% bounds
# still move by less than a tenth of the mean's standard error from one seed to another.
MEAN_RESAMPLES = 2_000
DEFAULT_CONFIDENCE = 0.95
DEFAULT_SEED = 0
# Indices drawn per block of resamples: bounds the memory a large comparison needs (~8 MB of int64).
_BLOCK_CELLS = 1_000_000


@dataclass(frozen=True)
class Interval:
    """The mean of paired differences ``b - a`` and its bootstrap interval at ``confidence``."""

    n: int
    mean_a: float
    mean_b: float
    diff: float
    low: float
    high: float
    confidence: float


def check_confidence(confidence: float) -> None:
    """Raise ``ValueError`` for a confidence outside (0, 1)."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie between 0 and 1, got {confidence}")


def check_bootstrap(confidence: float, resamples: int) -> None:
    """Raise ``ValueError`` for a confidence outside (0, 1) or fewer than one resample."""
    check_confidence(confidence)
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")


def paired_bootstrap(
    a: Sequence[float],
    b: Sequence[float],
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> Interval | None:
    """Percentile bootstrap interval of ``mean(b) - mean(a)`` over paired values; ``None`` with no pairs.

    The cases are resampled with replacement, keeping each case's two values
    together, so what both runs share about a case (its difficulty) cancels.
    Each call starts its own generator from ``seed``: an interval does not
    depend on which other intervals were computed before it.
    """
    if len(a) != len(b):
        raise ValueError(f"paired values need equal lengths, got {len(a)} and {len(b)}")
    check_bootstrap(confidence, resamples)
    n = len(a)
    if n == 0:
        return None
    mean_a = math.fsum(a) / n
    mean_b = math.fsum(b) / n
    import numpy as np

    diffs = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    diff = math.fsum(diffs.tolist()) / n
    low, high = _percentiles(_resampled_means(diffs, resamples, seed), confidence)
    # Rounding in the resampled means can put a constant difference a hair outside [low, high].
    return Interval(n, mean_a, mean_b, diff, min(low, diff), max(high, diff), confidence)


def bootstrap_mean(
    values: Sequence[float],
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    resamples: int = MEAN_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> tuple[float, float]:
    """Percentile bootstrap interval ``(low, high)`` of the mean of ``values``.

    The values are sorted first, so the interval depends on the values and not
    on the order they came in; with one value, or all equal, it is that value.
    """
    check_bootstrap(confidence, resamples)
    if len(values) == 0:
        raise ValueError("a bootstrap interval needs at least one value")
    import numpy as np

    ordered = np.sort(np.asarray(values, dtype=float))
    mean = math.fsum(ordered.tolist()) / len(ordered)
    if ordered[0] == ordered[-1]:
        return mean, mean  # no spread; resampling would only add rounding
    low, high = _percentiles(_resampled_means(ordered, resamples, seed), confidence)
    return min(low, mean), max(high, mean)


def wilson_interval(successes: int, n: int, confidence: float = DEFAULT_CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval ``(low, high)`` of a rate of ``successes`` out of ``n``.

    Unlike the normal approximation it stays inside [0, 1] and does not shrink
    to a point at 0/n or n/n, where a few cases say little.
    """
    check_confidence(confidence)
    if n < 1 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n and n >= 1, got {successes} of {n}")
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    rate = successes / n
    spread = z * z / n
    centre = (rate + spread / 2) / (1 + spread)
    half = z / (1 + spread) * math.sqrt(rate * (1 - rate) / n + spread / (4 * n))
    # At 0/n and n/n one end is exactly 0 or 1; computed, it can miss by a rounding error.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


def _resampled_means(values: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """The means of ``resamples`` resamples of ``values`` with replacement, drawn from a generator seeded ``seed``."""
    import numpy as np

    n = len(values)
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    block = max(1, _BLOCK_CELLS // n)
    for start in range(0, resamples, block):
        rows = min(block, resamples - start)
        means[start : start + rows] = values[rng.integers(0, n, size=(rows, n))].mean(axis=1)
    return means


def _percentiles(means: np.ndarray, confidence: float) -> tuple[float, float]:
    import numpy as np

    tail = (1 - confidence) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return float(low), float(high)


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Two-sided exact McNemar p-value from the discordant pairs.

    ``a_only``: cases that pass in run A and not in B; ``b_only``: the reverse.
    Under the null hypothesis each discordant case is a fair coin, so the
    p-value is twice the binomial tail ``P(X <= min(a_only, b_only))`` with
    ``X ~ Binomial(a_only + b_only, 1/2)``, capped at 1 (1 when no case is discordant).
    """
    if a_only < 0 or b_only < 0:
        raise ValueError(f"counts must not be negative, got {a_only} and {b_only}")
    n = a_only + b_only
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(a_only, b_only) + 1))
    # Exact integers, one correctly rounded division at the end.
    return min(1.0, 2 * tail / 2**n)
