"""The plain-JSON entries of a case record: gates, metrics, artifacts, thresholds.

A record travels from a worker to the controller (see
:mod:`pytest_visioneval.plugin.records`) and into the results JSON, so every
entry holds builtin types only.
"""

from __future__ import annotations

import decimal
import math
import numbers
import sys
from typing import Any

from ..artifacts import Artifact
from ..cases.spec import CaseSpec, Threshold
from ..errors import MetricError


def group_fields(case: CaseSpec) -> dict[str, Any]:
    """The case's protocol fields that group the benchmark scores (e.g. domain, dimension), and its compat mode."""
    from ..protocols import get_protocol  # imported on first use: keeps plugin start-up light
    from ..protocols.base import compat_mode

    protocol = get_protocol(case.protocol)
    if protocol is None:
        return {}
    grouping = {name: case.fields[name] for name in protocol.group_by if name in case.fields}
    return {**grouping, "compat": compat_mode(case.fields)}


def metric_entry(name: str, value: Any, reason: str = "", higher_is_better: bool = True) -> dict[str, Any]:
    """Check and normalise one metric; raise :class:`MetricError` if it is not a finite number."""
    if not isinstance(name, str) or not name:
        raise MetricError(f"metric name must be a non-empty string, got {name!r}")
    # numbers.Real covers int, float, bool and numpy's number scalars (np.bool_ is apart); a string that
    # happens to parse as a number is a caller's mistake, not a metric.
    if not isinstance(value, (numbers.Real, decimal.Decimal)) and not _is_numpy_bool(value):
        raise MetricError(f"metric {name!r} must be a number, got {value!r}")
    number = float(value)
    if not math.isfinite(number):
        raise MetricError(f"metric {name!r} must be finite, got {value!r}")
    return {"name": name, "value": number, "reason": str(reason), "higher_is_better": bool(higher_is_better)}


def _is_numpy_bool(value: Any) -> bool:
    # Without importing numpy (a tenth of a second at plugin start): a numpy value means numpy is loaded.
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(value, numpy.bool_)


def threshold_entry(t: Threshold) -> dict[str, Any]:
    # Case-file thresholds ride along with each case: the controller never
    # collects under xdist, so this is how it learns them.
    return {"suite": t.suite, "metric": t.metric, "min": t.min, "max": t.max, "source": t.source}


def artifact_entry(artifact: Artifact) -> dict[str, Any]:
    return {"name": artifact.name, "path": str(artifact.path), "mime": artifact.mime, "sha256": artifact.sha256}


def gate_entry(name: str, passed: bool, reason: str, gating: bool) -> dict[str, Any]:
    return {"name": name, "passed": bool(passed), "reason": str(reason), "gating": bool(gating)}
