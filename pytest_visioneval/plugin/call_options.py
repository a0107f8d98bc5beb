"""Options for the call layer: concurrency, cache, prices (see :mod:`pytest_visioneval.calls.layer`).

Read once per process into a :class:`~pytest_visioneval.calls.layer.CallLayer`,
which the model and judge settings then carry to every adapter.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from ..calls.cache import MODES
from ..calls.layer import CallLayer, CallSettings
from ..calls.usage import Prices
from ..errors import ConfigError
from .batch_options import add_batch_options, build_batch_options
from .options import GROUP, Settings, option_pair, option_path, option_value

call_layer_key = pytest.StashKey[CallLayer]()
SLOTS_WORKERINPUT_KEY = "visioneval_slot_server"


def add_call_options(parser: pytest.Parser) -> None:
    both = option_pair(parser, parser.getgroup(GROUP))
    both(
        "--eval-concurrency",
        "visioneval_concurrency",
        "at most N model/judge calls in flight across the whole run (all xdist workers); cases are evaluated "
        "ahead of pytest's order so calls overlap (default: one case at a time per worker)",
        metavar="N",
    )
    both(
        "--eval-cache",
        "visioneval_cache",
        "call cache: on (read and write, default), read (only read), write (only write), off",
        metavar="MODE",
    )
    both(
        "--eval-wait-timeout",
        "visioneval_wait_timeout",
        "with --eval-concurrency under xdist: seconds a worker waits for a case another worker is evaluating "
        "before it reports the case as an error (default 1800; a worker that stops responding is detected in 60 s)",
        metavar="SECONDS",
    )
    both("--eval-cache-dir", "visioneval_cache_dir", "where cached calls live (default: <eval-output-dir>/cache)", metavar="DIR")
    both(
        "--eval-prices",
        "visioneval_prices",
        "YAML/JSON file of prices per model (input_per_million, output_per_million, per_image, per_call) for cost totals",
        metavar="FILE",
    )
    add_batch_options(parser)


def build_call_settings(config: pytest.Config, settings: Settings, run_folder: Path) -> CallSettings:
    try:
        return _build(config, settings, run_folder)
    except ConfigError as exc:
        raise pytest.UsageError(f"pytest-visioneval: {exc}") from None


def _build(config: pytest.Config, settings: Settings, run_folder: Path) -> CallSettings:
    root = config.rootpath
    raw = option_value(config, "visioneval_concurrency")
    concurrency = None
    if raw is not None:
        try:
            concurrency = int(raw)
        except ValueError:
            raise ConfigError(f"--eval-concurrency expects a whole number, got {raw!r}") from None
        if concurrency < 1:
            raise ConfigError(f"--eval-concurrency must be at least 1, got {concurrency}")
    wait_timeout = 1800.0
    raw_wait = option_value(config, "visioneval_wait_timeout")
    if raw_wait is not None:
        try:
            wait_timeout = float(raw_wait)
        except ValueError:
            raise ConfigError(f"--eval-wait-timeout expects seconds, got {raw_wait!r}") from None
        if not wait_timeout > 0:
            raise ConfigError(f"--eval-wait-timeout must be more than 0 seconds, got {raw_wait}")
    mode = str(option_value(config, "visioneval_cache") or "on")
    if mode not in MODES:
        raise ConfigError(f"--eval-cache must be one of {', '.join(MODES)}, got {mode!r}")
    prices_path = option_path(config, "visioneval_prices", root)
    prices = Prices()
    if prices_path is not None:
        try:
            prices = Prices.load(prices_path)
        except (OSError, ValueError) as exc:
            raise ConfigError(f"--eval-prices: {exc}") from None
    batch = build_batch_options(config, Path(settings.output_dir), mode)
    return CallSettings(
        concurrency=concurrency,
        max_attempts=settings.model_settings.max_retries + 1,
        cache_dir=option_path(config, "visioneval_cache_dir", root) or Path(settings.output_dir) / "cache",
        cache_mode=mode,
        # One process (no xdist) limits its calls with its own semaphore: the run lock keeps any other
        # process out of this run folder, so slot files would only add a lock and an unlock per call.
        # An xdist worker takes its slots from the controller's server; the files are its fallback.
        slots_dir=run_folder / ".slots" if hasattr(config, "workerinput") else None,
        slots_server=getattr(config, "workerinput", {}).get(SLOTS_WORKERINPUT_KEY),
        prices=prices,
        wait_timeout=wait_timeout,
        batch_kinds=batch.kinds,
        batch_dir=batch.dir,
        batch_retry=batch.retry,
        batch_wait=batch.wait,
        batch_poll=batch.poll,
        max_cost=batch.max_cost,
        budget_path=run_folder / ".budget.json",
    )


def with_call_layer(settings: Settings, layer: CallLayer) -> Settings:
    """The settings with the layer handed to the model and judge adapters."""
    return dataclasses.replace(
        settings,
        model_settings=dataclasses.replace(settings.model_settings, calls=layer),
        judge_settings=dataclasses.replace(settings.judge_settings, calls=layer),
    )
