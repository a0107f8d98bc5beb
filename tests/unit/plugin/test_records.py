"""plugin/records.py: the record a test's reports carry to the controller."""

from __future__ import annotations

import copy
from types import SimpleNamespace
from typing import Any

from pytest_visioneval.plugin.records import PROPERTY, for_early_report


def evaluated_record() -> dict[str, Any]:
    return {
        "uid": "demo/one",
        "suite": "demo",
        "case_id": "one",
        "protocol": "cookbook",
        "task": "image_generation",
        "tags": ["logo"],
        "thresholds": [{"metric": "image.width", "op": ">=", "value": 1}],
        "model": "openai:m",
        "error": None,
        "gates": [{"name": "image.not_blank", "passed": True, "reason": "", "gating": True}],
        "metrics": [{"name": "score.quality", "value": 0.8, "reason": "", "higher_is_better": True}],
        "artifacts": [{"name": "image-0.png", "path": "/out/image-0.png", "mime": "image/png"}],
        "skipped_graders": [],
        "usage": {"model": {"calls": 1}},
        "judges": {"openai:j": {"endpoint": "http://x/v1"}},
        "timings": {"case.seconds": 0.4},
        "mutation": {"mutants": []},
    }


def test_an_early_report_keeps_the_identity_and_drops_the_results() -> None:
    record = evaluated_record()
    kept = copy.deepcopy(record)
    report = SimpleNamespace(user_properties=[("other", 1), (PROPERTY, record), ("after", "x")])
    for_early_report(report)  # type: ignore[arg-type]
    name, early = report.user_properties[1]
    assert name == PROPERTY
    assert early == {
        "uid": "demo/one",
        "suite": "demo",
        "case_id": "one",
        "protocol": "cookbook",
        "task": "image_generation",
        "tags": ["logo"],
        "thresholds": [{"metric": "image.width", "op": ">=", "value": 1}],
        "model": "openai:m",
        "error": None,
        "gates": [],
        "metrics": [],
        "artifacts": [],
        "skipped_graders": [],
    }, f"an early report carries {early}"
    assert report.user_properties[0] == ("other", 1) and report.user_properties[2] == ("after", "x")
    assert record == kept  # the item's own record (the teardown report's) is untouched


def test_a_report_without_a_record_is_left_alone() -> None:
    report = SimpleNamespace(user_properties=[("a", 1)])
    for_early_report(report)  # type: ignore[arg-type]
    assert report.user_properties == [("a", 1)]
