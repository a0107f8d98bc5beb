"""Benchmark protocols: case fields, default graders, per-case scores, aggregates."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import lazy_exports

if TYPE_CHECKING:
    from .base import BenchmarkProtocol, ScoreSpec, gate_passed, metric_value
    from .registry import BUILTIN_PROTOCOLS, get_protocol

# Each name is imported from its module on first use (see lazy_exports).
_EXPORTS = {
    "BenchmarkProtocol": ".base",
    "ScoreSpec": ".base",
    "gate_passed": ".base",
    "metric_value": ".base",
    "BUILTIN_PROTOCOLS": ".registry",
    "get_protocol": ".registry",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = ["BUILTIN_PROTOCOLS", "BenchmarkProtocol", "ScoreSpec", "gate_passed", "get_protocol", "metric_value"]
