"""The results JSON: every case with its scores, reasons and artifacts.

Versioned: ``schema`` names the format and ``schema_version`` is bumped on
any incompatible change. The JSON Schema ships as
``pytest_visioneval/report/schema/results.schema.json`` (docs/results-format.md).
"""

from __future__ import annotations

import json
import platform
import re
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import Any

from .. import __version__
from ..artifacts import write_atomic
from ..calls.redact import redact_data
from ..calls.usage import judge_provenance
from ..results.aggregate import timings
from ..results.verdict import Verdict

SCHEMA_NAME = "pytest-visioneval/results"
SCHEMA_VERSION = 1


def results_schema() -> dict[str, Any]:
    text = resources.files(__package__).joinpath("schema", "results.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).isoformat(timespec="seconds")


# Credentials a URL may carry: its userinfo (``https://user:KEY@host``) and its query (``?api-key=KEY``).
_URL_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)[^/\s@?#]*@")
_URL_QUERY = re.compile(r"(?P<url>[A-Za-z][A-Za-z0-9+.-]*://[^\s?#]*)\?[^\s#]*")


def redact_argv(args: Sequence[str]) -> list[str]:
    """The command line, with the credentials of every URL in it replaced by ``***`` (as in cache keys)."""
    return [_URL_QUERY.sub(r"\g<url>?***", _URL_USERINFO.sub(r"\g<scheme>***@", str(arg))) for arg in args]


@dataclass(frozen=True)
class RunInfo:
    """Who ran what, when: the ``run`` block of the document (plain values, from the pytest side)."""

    run_id: str
    model: str
    model_params: Mapping[str, Any]
    started: float
    output_dir: Path
    argv: Sequence[str]
    pytest_version: str
    models: Sequence[tuple[str, str]] = ()  # (label, spec) of each --model, when the run had several


def build(
    run: RunInfo,
    records: list[dict[str, Any]],
    aggregates: dict[str, Any],
    verdict: Verdict,
    benchmarks: dict[str, Any] | None = None,
    usage: dict[str, Any] | None = None,
    mutation: dict[str, Any] | None = None,
    incomplete: dict[str, Any] | None = None,
    models: Mapping[str, Mapping[str, Any]] | None = None,
    agreement: Mapping[str, Any] | None = None,
    judges: Mapping[str, Any] | None = None,
    calls: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The document; ``models`` (label -> aggregates, benchmarks, usage) for a run of several models."""
    document: dict[str, Any] = {
        "schema": SCHEMA_NAME,
        "schema_version": SCHEMA_VERSION,
        "run": {
            "id": run.run_id,
            "model": run.model,
            "model_params": dict(run.model_params),
            "started": _iso(run.started),
            "finished": _iso(time.time()),
            "output_dir": str(run.output_dir),
            "plugin_version": __version__,
            "pytest_version": run.pytest_version,
            "python_version": platform.python_version(),
            "argv": redact_argv(run.argv),
            "platform": sys.platform,
        },
        "cases": records,
        "aggregates": aggregates,
        "benchmarks": benchmarks or {},
        "usage": usage or {},
        "judges": dict(judges) if judges is not None else judge_provenance(records),
        "timings": timings(records),
        "thresholds": [t.as_dict() for t in verdict.thresholds],
        "exit": {"status": verdict.exit_status, "reasons": list(verdict.reasons), "warnings": list(verdict.warnings)},
    }
    # Cases not evaluated (batches, budget), the provider batches and the budget: present only when they apply.
    document.update({name: value for name, value in (calls or {}).items() if value is not None})
    if models:
        # Several models: each one's numbers apart; the top-level aggregates count every case of the run,
        # and the top-level benchmarks are each model's, keyed "protocol [label]".
        labels = list(models)
        specs = dict(run.models)
        document["run"]["model"] = ", ".join(labels)
        document["run"]["models"] = labels
        # Every --model of the run, in command-line order (a shard or -k may have run only some).
        document["run"]["model_specs"] = {**specs, **{label: label for label in labels if label not in specs}}
        document["models"] = {
            label: {**section, "timings": timings([c for c in records if c.get("model") == label])}
            for label, section in models.items()
        }
    if agreement is not None:
        document["agreement"] = dict(agreement)  # --eval-labels: the judges against the people
    document["complete"] = incomplete is None
    if incomplete is not None:
        document["incomplete"] = incomplete
    if mutation and mutation.get("suites"):
        document["mutation"] = mutation
    return document


def write(path: Path, document: dict[str, Any]) -> None:
    write_atomic(Path(path), (json.dumps(redact_data(document), indent=2, sort_keys=False) + "\n").encode("utf-8"))
