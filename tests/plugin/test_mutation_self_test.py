"""--eval-mutants: every shipped example suite catches its broken mutants and passes its legitimate variants.

Each suite runs as a user runs it (``pytest cases/<file> --eval-mutants``) in a
process of its own; the results JSON's ``mutation`` block must list no missed
mutant, no brittle gate and no known-good output failing its own gates.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import read_json

ROOT = Path(__file__).parents[2]
SUITES = sorted(p.relative_to(ROOT) for p in (ROOT / "cases").rglob("*.eval.yaml"))


@pytest.mark.parametrize("suite_file", SUITES, ids=[p.stem.replace(".eval", "") for p in SUITES])
def test_every_shipped_suite_passes_its_self_test(suite_file: Path, tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    command = [sys.executable, "-m", "pytest", str(suite_file), "--eval-mutants", "-q", "-p", "no:cacheprovider"]
    command += [f"--eval-results={results}", f"--eval-output-dir={tmp_path / 'out'}"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    [(name, suite)] = read_json(results)["mutation"]["suites"].items()
    assert suite["missed"] == [] and suite["brittle"] == [] and suite["baselines_failed"] == []
    assert suite["broken"] > 0 and suite["caught"] == suite["broken"], name
    assert suite["legitimate"] > 0 and suite["legitimate_passed"] == suite["legitimate"], name
    assert "mutation self-test" in done.stdout


BLIND_SUITE = """\
suite: blind
defaults:
  task: image_generation
  graders:
    - use: image
cases:
  - id: book-fair
    prompt: A flyer for the "Summer Book Fair" at the "Riverside Library".
    reference: book-fair.png
"""


@pytest.fixture
def blind_suite(pytester: pytest.Pytester) -> Path:
    folder = pytester.path / "cases"
    folder.mkdir()
    shutil.copy(ROOT / "cases" / "cookbook" / "flyers" / "book-fair.png", folder / "book-fair.png")
    (folder / "blind.eval.yaml").write_text(BLIND_SUITE)
    return folder


def test_a_suite_without_a_text_gate_is_told_what_it_cannot_see(
    pytester: pytest.Pytester, blind_suite: Path, xdist_args: list[str]
) -> None:
    result = pytester.runpytest("cases", "--eval-mutants", "--eval-results=r.json", *xdist_args)
    assert result.ret == 1
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*blind/book-fair: mutant typo (one letter of * painted out*) passed every gate: your suite cannot see this*",
            "*mutation self-test*",
            "*blind*1*2/4*50.0%*2/2*",
            "*MISSED blind/book-fair: typo*",
            "*MISSED blind/book-fair: missing_line*",
        ]
    )
    summary = read_json(pytester.path / "r.json")["mutation"]["suites"]["blind"]
    assert {m["mutant"] for m in summary["missed"]} == {"typo", "missing_line"}


def test_adding_the_text_gate_catches_them(pytester: pytest.Pytester, blind_suite: Path, xdist_args: list[str]) -> None:
    text_gate = '    - use: text\n      options: {required: ["Summer Book Fair", "Riverside Library"]}\n'
    (blind_suite / "blind.eval.yaml").write_text(BLIND_SUITE.replace("    - use: image\n", "    - use: image\n" + text_gate))
    result = pytester.runpytest("cases", "--eval-mutants", *xdist_args)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*blind*1*4/4*100.0%*2/2*"])


def test_a_brittle_gate_is_named(pytester: pytest.Pytester, blind_suite: Path) -> None:
    strict = "    - use: similarity\n      options: {min_score: 0.9999}\n"
    (blind_suite / "blind.eval.yaml").write_text(BLIND_SUITE.replace("    - use: image\n", "    - use: image\n" + strict))
    result = pytester.runpytest("cases", "--eval-mutants")
    result.stdout.fnmatch_lines(
        ["*legitimate variant jpeg_q85 (the output re-encoded as JPEG q85) failed: similarity.match*brittle*"]
    )


def test_mutants_never_call_a_model(pytester: pytest.Pytester, blind_suite: Path) -> None:
    result = pytester.runpytest("cases", "--eval-mutants", "--model=openai:gpt-image-1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--eval-mutants grades variants of a known-good output without calling any API*"])
