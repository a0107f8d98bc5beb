from __future__ import annotations

import pytest

from pytest_visioneval.results.baseline import scale_of
from pytest_visioneval.results.metric_scales import declared_scale


@pytest.mark.parametrize(
    ("name", "scale"),
    [
        ("match.mean_delta_e", 100.0),  # by the metric's own name, whatever the grader is called
        ("emblem_colour.mean_delta_e", 100.0),
        ("locality.tone_change", 255.0),
        ("locality.faint_change_outside", 255.0),
        ("locality.shift", 100.0),
        ("viescore.overall", 10.0),
        ("viescore.overall.std", 10.0),  # a spread is on its metric's scale
        ("image_quality.pq_1", 10.0),
        ("score.mean", 10.0),
    ],
)
def test_declared_scales(name: str, scale: float) -> None:
    assert declared_scale(name) == scale
    assert scale_of(name) == scale


@pytest.mark.parametrize(
    "name",
    ["similarity.score", "score.normalized", "locality.changed_outside", "vqascore.p_yes", "my_judge.overall", "other.shift"],
)
def test_metrics_on_0_1_or_unknown_keep_scale_1(name: str) -> None:
    assert declared_scale(name) is None
    assert scale_of(name) == 1.0


def test_a_protocol_score_keeps_its_own_scale() -> None:
    assert scale_of("bizgeneval.all") == 100.0
