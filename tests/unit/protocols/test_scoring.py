"""protocols/scoring.py: benchmark scores per protocol and group, every case counted."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_visioneval.protocols.scoring import protocol_scores


def record(uid: str, status: str, fields: dict[str, str], **scores: float) -> dict[str, Any]:
    metrics = [{"name": f"bizgeneval.{k}", "value": v} for k, v in scores.items()]
    return {"uid": uid, "protocol": "bizgeneval", "status": status, "fields": fields, "metrics": metrics}


def test_errored_cases_count_as_zero_and_unscored_cases_are_left_out() -> None:
    records = [
        record("s/a", "passed", {"domain": "chart", "dimension": "text"}, easy=100, hard=60, all=80),
        record("s/b", "failed", {"domain": "chart", "dimension": "layout"}, easy=40, hard=0, all=20),
        record("s/c", "error", {"domain": "slides", "dimension": "text"}),  # could not be evaluated
        record("s/d", "passed", {"domain": "slides", "dimension": "text"}),  # no judge: no scores
        record("s/e", "skipped", {"domain": "slides", "dimension": "text"}),
    ]
    result = protocol_scores(records)["bizgeneval"]
    assert (result["cases"], result["scored"]) == (4, 3)
    assert result["errored"] == ["s/c"] and result["unscored"] == ["s/d"]
    assert result["scores"]["easy"] == {"mean": pytest.approx(140 / 3), "n": 3}
    assert result["scores"]["hard"]["mean"] == pytest.approx(20)
    assert result["groups"]["domain"]["chart"]["easy"] == {"mean": 70.0, "n": 2}
    assert result["groups"]["domain"]["slides"]["easy"] == {"mean": 0.0, "n": 1}  # only the errored case
    assert result["groups"]["dimension"]["text"]["all"] == {"mean": 40.0, "n": 2}


def test_labels_without_a_registered_protocol_are_not_scored() -> None:
    plain = {"uid": "s/a", "protocol": "my-label", "status": "passed", "metrics": [{"name": "my-label.x", "value": 1}]}
    assert protocol_scores([plain]) == {}


def test_order_of_records_does_not_change_the_numbers() -> None:
    records = [
        record(f"s/{i}", "passed", {"domain": "chart", "dimension": "text"}, easy=i * 0.1, hard=1, all=1) for i in range(50)
    ]
    assert protocol_scores(records) == protocol_scores(list(reversed(records)))
