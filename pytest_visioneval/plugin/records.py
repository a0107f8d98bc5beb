"""The per-test record that travels from a worker to the controller.

It rides in ``item.user_properties`` under the key ``visioneval`` as a dict of
builtin types only (xdist serializes user properties; a numpy float would
crash it). The controller reads it once, from the teardown report.

Under xdist every report is serialized and sent to the controller, the setup
and call reports too; they carry the record without the evaluation's results
(:func:`for_early_report`), enough to name the case if its worker dies before
the teardown report. The whole record three times over cost about 0.23 ms of
CPU per report between the worker and the controller (execnet's serializer).

execnet's serializer walks a nested dict value by value in Python, on the
worker and again on the controller: 0.13 ms each way for a teardown record of
2.4 KB. A string it copies whole. So a serialized report carries the record as
one JSON text (:func:`pack_record`, on the worker) and the controller reads it
back before pytest rebuilds the report (:func:`unpack_record`): about 0.05 ms
each way, json's work being done in C.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ..cases.paths import display_path
from ..run.entries import group_fields, threshold_entry

PROPERTY = "visioneval"

# What an evaluation adds to a record; the identity (uid, suite, thresholds, model...) is the rest.
_RESULTS = ("gates", "metrics", "artifacts", "skipped_graders")
_RESULTS_MORE = frozenset({"usage", "judges", "timings", "mutation", "repeats", "flaky_gates", "flaky_metrics", "not_evaluated"})


def record_for(item: pytest.Item) -> dict[str, Any]:
    """The item's record, created on first use.

    For a plain Python test the suite defaults to its module's file name.
    """
    for name, value in item.user_properties:
        if name == PROPERTY and isinstance(value, dict):
            return value
    case = getattr(item, "case", None)
    suite_spec = getattr(item, "suite", None)
    if case is not None and suite_spec is not None:
        identity: dict[str, Any] = {
            "uid": case.uid,
            "suite": case.suite,
            "case_id": case.id,
            "protocol": case.protocol,
            "task": case.task,
            "tags": list(case.tags),
            "source": f"{display_path(case.source, item.config.rootpath)}:{case.line}",
            "prompt": case.prompt,
            "criteria": case.criteria,
            "inputs": {
                "images": [str(p) for p in case.images],
                "mask": str(case.mask) if case.mask else None,
                "reference": str(case.reference) if case.reference else None,
            },
            "thresholds": [threshold_entry(t) for t in suite_spec.thresholds],
            "fields": group_fields(case),
            "graders": {grader.name: grader.use for grader in case.graders},  # a judge renamed in the file is still one
        }
        label = getattr(item, "model_label", None)
        if label is not None:  # one of several models; a run of one fills in its model from the outcome
            identity["model"] = label
    else:
        suite = Path(str(item.path)).stem
        identity = {
            "uid": f"{suite}/{item.name}",
            "suite": suite,
            "case_id": item.name,
            "protocol": "python",
            "task": None,
            "tags": [],
            "source": item.nodeid,
            "thresholds": [],
        }
    record: dict[str, Any] = {**identity, **{key: [] for key in _RESULTS}, "error": None}
    item.user_properties.append((PROPERTY, record))
    return record


def for_early_report(report: pytest.TestReport) -> None:
    """Keep only the record's identity in a setup or call report (see the module's note); the teardown keeps it whole."""
    properties = report.user_properties
    for index, (name, value) in enumerate(properties):
        if name == PROPERTY and isinstance(value, dict):
            identity = {k: v for k, v in value.items() if k not in _RESULTS_MORE}
            identity.update({k: [] for k in _RESULTS})
            properties[index] = (PROPERTY, identity)
            return


def pack_record(data: dict[str, Any]) -> None:
    """In a report serialized on an xdist worker, our record as one JSON text (see the module's note).

    Only a record that JSON gives back as it is: a tuple or a key that is not a string would come back
    changed, so such a record travels as it did.
    """
    properties = data.get("user_properties")
    if not isinstance(properties, list):
        return
    for index, (name, value) in enumerate(properties):
        if name == PROPERTY and isinstance(value, dict):
            text = json.dumps(value)
            if json.loads(text) == value:
                # A new list: the serialized form shares the report's own list, which stays as it is.
                data["user_properties"] = [*properties[:index], (name, text), *properties[index + 1 :]]
            return


def unpack_record(data: dict[str, Any]) -> None:
    """On the controller, before pytest rebuilds the report: the record packed by :func:`pack_record` as a dict."""
    properties = data.get("user_properties")
    if not isinstance(properties, list):
        return
    for index, (name, value) in enumerate(properties):
        if name == PROPERTY and isinstance(value, str) and value.startswith("{"):
            try:
                record = json.loads(value)
            except ValueError:
                return  # a text of the user's under our name: left as it came
            properties[index] = (name, record)
            return
