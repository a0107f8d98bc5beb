"""--eval-mutants: property families drawn from a seed, graded by the gates, reported per suite and family.

Small suites made here test the machinery (families drawn, the same seed
making the same mutants, judge-only mutants counted apart, a blind and a
brittle gate named with the mutant's parameters); one shipped suite runs its
self-test as a user runs it, and the report's shape is checked.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import read_json

ROOT = Path(__file__).parents[2]
FLYER = ROOT / "cases" / "cookbook" / "flyers" / "book-fair.png"

SUITE = """\
suite: small
defaults:
  task: image_generation
  graders:
    - use: image
cases:
  - id: book-fair
    prompt: PROMPT
    reference: book-fair.png
"""


def write_suite(pytester: pytest.Pytester, graders: str = "", prompt: str = "A flyer for a book fair.") -> Path:
    folder = pytester.path / "cases"
    folder.mkdir(exist_ok=True)
    (folder / "book-fair.png").write_bytes(FLYER.read_bytes())
    text = SUITE.replace("PROMPT", prompt).replace("    - use: image\n", "    - use: image\n" + graders)
    (folder / "small.eval.yaml").write_text(text)
    return folder


def mutants(path: Path) -> list[dict[str, Any]]:
    [case] = read_json(path)["cases"]
    return case["mutation"]["mutants"]


def test_families_are_drawn_from_the_seed_and_reported_per_family(pytester: pytest.Pytester) -> None:
    write_suite(pytester)
    args = ["cases", "--eval-mutants", "--eval-mutants-per-family=1", "-p", "no:cacheprovider"]
    first = pytester.runpytest(*args, "--eval-mutants-seed=11", "--eval-results=a.json", "--eval-output-dir=first")
    # Only the image grader: it sees blank pictures, not a hue or a shift. Those are judge-only, which fails nothing.
    first.assert_outcomes(passed=1)
    pytester.runpytest(*args, "--eval-mutants-seed=11", "--eval-results=b.json")
    pytester.runpytest(*args, "--eval-mutants-seed=12", "--eval-results=c.json")
    labels = [[m["label"] for m in mutants(pytester.path / f"{name}.json")] for name in "abc"]
    assert labels[0] == labels[1] and labels[0] != labels[2]
    found = mutants(pytester.path / "a.json")
    assert {m["family"] for m in found} == {"degenerate", "geometric", "photometric", "occlusion", "legitimate"}
    assert all(m["status"] in ("caught", "judge_only", "passed") for m in found)
    first.stdout.fnmatch_lines(
        [
            "*mutation self-test*seed 11, 1 per family and case*",
            "*suite*family*cases*broken caught*score*legitimate passed*judge-only*",
            "*small*all*1*",
            "*degenerate*1/1*100.0%*-*0*",  # a blank picture: the image grader sees it
            "*geometric*",
            "*legitimate*-*-*1/1*-*",
            "*occlusion*",
            "*photometric*",
        ]
    )
    summary = read_json(pytester.path / "a.json")["mutation"]["suites"]["small"]
    for counts in summary["families"].values():
        assert counts["broken"] == counts["caught"] + counts["uncaught"] + counts["judge_only"]
    # The image grader cannot see a hue: with no other gate, a photometric mutant is judge-only (unless it blanks).
    assert summary["families"]["photometric"]["judge_only"] + summary["families"]["photometric"]["caught"] == 1
    assert summary["judge_only"] >= 1 and summary["missed"] == []
    stored = list((pytester.path / "first").rglob("mutants/*/provenance.json"))
    assert len(stored) == len(found)


def test_a_mutant_a_gate_should_see_and_does_not_is_named_with_its_parameters(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Declared here as able to see colours, the image grader (which checks decoding, size and blankness) must miss
    # a hue rotation: the self-test counts it as missed and fails the case, naming the class and its parameters.
    from pytest_visioneval.mutants import seen_by

    monkeypatch.setattr(seen_by, "COLOUR", frozenset({"image"}))
    write_suite(pytester)
    only = ["--eval-mutants-family=photometric", "--eval-mutants-per-family=6", "--eval-mutants-seed=1"]
    result = pytester.runpytest("cases", "--eval-mutants", *only, "--eval-results=r.json", "-p", "no:cacheprovider")
    found = mutants(pytester.path / "r.json")
    assert {m["family"] for m in found} == {"photometric"}
    missed = [m for m in found if m["status"] == "missed"]
    assert missed and {m["class"] for m in missed} <= {"hue_rotation", "saturation"}
    assert result.ret == 1
    first = missed[0]
    assert first["label"] == f"photometric/{first['class']}({next(iter(first['params']))}={next(iter(first['params'].values()))})"
    result.stdout.fnmatch_lines(
        [f"*small/book-fair: mutant {first['label']} ({first['description']}) passed every gate: your suite cannot see this*"]
    )
    result.stdout.fnmatch_lines([f"*MISSED small/book-fair: {first['label']}*"])
    summary = read_json(pytester.path / "r.json")["mutation"]["suites"]["small"]
    assert summary["missed"][0]["params"] == first["params"]
    assert summary["families"]["photometric"]["uncaught"] == len(missed)


def test_a_brittle_gate_is_named(pytester: pytest.Pytester) -> None:
    write_suite(pytester, "    - use: similarity\n      options: {min_score: 0.9999}\n")
    result = pytester.runpytest("cases", "--eval-mutants", "--eval-mutants-per-family=2", "--eval-results=r.json")
    brittle = [m for m in mutants(pytester.path / "r.json") if m["status"] == "brittle"]
    assert brittle and result.ret == 1
    result.stdout.fnmatch_lines(
        [
            f"*legitimate variant {brittle[0]['label']} ({brittle[0]['description']}) failed: similarity.match*"
            "this gate is brittle*"
        ]
    )


def test_mutants_never_call_a_model(pytester: pytest.Pytester) -> None:
    write_suite(pytester)
    result = pytester.runpytest("cases", "--eval-mutants", "--model=openai:gpt-image-1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--eval-mutants grades variants of a known-good output without calling any API*"])


def test_the_seed_and_the_number_need_eval_mutants(pytester: pytest.Pytester) -> None:
    write_suite(pytester)
    result = pytester.runpytest("cases", "--eval-mutants-seed=3")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--eval-mutants-seed only mean something with --eval-mutants*"])
    result = pytester.runpytest("cases", "--eval-mutants", "--eval-mutants-per-family=0")
    result.stderr.fnmatch_lines(["*--eval-mutants-per-family) must be at least 1, got 0*"])
    result = pytester.runpytest("cases", "--eval-mutants", "--eval-mutants-family=colour")
    result.stderr.fnmatch_lines(["*--eval-mutants-family: no family colour; the families are degenerate, geometric*"])


@pytest.mark.slow
def test_a_shipped_suite_reports_every_family_with_the_parameters_of_each_mutant(tmp_path: Path) -> None:
    suite_file = "cases/cookbook/logo_edits.eval.yaml"
    results = tmp_path / "results.json"
    command = [sys.executable, "-m", "pytest", suite_file, "--eval-mutants", "--eval-mutants-per-family=1", "-q"]
    command += ["-p", "no:cacheprovider", f"--eval-results={results}", f"--eval-output-dir={tmp_path / 'out'}"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    # Whether every mutant is caught depends on the gates (being improved); the report must be complete either way.
    document = read_json(results)
    [(name, suite)] = document["mutation"]["suites"].items()
    assert name == "logo-edits" and suite["baselines_failed"] == [] and suite["cases"] == 2
    families = {"degenerate", "geometric", "photometric", "occlusion", "identity", "legitimate"}
    assert set(suite["families"]) == families
    for counts in suite["families"].values():
        assert counts["broken"] == counts["caught"] + counts["uncaught"] + counts["judge_only"]
    assert suite["broken"] == 10 and suite["legitimate"] == 2
    for case in document["cases"]:
        for m in case["mutation"]["mutants"]:
            assert m["label"].startswith(f"{m['family']}/{m['class']}(") and isinstance(m["params"], dict)
    assert "mutation self-test" in done.stdout and "identity" in done.stdout
    assert done.returncode == (1 if suite["missed"] or suite["brittle"] else 0), done.stdout[-3000:]


@pytest.mark.xfail(
    strict=True,
    reason="plugin/fixtures.py still hands the self-test an empty grade context (GradeContext() under --eval-mutants): "
    "the judge-only mutants reach no judge until it passes visioneval_grade_context; tests/unit/run/test_mutation.py "
    "tests the judging itself",
)
def test_with_judge_the_judge_only_mutants_are_judged(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from pytest_visioneval.testing import FakeOpenAIServer

    monkeypatch.setenv("OPENAI_API_KEY", "sk-judge")
    write_suite(pytester, '    - use: checklist\n      options: {questions: ["Is it a flyer?"]}\n')
    reply = json.dumps({"answers": [{"id": 1, "reason": "the colours are wrong", "answer": "no"}]})
    with FakeOpenAIServer(text_reply=reply) as server:
        judge = ["--judge=openai:judge", f"--judge-base-url={server.base_url}"]
        result = pytester.runpytest("cases", "--eval-mutants", "--eval-mutants-per-family=1", *judge, "--eval-results=r.json")
    found = mutants(pytester.path / "r.json")
    judged = [m for m in found if m["judged"]]
    assert judged and all(m["status"] == "caught_by_judge" for m in judged)
    assert not any(m["status"] == "judge_only" for m in found)
    result.assert_outcomes(passed=1)
