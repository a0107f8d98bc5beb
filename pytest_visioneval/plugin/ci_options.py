"""Options for running evals in CI: baseline comparison, shards, the HTML report, intervals and threshold policy.

Kept apart from :mod:`options` (which configures the run itself); the same
pattern applies: a command-line option with an ini twin, read once into a
frozen object in ``config.stash``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ..errors import ConfigError
from ..results.baseline import DEFAULT_BASELINE_TOLERANCE, Tolerance, parse_tolerances
from ..results.statistics import DEFAULT_CONFIDENCE
from ..results.thresholds import INCONCLUSIVE, THRESHOLD_ON
from .options import GROUP, option_pair, option_path, option_value

_SHARD = re.compile(r"^(?P<k>\d+)/(?P<n>\d+)$")


@dataclass(frozen=True)
class CiSettings:
    baseline: Path | None = None
    baseline_tolerance: Tolerance = Tolerance(DEFAULT_BASELINE_TOLERANCE)
    metric_tolerances: dict[str, Tolerance] = field(default_factory=dict)
    shard: tuple[int, int] | None = None  # (k, n), 1-based
    report: Path | None = None
    report_embed: bool = False  # images inside the report file instead of <report>_files/
    repeats: int = 1
    confidence: float = DEFAULT_CONFIDENCE  # the level of every interval
    threshold_on: str = "mean"  # mean or bound: what must clear a threshold
    inconclusive: str = "pass"  # pass or fail: an inconclusive threshold under threshold_on=mean


ci_settings_key = pytest.StashKey[CiSettings]()


def add_ci_options(parser: pytest.Parser) -> None:
    group = parser.getgroup(GROUP)

    both = option_pair(parser, group)

    both(
        "--eval-baseline",
        "visioneval_baseline",
        "compare with this earlier results JSON; a regression fails the run",
        metavar="FILE",
    )
    both(
        "--eval-baseline-tolerance",
        "visioneval_baseline_tolerance",
        "allowed worsening before it counts as a regression: a share of the value's scale for every metric "
        f"(default {DEFAULT_BASELINE_TOLERANCE}: 0.01 of 0-1, 1 point of a 0-100 score), a percentage of the value "
        "before (a number and a percent sign), or NAME=VALUE for one metric or gate (repeatable)",
        ini_type="linelist",
        default=[],
        action="append",
        metavar="VALUE|NAME=VALUE",
    )
    both("--eval-shard", "visioneval_shard", "run only shard K of N (1-based), split deterministically by case id", metavar="K/N")
    both(
        "--eval-repeats",
        "visioneval_repeats",
        "run each case N times; repeat_policy combines them, flips are flagged flaky",
        metavar="N",
    )
    both(
        "--eval-report",
        "visioneval_report",
        "write the HTML report to PATH, its images to <PATH without .html>_files/ (see --eval-report-embed)",
        metavar="PATH",
    )
    both(
        "--eval-report-embed",
        "visioneval_report_embed",
        "make the HTML report one self-contained file: images embedded, downscaled (larger file)",
        ini_type="bool",
        default=False,
        action="store_true",
    )
    both(
        "--eval-confidence",
        "visioneval_confidence",
        f"confidence level of the intervals around every mean, pass rate and benchmark score (default {DEFAULT_CONFIDENCE})",
        metavar="LEVEL",
    )
    both(
        "--eval-threshold-on",
        "visioneval_threshold_on",
        "what must clear a threshold: mean (default; the mean decides) or bound (the interval's lower bound "
        "for a minimum, its upper bound for a maximum)",
        metavar="|".join(THRESHOLD_ON),
    )
    both(
        "--eval-inconclusive",
        "visioneval_inconclusive",
        "a threshold the mean meets but whose bound lies inside the interval: pass (default; reported as "
        "inconclusive) or fail (fails the run like a missed one)",
        metavar="|".join(INCONCLUSIVE),
    )


def build_ci_settings(config: pytest.Config) -> CiSettings:
    try:
        return _build(config)
    except ConfigError as exc:
        raise pytest.UsageError(f"pytest-visioneval: {exc}") from None


def parse_shard(text: str) -> tuple[int, int]:
    match = _SHARD.match(text.strip())
    if not match or not 1 <= int(match["k"]) <= int(match["n"]):
        raise ConfigError(f"--eval-shard expects K/N with 1 <= K <= N (e.g. 2/4), got {text!r}")
    return int(match["k"]), int(match["n"])


def parse_confidence(raw: object) -> float:
    """``--eval-confidence``: a level strictly between 0 and 1 (the default when not given)."""
    if raw is None:
        return DEFAULT_CONFIDENCE
    try:
        level = float(str(raw))
    except ValueError:
        raise ConfigError(f"--eval-confidence expects a number, got {raw!r}") from None
    if not 0 < level < 1:
        raise ConfigError(f"--eval-confidence must lie strictly between 0 and 1 (e.g. 0.95), got {raw!r}")
    return level


def _choice(config: pytest.Config, name: str, flag: str, choices: tuple[str, ...]) -> str:
    """One of ``choices`` (the first when not given); checked here because an ini value skips argparse's check."""
    value = str(option_value(config, name) or choices[0])
    if value not in choices:
        raise ConfigError(f"{flag} must be one of {', '.join(choices)}, got {value!r}")
    return value


def _build(config: pytest.Config) -> CiSettings:
    root = config.rootpath
    shard_text = option_value(config, "visioneval_shard")
    default, per_name = parse_tolerances([str(t) for t in (option_value(config, "visioneval_baseline_tolerance") or [])])
    repeats_text = option_value(config, "visioneval_repeats")
    try:
        repeats = int(repeats_text) if repeats_text is not None else 1
    except ValueError:
        raise ConfigError(f"--eval-repeats expects a whole number, got {repeats_text!r}") from None
    if repeats < 1:
        raise ConfigError(f"--eval-repeats must be at least 1, got {repeats}")
    return CiSettings(
        repeats=repeats,
        confidence=parse_confidence(option_value(config, "visioneval_confidence")),
        threshold_on=_choice(config, "visioneval_threshold_on", "--eval-threshold-on", THRESHOLD_ON),
        inconclusive=_choice(config, "visioneval_inconclusive", "--eval-inconclusive", INCONCLUSIVE),
        baseline=option_path(config, "visioneval_baseline", root),
        baseline_tolerance=default,
        metric_tolerances=per_name,
        shard=parse_shard(str(shard_text)) if shard_text else None,
        report=option_path(config, "visioneval_report", root),
        # A flag: the command line can only switch it on, so either source does.
        report_embed=bool(config.getoption("visioneval_report_embed", default=False) or config.getini("visioneval_report_embed")),
    )
