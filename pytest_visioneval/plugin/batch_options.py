"""Options for provider batches and the run's budget: ``--eval-batch*`` and ``--eval-max-cost``.

They end up in the :class:`~pytest_visioneval.calls.layer.CallSettings` (see
:mod:`call_options`); the workflow is described in docs/calls.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import pytest

from ..errors import ConfigError
from .options import GROUP, option_pair, option_path, option_value

BATCH_CHOICES = {"model": ("model",), "judge": ("judge",), "both": ("model", "judge"), "off": ()}
RETRY_CHOICES = ("batch", "direct")
DEFAULT_POLL_SECONDS = 30.0


@dataclass(frozen=True)
class BatchOptions:
    kinds: frozenset[str] = frozenset()
    dir: Path | None = None
    retry: str = "batch"
    wait: float | None = None  # --eval-batch-wait: seconds to wait for batches in this run (None: do not wait)
    poll: float = DEFAULT_POLL_SECONDS
    max_cost: float | None = None  # --eval-max-cost, USD


def add_batch_options(parser: pytest.Parser) -> None:
    both = option_pair(parser, parser.getgroup(GROUP))
    both(
        "--eval-batch",
        "visioneval_batch",
        "send calls of this kind through the provider's batch API (half price, results within hours) instead of "
        "directly: model, judge, both or off (default); a run queues and submits what it misses, a later run "
        "collects what has returned (docs/calls.md)",
        metavar="KIND",
    )
    both(
        "--eval-batch-wait",
        "visioneval_batch_wait",
        "with --eval-batch: submit, wait up to SECONDS for the batches (and the batches that depend on them, "
        "e.g. judging generated images), then grade, all in this run",
        metavar="SECONDS",
    )
    both(
        "--eval-batch-poll",
        "visioneval_batch_poll",
        f"with --eval-batch-wait: seconds between status checks (default {DEFAULT_POLL_SECONDS:g})",
        metavar="SECONDS",
    )
    both(
        "--eval-batch-retry",
        "visioneval_batch_retry",
        "a request that failed inside a batch is retried in the next batch (batch, default) or at once, "
        "directly and at the direct price (direct); --model-max-retries bounds both",
        metavar="HOW",
    )
    both(
        "--eval-batch-dir",
        "visioneval_batch_dir",
        "where queued requests, submitted batches and their replies are kept (default: <eval-output-dir>/batches)",
        metavar="DIR",
    )
    both(
        "--eval-max-cost",
        "visioneval_max_cost",
        "stop making new model and judge calls once their estimated cost would take the run past USD "
        "(priced by --eval-prices); cases left out are reported as not evaluated",
        metavar="USD",
    )


def build_batch_options(config: pytest.Config, output_dir: Path, cache_mode: str) -> BatchOptions:
    root = config.rootpath
    raw = str(option_value(config, "visioneval_batch") or "off")
    if raw not in BATCH_CHOICES:
        raise ConfigError(f"--eval-batch must be one of {', '.join(BATCH_CHOICES)}, got {raw!r}")
    kinds = frozenset(BATCH_CHOICES[raw])
    if kinds and cache_mode != "on":
        # A batch's replies reach the cases through the cache; without it nothing could be collected.
        raise ConfigError(f"--eval-batch needs the call cache (--eval-cache on), not --eval-cache {cache_mode}")
    retry = str(option_value(config, "visioneval_batch_retry") or "batch")
    if retry not in RETRY_CHOICES:
        raise ConfigError(f"--eval-batch-retry must be one of {', '.join(RETRY_CHOICES)}, got {retry!r}")
    wait = _seconds(config, "visioneval_batch_wait", "--eval-batch-wait")
    if wait is not None and not kinds:
        raise ConfigError("--eval-batch-wait needs --eval-batch model, judge or both")
    poll = _seconds(config, "visioneval_batch_poll", "--eval-batch-poll")
    max_cost = _seconds(config, "visioneval_max_cost", "--eval-max-cost", what="an amount in USD")
    return BatchOptions(
        kinds=kinds,
        dir=option_path(config, "visioneval_batch_dir", root) or output_dir / "batches",
        retry=retry,
        wait=wait,
        poll=DEFAULT_POLL_SECONDS if poll is None else poll,
        max_cost=max_cost,
    )


def _seconds(config: pytest.Config, name: str, flag: str, what: str = "seconds") -> float | None:
    raw = option_value(config, name)
    if raw is None:
        return None
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{flag} expects {what}, got {raw!r}") from None
    if not math.isfinite(value) or value < 0:
        raise ConfigError(f"{flag} must be a number of at least 0, got {raw!r}")
    return value
