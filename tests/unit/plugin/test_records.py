"""plugin/records.py: the record a test's reports carry to the controller."""

from __future__ import annotations

import copy
from types import SimpleNamespace
from typing import Any

from pytest_visioneval.plugin.records import PROPERTY, for_early_report, pack_record, unpack_record


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


def test_a_serialized_report_carries_the_record_as_one_json_text_that_the_controller_reads_back() -> None:
    from execnet import gateway_base

    record = evaluated_record()
    own_list = [("other", 1), (PROPERTY, record)]
    data: dict[str, Any] = {"nodeid": "demo.eval.yaml::one", "user_properties": own_list}
    pack_record(data)
    assert own_list[1] == (PROPERTY, record)  # the report's own list is left as it was
    name, text = data["user_properties"][1]
    assert name == PROPERTY and isinstance(text, str)
    assert data["user_properties"][0] == ("other", 1)
    arrived = gateway_base.loads_internal(gateway_base.dumps_internal(data))  # what xdist sends between processes
    unpack_record(arrived)
    assert arrived["user_properties"] == [("other", 1), (PROPERTY, record)]


def test_a_record_that_json_would_change_travels_as_it_is() -> None:
    record = {**evaluated_record(), "spread": (0.1, 0.2), "by_repeat": {1: "a"}}
    data: dict[str, Any] = {"user_properties": [(PROPERTY, record)]}
    pack_record(data)
    assert data["user_properties"] == [(PROPERTY, record)]
    unpack_record(data)
    assert data["user_properties"] == [(PROPERTY, record)]


def test_reports_without_a_record_or_properties_are_left_alone() -> None:
    odd = (
        {"user_properties": [("a", "text")]},
        {"nodeid": "x"},
        {"user_properties": None},
        {"user_properties": [(PROPERTY, "{not json")]},
    )
    for data in odd:
        before = copy.deepcopy(data)
        pack_record(data)
        unpack_record(data)
        assert data == before
