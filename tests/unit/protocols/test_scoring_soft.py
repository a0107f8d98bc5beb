"""protocols/scoring.py: cases judged with soft checklists are labelled as not the official scoring."""

from __future__ import annotations

from typing import Any

from pytest_visioneval.protocols.scoring import describe, protocol_scores


def record(uid: str, *, soft: bool) -> dict[str, Any]:
    metrics = [{"name": "bizgeneval.easy", "value": 80.0}, {"name": "checklist.score", "value": 0.9}]
    if soft:
        metrics.append({"name": "checklist.soft_score", "value": 0.83})
    return {"uid": uid, "protocol": "bizgeneval", "status": "passed", "fields": {"domain": "chart"}, "metrics": metrics}


def test_hard_scoring_is_official_and_unlabelled() -> None:
    result = protocol_scores([record("s/a", soft=False), record("s/b", soft=False)])["bizgeneval"]
    assert result["soft"] == []
    assert "official scoring" not in describe(result)


def test_soft_checklists_are_listed_and_labelled_not_official() -> None:
    result = protocol_scores([record("s/a", soft=True), record("s/b", soft=False)])["bizgeneval"]
    assert result["soft"] == ["s/a"]
    assert result["scores"]["easy"]["mean"] == 80.0  # the numbers themselves are still the hard ones
    assert describe(result).endswith("; 1 judged with soft checklists (token probabilities): NOT the official scoring")
