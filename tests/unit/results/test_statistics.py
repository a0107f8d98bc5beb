"""results/statistics.py: McNemar's exact p against hand-computed binomial tails, the paired bootstrap's interval,
the Wilson interval against known values and scipy, the bootstrap interval of a mean."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from pytest_visioneval.results.statistics import bootstrap_mean, mcnemar_exact, paired_bootstrap, wilson_interval

# -- McNemar --


@pytest.mark.parametrize(
    ("a_only", "b_only", "expected"),
    [
        # n discordant pairs, X ~ Binomial(n, 1/2), p = 2 * P(X <= min), capped at 1.
        (0, 5, 2 * 1 / 32),  # 0.0625: five to none is not significant at 0.05
        (0, 6, 2 * 1 / 64),  # 0.03125: six to none is
        (3, 0, 2 * 1 / 8),  # 0.25
        (1, 9, 2 * (1 + 10) / 1024),  # C(10,0) + C(10,1)
        (9, 1, 2 * (1 + 10) / 1024),  # symmetric
        (2, 10, 2 * (1 + 12 + 66) / 4096),  # C(12,0) + C(12,1) + C(12,2)
        (2, 3, 1.0),  # 2 * (1 + 5 + 10) / 32 = 1, capped
        (4, 4, 1.0),  # a tie is never evidence
        (0, 0, 1.0),  # no discordant pair: nothing to test
    ],
)
def test_mcnemar_exact_matches_the_binomial_tail_by_hand(a_only: int, b_only: int, expected: float) -> None:
    assert mcnemar_exact(a_only, b_only) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(("a_only", "b_only"), [(1, 2), (7, 19), (30, 12), (250, 310), (400, 600)])
def test_mcnemar_exact_agrees_with_scipys_binomial_test(a_only: int, b_only: int) -> None:
    # scipy is a dependency for other commands; here it only checks our exact integer arithmetic.
    expected = stats.binomtest(min(a_only, b_only), a_only + b_only, 0.5, alternative="two-sided").pvalue
    assert mcnemar_exact(a_only, b_only) == pytest.approx(expected, rel=1e-9)


def test_mcnemar_refuses_negative_counts() -> None:
    with pytest.raises(ValueError, match="negative"):
        mcnemar_exact(-1, 3)


# -- paired bootstrap --


def test_a_constant_difference_has_a_zero_width_interval() -> None:
    interval = paired_bootstrap([1.0, 2.0, 3.0, 10.0], [1.5, 2.5, 3.5, 10.5])
    assert interval is not None
    assert (interval.n, interval.mean_a, interval.mean_b) == (4, 4.0, 4.5)
    assert interval.diff == interval.low == interval.high == pytest.approx(0.5)


def test_two_cases_give_the_hand_computed_interval() -> None:
    # Differences 0 and 1: a resample's mean is 0, 0.5 or 1 with probabilities 1/4, 1/2, 1/4,
    # so the 2.5% and 97.5% points of the resampled means are 0 and 1.
    interval = paired_bootstrap([0.0, 0.0], [0.0, 1.0])
    assert interval is not None
    assert (interval.diff, interval.low, interval.high) == (0.5, 0.0, 1.0)


def test_no_pairs_give_no_interval_and_bad_arguments_are_refused() -> None:
    assert paired_bootstrap([], []) is None
    with pytest.raises(ValueError, match="equal lengths"):
        paired_bootstrap([1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="confidence"):
        paired_bootstrap([1.0], [2.0], confidence=1.5)
    with pytest.raises(ValueError, match="resamples"):
        paired_bootstrap([1.0], [2.0], resamples=0)


def _sample(n: int, shift: float, seed: int) -> tuple[list[float], list[float]]:
    """Cases of very different difficulty (sd 10) that B improves by ``shift`` with some noise (sd 1)."""
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(50, 10, n)
    return difficulty.tolist(), (difficulty + shift + rng.normal(0, 1, n)).tolist()


def test_the_interval_contains_the_true_difference_and_shrinks_with_n() -> None:
    widths = {}
    for n in (30, 1000):
        a, b = _sample(n, 0.4, seed=7)
        interval = paired_bootstrap(a, b)
        assert interval is not None
        assert interval.low < 0.4 < interval.high
        widths[n] = interval.high - interval.low
        # The normal-theory width 2 * 1.96 * sd / sqrt(n) with sd = 1 (the noise of the differences).
        if n == 1000:
            assert widths[n] == pytest.approx(2 * 1.96 / math.sqrt(n), rel=0.15)
    assert widths[1000] < widths[30] / 3  # sqrt(1000 / 30) = 5.8 in theory


def test_pairing_removes_what_the_cases_share() -> None:
    # The case difficulty (sd 10) dwarfs the improvement (0.4), yet the paired interval excludes 0.
    a, b = _sample(200, 0.4, seed=3)
    interval = paired_bootstrap(a, b)
    assert interval is not None and interval.low > 0
    unpaired_se = math.sqrt(np.var(a) / len(a) + np.var(b) / len(b))
    # Unpaired, the 95% interval would be 2 * 1.96 * unpaired_se wide: about 14 times the paired one.
    assert interval.high - interval.low < unpaired_se


def test_coverage_is_close_to_the_nominal_level() -> None:
    true_shift = -0.25
    covered = 0
    trials = 200
    for seed in range(trials):
        a, b = _sample(40, true_shift, seed=1000 + seed)
        interval = paired_bootstrap(a, b, resamples=2000, seed=seed)
        assert interval is not None
        covered += interval.low <= true_shift <= interval.high
    assert 0.88 <= covered / trials <= 0.99  # 95% nominal; percentile intervals run a little short at n=40


def test_the_seed_makes_the_interval_reproducible() -> None:
    a, b = _sample(50, 0.1, seed=1)
    first, again, other = paired_bootstrap(a, b, seed=5), paired_bootstrap(a, b, seed=5), paired_bootstrap(a, b, seed=6)
    assert first == again
    assert first is not None and other is not None and (first.low, first.high) != (other.low, other.high)
    assert first.diff == other.diff  # the point estimate does not depend on resampling


def test_a_wider_confidence_gives_a_wider_interval() -> None:
    a, b = _sample(60, 0.2, seed=2)
    narrow, wide = paired_bootstrap(a, b, confidence=0.8), paired_bootstrap(a, b, confidence=0.99)
    assert narrow is not None and wide is not None
    assert wide.low < narrow.low < narrow.diff < narrow.high < wide.high


def test_many_cases_are_resampled_in_blocks_with_the_same_result() -> None:
    # 5,000 cases x 10,000 resamples would be 400 MB of indices at once; blocks keep it small.
    a, b = _sample(5000, 0.05, seed=4)
    interval = paired_bootstrap(a, b, resamples=500)
    assert interval is not None
    assert interval.low < 0.05 < interval.high
    assert interval.high - interval.low == pytest.approx(2 * 1.96 / math.sqrt(5000), rel=0.2)


# -- Wilson score interval --


def test_wilson_interval_of_8_in_10_matches_the_published_value() -> None:
    low, high = wilson_interval(8, 10)
    assert (round(low, 3), round(high, 3)) == (0.49, 0.943)


def test_wilson_interval_at_the_ends_reaches_exactly_0_or_1() -> None:
    none_low, none_high = wilson_interval(0, 10)
    all_low, all_high = wilson_interval(10, 10)
    assert none_low == 0.0 and none_high == pytest.approx(0.2775, abs=1e-4)
    assert all_high == 1.0 and all_low == pytest.approx(0.7225, abs=1e-4)
    assert none_high == pytest.approx(1 - all_low)  # the interval is symmetric in successes and failures


@pytest.mark.parametrize(("successes", "n"), [(0, 1), (1, 1), (1, 3), (2, 3), (17, 40), (999, 1000)])
@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.99])
def test_wilson_interval_agrees_with_scipy(successes: int, n: int, confidence: float) -> None:
    expected = stats.binomtest(successes, n).proportion_ci(confidence_level=confidence, method="wilson")
    low, high = wilson_interval(successes, n, confidence)
    assert (low, high) == (pytest.approx(expected.low, abs=1e-12), pytest.approx(expected.high, abs=1e-12))


def test_wilson_interval_narrows_with_n_and_widens_with_the_level() -> None:
    widths = [high - low for low, high in (wilson_interval(k, n) for k, n in ((3, 4), (30, 40), (300, 400)))]
    assert widths[0] > widths[1] > widths[2]
    low_90, high_90 = wilson_interval(8, 10, 0.9)
    low_99, high_99 = wilson_interval(8, 10, 0.99)
    assert low_99 < low_90 and high_90 < high_99


@pytest.mark.parametrize(
    ("successes", "n", "confidence", "message"),
    [(1, 0, 0.95, "n >= 1"), (4, 3, 0.95, "successes <= n"), (-1, 3, 0.95, "0 <= successes"), (1, 2, 0.0, "confidence")],
)
def test_wilson_interval_refuses_bad_arguments(successes: int, n: int, confidence: float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        wilson_interval(successes, n, confidence)


# -- bootstrap of a mean --


def test_bootstrap_mean_contains_the_mean() -> None:
    values = np.random.default_rng(11).uniform(0, 1, 25).tolist()
    mean = math.fsum(values) / len(values)
    low, high = bootstrap_mean(values)
    assert low < mean < high


def test_bootstrap_mean_of_one_value_or_equal_values_is_that_value() -> None:
    assert bootstrap_mean([0.7]) == (0.7, 0.7)
    assert bootstrap_mean([0.1, 0.1, 0.1]) == (math.fsum([0.1] * 3) / 3,) * 2


def test_bootstrap_mean_narrows_as_n_grows() -> None:
    rng = np.random.default_rng(5)
    widths = {}
    for n in (10, 100, 1000):
        low, high = bootstrap_mean(rng.normal(0.5, 0.2, n).tolist())
        widths[n] = high - low
    assert widths[10] > widths[100] > widths[1000]
    # The normal-theory width 2 * 1.96 * sd / sqrt(n) with sd = 0.2.
    assert widths[1000] == pytest.approx(2 * 1.96 * 0.2 / math.sqrt(1000), rel=0.15)


def test_bootstrap_mean_is_the_same_across_calls_and_orderings() -> None:
    values = np.random.default_rng(3).uniform(0, 1, 40).tolist()
    first = bootstrap_mean(values)
    assert bootstrap_mean(values) == first
    assert bootstrap_mean(list(reversed(values))) == first
    assert bootstrap_mean(sorted(values)) == first
    assert bootstrap_mean(values, seed=1) != first  # the seed, not luck, makes it repeatable


def test_bootstrap_mean_of_two_values_gives_the_hand_computed_interval() -> None:
    # A resample's mean of {0, 1} is 0, 0.5 or 1 with probabilities 1/4, 1/2, 1/4.
    assert bootstrap_mean([1.0, 0.0]) == (0.0, 1.0)
    assert bootstrap_mean([1.0, 0.0], confidence=0.4) == (0.5, 0.5)


def test_bootstrap_mean_refuses_bad_arguments() -> None:
    with pytest.raises(ValueError, match="at least one value"):
        bootstrap_mean([])
    with pytest.raises(ValueError, match="confidence"):
        bootstrap_mean([1.0, 2.0], confidence=1.0)
    with pytest.raises(ValueError, match="resamples"):
        bootstrap_mean([1.0, 2.0], resamples=0)
