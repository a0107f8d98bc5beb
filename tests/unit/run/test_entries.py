"""run/entries.py: metric_entry checks and normalises a metric."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from pytest_visioneval.cases.spec import Threshold
from pytest_visioneval.errors import MetricError
from pytest_visioneval.run.entries import gate_entry, metric_entry, threshold_entry


def test_metric_entry_shape() -> None:
    assert metric_entry("sim.score", 0.75, "close", higher_is_better=False) == {
        "name": "sim.score",
        "value": 0.75,
        "reason": "close",
        "higher_is_better": False,
    }


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (np.float64(0.25), 0.25),
        (np.float32(0.5), 0.5),
        (np.int64(3), 3.0),
        (np.bool_(True), 1.0),
        (True, 1.0),
        (False, 0.0),
        (7, 7.0),
        (Decimal("0.125"), 0.125),
        (Fraction(1, 4), 0.25),
    ],
)
def test_values_become_builtin_floats(value: Any, expected: float) -> None:
    entry = metric_entry("m", value)
    assert entry["value"] == expected
    assert type(entry["value"]) is float


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, np.float64("nan"), np.inf, 1e309])
def test_non_finite_values_are_rejected(value: Any) -> None:
    with pytest.raises(MetricError, match="must be finite"):
        metric_entry("m", value)


@pytest.mark.parametrize("value", ["high", "", None, [0.5], {"v": 1}, object(), 1 + 2j])
def test_non_numbers_are_rejected(value: Any) -> None:
    with pytest.raises(MetricError, match="'m' must be a number"):
        metric_entry("m", value)


@pytest.mark.parametrize("value", ["0.5", b"1"])
def test_numeric_strings_are_rejected(value: Any) -> None:
    with pytest.raises(MetricError):
        metric_entry("m", value)


@pytest.mark.parametrize("name", ["", None, 3])
def test_bad_names_are_rejected(name: Any) -> None:
    with pytest.raises(MetricError, match="non-empty string"):
        metric_entry(name, 1.0)


def test_reason_and_flag_are_builtin() -> None:
    entry = metric_entry("m", 1, reason=42, higher_is_better=np.bool_(False))  # type: ignore[arg-type]
    assert entry["reason"] == "42"
    assert entry["higher_is_better"] is False


def test_gate_entry() -> None:
    assert gate_entry("image.decodes", np.bool_(True), "ok", 1) == {  # type: ignore[arg-type]
        "name": "image.decodes",
        "passed": True,
        "reason": "ok",
        "gating": True,
    }
    assert type(gate_entry("g", np.bool_(False), "r", False)["passed"]) is bool  # type: ignore[arg-type]


def test_threshold_entry() -> None:
    assert threshold_entry(Threshold("ui", "m", min=0.5, source="f:2")) == {
        "suite": "ui",
        "metric": "m",
        "min": 0.5,
        "max": None,
        "source": "f:2",
    }
