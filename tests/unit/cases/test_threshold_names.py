"""cases/threshold_names.py: a threshold must name something its suite can record."""

from __future__ import annotations

from pytest_visioneval.cases.threshold_names import RecordedNames, threshold_name_problem

GRADERS = RecordedNames(graders={"image", "ground_truth"}, renders=False)


def test_a_grader_name_with_any_metric_after_it_is_accepted() -> None:
    assert threshold_name_problem("image.not_blank", GRADERS) is None
    assert threshold_name_problem("ground_truth.score", GRADERS) is None
    assert threshold_name_problem("image.any.dotted.name", GRADERS) is None  # what follows is known only after a run


def test_an_unknown_grader_name_gets_the_closest_one_and_the_list() -> None:
    assert threshold_name_problem("imgae.not_blank", GRADERS) == (
        "no grader of this suite is named 'imgae' (did you mean 'image'?), so no case records 'imgae.not_blank'; "
        "the names here start with: ground_truth, image"
    )


def test_a_name_without_a_dot_names_nothing() -> None:
    assert threshold_name_problem("latency", GRADERS) == (
        "'latency' is not a metric or gate name: they read GRADER.NAME (e.g. 'similarity.score'); "
        "the names here start with: ground_truth, image"
    )
    assert threshold_name_problem("image.", GRADERS) is not None


def test_render_metrics_only_where_a_case_renders() -> None:
    assert threshold_name_problem("render.page_errors", GRADERS) is not None
    assert threshold_name_problem("render.page_errors", RecordedNames({"html"}, renders=True)) is None


def test_a_protocols_scores_are_checked_by_name() -> None:
    names = RecordedNames({"image"}, renders=False, protocol="cookbook", scores={"verdict", "quality"})
    assert threshold_name_problem("cookbook.verdict", names) is None
    assert threshold_name_problem("cookbook.verdcit", names) == (
        "protocol 'cookbook' has no score 'verdcit' (did you mean 'verdict'?); its scores: quality, verdict"
    )
    assert threshold_name_problem("cookbok.verdict", names) is not None  # a typo in the protocol's name
    assert "did you mean 'cookbook'?" in (threshold_name_problem("cookbok.verdict", names) or "")


def test_a_grader_named_like_the_protocol_is_a_grader() -> None:
    names = RecordedNames({"cookbook"}, renders=False, protocol="cookbook", scores={"verdict"})
    assert threshold_name_problem("cookbook.anything", names) is None
