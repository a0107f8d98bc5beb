"""protocols/scoring.py: benchmark scores per protocol and group; errored cases per compat mode."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from pytest_visioneval.protocols.scoring import protocol_scores


def record(uid: str, status: str, fields: dict[str, str], **scores: float) -> dict[str, Any]:
    metrics = [{"name": f"bizgeneval.{k}", "value": v} for k, v in scores.items()]
    return {"uid": uid, "protocol": "bizgeneval", "status": status, "fields": fields, "metrics": metrics}


def improved(fields: dict[str, str]) -> dict[str, str]:
    return {**fields, "compat": "improved"}


def test_under_improved_errored_cases_count_as_zero_and_unscored_cases_are_left_out() -> None:
    records = [
        record("s/a", "passed", improved({"domain": "chart", "dimension": "text"}), easy=100, hard=60, all=80),
        record("s/b", "failed", improved({"domain": "chart", "dimension": "layout"}), easy=40, hard=0, all=20),
        record("s/c", "error", improved({"domain": "slides", "dimension": "text"})),  # could not be evaluated
        record("s/d", "passed", improved({"domain": "slides", "dimension": "text"})),  # no judge: no scores
        record("s/e", "skipped", improved({"domain": "slides", "dimension": "text"})),
    ]
    result = protocol_scores(records)["bizgeneval"]
    assert result["compat"] == "improved"
    assert (result["cases"], result["scored"]) == (4, 3)
    assert result["errored"] == ["s/c"] and result["unscored"] == ["s/d"]
    assert result["scores"]["easy"] == {"mean": pytest.approx(140 / 3), "n": 3}
    assert result["scores"]["hard"]["mean"] == pytest.approx(20)
    assert result["groups"]["domain"]["chart"]["easy"] == {"mean": 70.0, "n": 2}
    assert result["groups"]["domain"]["slides"]["easy"] == {"mean": 0.0, "n": 1}  # only the errored case
    assert result["groups"]["dimension"]["text"]["all"] == {"mean": 40.0, "n": 2}


def test_under_official_errored_cases_are_listed_but_left_out_of_the_means() -> None:
    records = [
        record("s/a", "passed", {"domain": "chart", "dimension": "text"}, easy=100, hard=60, all=80),
        record("s/c", "error", {"domain": "slides", "dimension": "text"}),
    ]
    result = protocol_scores(records)["bizgeneval"]
    assert result["compat"] == "official" and result["compat_cases"] == {"official": 2}
    assert (result["cases"], result["scored"], result["errored"]) == (2, 1, ["s/c"])
    assert result["scores"]["easy"] == {"mean": 100.0, "n": 1}
    assert "slides" not in result["groups"]["domain"]


def test_a_protocol_mixing_modes_says_so() -> None:
    records = [
        record("s/a", "passed", {"domain": "chart", "dimension": "text"}, easy=100, hard=60, all=80),
        record("s/b", "passed", improved({"domain": "chart", "dimension": "text"}), easy=0, hard=0, all=0),
    ]
    result = protocol_scores(records)["bizgeneval"]
    assert result["compat"] == "mixed" and result["compat_cases"] == {"improved": 1, "official": 1}


def test_labels_without_a_registered_protocol_are_not_scored() -> None:
    plain = {"uid": "s/a", "protocol": "my-label", "status": "passed", "metrics": [{"name": "my-label.x", "value": 1}]}
    assert protocol_scores([plain]) == {}


def test_order_of_records_does_not_change_the_numbers() -> None:
    records = [
        record(f"s/{i}", "passed", {"domain": "chart", "dimension": "text"}, easy=i * 0.1, hard=1, all=1) for i in range(50)
    ]
    assert protocol_scores(records) == protocol_scores(list(reversed(records)))


def test_an_interval_function_gives_every_score_and_group_its_interval() -> None:
    records = [
        record("s/a", "passed", {"domain": "chart", "dimension": "text"}, easy=100, hard=60, all=80),
        record("s/b", "passed", {"domain": "chart", "dimension": "layout"}, easy=40, hard=0, all=20),
        record("s/c", "passed", {"domain": "slides", "dimension": "text"}, easy=70, hard=30, all=50),
    ]
    seen: list[list[float]] = []

    def spread(values: Sequence[float]) -> tuple[float, float]:
        seen.append(list(values))
        return min(values), max(values)

    result = protocol_scores(records, interval=spread)["bizgeneval"]
    assert result["scores"]["easy"] == {"mean": 70.0, "n": 3, "ci_low": 40, "ci_high": 100}
    assert result["groups"]["domain"]["chart"]["hard"] == {"mean": 30.0, "n": 2, "ci_low": 0, "ci_high": 60}
    assert all(values == sorted(values) for values in seen)  # handed over sorted: the order of cases cannot matter
    # The means and the published figures are those of a run without intervals.
    plain = protocol_scores(records)["bizgeneval"]
    assert result["headline"] == plain["headline"]
    assert {n: s["mean"] for n, s in result["scores"].items()} == {n: s["mean"] for n, s in plain["scores"].items()}
