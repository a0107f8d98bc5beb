"""The plugin's public surface in pytest: fixtures, --help, ini settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import draw_png, read_json


def test_fixtures_are_listed_with_docstrings(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--fixtures")
    text = result.stdout.str()
    for name in (
        "record_metric",
        "visioneval_case",
        "visioneval_evaluation",
        "visioneval_model",
        "visioneval_settings",
        "visioneval_store",
    ):
        assert f"{name} " in text or f"{name} [" in text, name
    assert "Record a metric for the current test" in text
    assert "Run the model on the current case" in text


def test_help_shows_an_option_group(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines(
        [
            "vision evaluation (pytest-visioneval):",
            "*--model=NAME*",
            "*--eval-results=PATH*",
            "*--eval-fail-under=SUITE.METRIC=VALUE*",
        ]
    )
    result.stdout.fnmatch_lines(["*visioneval_fail_under (linelist):*", "*visioneval_files (args):*"])


@pytest.mark.slow
def test_settings_from_the_ini_file(pytester: pytest.Pytester, demo_suite: Path, xdist_args: list[str]) -> None:
    out = pytester.path / "outputs" / "demo"
    draw_png(out / "first.png", color=(200, 30, 30))
    draw_png(out / "second.png", color=(40, 180, 40))
    draw_png(out / "third.png", color=(30, 30, 200))
    pytester.makeini(
        """
        [pytest]
        filterwarnings = ignore::pytest.PytestAssertRewriteWarning
        visioneval_model = replay:outputs
        visioneval_results = results/run.json
        visioneval_fail_under =
            demo.similarity.score=0.999
        """
    )
    result = pytester.runpytest("cases", *xdist_args)
    result.assert_outcomes(passed=3, failed=1)  # failed: visioneval::thresholds
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the ini threshold is enforced
    document = read_json(pytester.path / "results" / "run.json")  # ini path is relative to the rootdir
    assert document["run"]["model"] == "replay:outputs"
    # The command line wins over the ini: its thresholds replace the ini's list.
    again = pytester.runpytest("cases", "--model=reference", "--eval-fail-under=demo.similarity.score=0.5", *xdist_args)
    assert again.ret == pytest.ExitCode.OK
    again.stdout.fnmatch_lines(["*PASS demo.similarity.score: mean 1 >= 0.5*"])
    assert "0.999" not in again.stdout.str()


def test_case_file_pattern_is_configurable(pytester: pytest.Pytester, demo_suite: Path) -> None:
    (demo_suite / "demo.eval.yaml").rename(demo_suite / "demo.vision.yml")
    pytester.makeini("[pytest]\nfilterwarnings = ignore::pytest.PytestAssertRewriteWarning\nvisioneval_files = *.vision.yml\n")
    result = pytester.runpytest("cases", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["cases/demo.vision.yml::demo/first"])


def test_render_pages_sets_the_pages_each_worker_renders_at_once(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_pages="""
        def test_pages(visioneval_renderer, request):
            expected = request.config.getoption("expected")
            assert visioneval_renderer.pages_in_flight == expected, visioneval_renderer.pages_in_flight
        """
    )
    pytester.makeconftest("def pytest_addoption(parser):\n    parser.addoption('--expected', type=int)\n")
    pytester.runpytest("test_pages.py", "--render-pages=2", "--expected=2").assert_outcomes(passed=1)
    pytester.runpytest("test_pages.py", "--expected=4").assert_outcomes(passed=1)  # the default
    pytester.makeini("[pytest]\nvisioneval_render_pages = 1\n")
    pytester.runpytest("test_pages.py", "--expected=1").assert_outcomes(passed=1)
    refused = pytester.runpytest("test_pages.py", "--render-pages=0")
    refused.stderr.fnmatch_lines(["ERROR: pytest-visioneval: visioneval_render_pages (--render-pages) must be at least 1, got 0"])
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
