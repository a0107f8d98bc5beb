"""Parameter sweeps in a real run: one labelled case per combination, params sent, results per combination."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_visioneval.graders.rubric_spec import builtin_rubric
from pytest_visioneval.testing import FakeOpenAIServer
from tests.conftest import read_json

SUITE = """\
suite: sweep
protocol: cookbook
sweep:
  quality: [low, high]
  size: [64x48, 32x32]
defaults:
  task: image_generation
  fields: {use_case: ui_mockup}
cases:
  - id: login
    prompt: a login screen
  - id: checkout
    prompt: a checkout screen
"""

IDS = [
    f"sweep/{case}[quality={quality},size={size}]"
    for case in ("login", "checkout")
    for quality in ("low", "high")
    for size in ("64x48", "32x32")
]


def ui_reply() -> str:
    fields = {
        f.name: {"reason": "fine", "value": True if f.kind == "pass_fail" else 4} for f in builtin_rubric("ui_mockup").fields
    }
    return json.dumps({"fields": fields, "failure_tags": []})


@pytest.fixture
def sweep_suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-sweep")
    root = pytester.path / "cases"
    root.mkdir()
    (root / "sweep.eval.yaml").write_text(SUITE)
    return root


def test_each_combination_is_a_case_with_its_params_and_its_own_results(
    pytester: pytest.Pytester, sweep_suite: Path, xdist_args: list[str]
) -> None:
    with FakeOpenAIServer(text_reply=ui_reply()) as server:
        result = pytester.runpytest(
            "cases",
            "--model=openai:gpt-image-1",
            f"--model-base-url={server.base_url}",
            "--judge=openai:judge",
            f"--judge-base-url={server.base_url}",
            "--eval-results=r.json",
            "--eval-output-dir=out",
            "--eval-run-id=r1",
            "-v",
            *xdist_args,
        )
    result.assert_outcomes(passed=8)  # with -n 2 both workers collected the same ids, or xdist would refuse
    sent = sorted((r.json["prompt"], r.json["quality"], r.json["size"]) for r in server.calls_to("/images/generations"))
    assert sent == sorted(
        (f"a {case} screen", q, s) for case in ("login", "checkout") for q in ("low", "high") for s in ("64x48", "32x32")
    )
    document = read_json(pytester.path / "r.json")
    assert [c["uid"] for c in document["cases"]] == sorted(IDS)
    # Each combination's outputs are stored apart.
    assert (pytester.path / "out" / "r1" / "openai_gpt-image-1" / "sweep" / "login[quality=high,size=32x32]").is_dir()
    tags = document["aggregates"]["tags"]
    assert tags["sweep-quality_low-size_64x48"]["cases"] == 2
    assert tags["sweep-quality_high-size_32x32"]["metrics"]["rubric.layout_hierarchy"]["mean"] == 4.0
    groups = document["benchmarks"]["cookbook"]["groups"]["sweep"]
    assert sorted(groups) == [
        "quality=high,size=32x32",
        "quality=high,size=64x48",
        "quality=low,size=32x32",
        "quality=low,size=64x48",
    ]
    assert groups["quality=low,size=32x32"]["verdict"] == {"mean": 1.0, "n": 2, "ci_low": 1.0, "ci_high": 1.0}


def test_ids_are_stable_and_a_combination_can_be_selected_by_its_tag(
    pytester: pytest.Pytester, sweep_suite: Path, xdist_args: list[str]
) -> None:
    collected = pytester.runpytest("cases", "--collect-only", "-q")
    # The collected ids are the lines "cases/...::id"; the summary's wrapped "not run:" list also names them.
    assert [line.split("::")[1] for line in collected.stdout.lines if line.startswith("cases/") and "::" in line] == IDS
    result = pytester.runpytest(
        "cases", "--strict-markers", "-m", "sweep-quality_high-size_64x48", "--eval-results=r.json", *xdist_args
    )
    # No judge and the reference model without references: the two selected cases error, the rest are deselected.
    result.assert_outcomes(errors=2)
    assert [c["uid"] for c in read_json(pytester.path / "r.json")["cases"]] == [
        "sweep/checkout[quality=high,size=64x48]",
        "sweep/login[quality=high,size=64x48]",
    ]


def test_last_failed_reruns_exactly_the_failed_sweep_cases(pytester: pytest.Pytester, sweep_suite: Path) -> None:
    # -k leaves the 4 login cases; they error (no references), so --lf must rerun those 4 and no other.
    pytester.runpytest("cases", "-k", "login").assert_outcomes(errors=4)
    again = pytester.runpytest("cases", "--lf", "-rE")
    again.assert_outcomes(errors=4)
    again.stdout.fnmatch_lines(["run-last-failure: rerun previous 4 failures*"])
    assert sorted(line.split("::")[1].split(" ")[0] for line in again.stdout.lines if line.startswith("ERROR ")) == sorted(
        i for i in IDS if i.startswith("sweep/login")
    )
