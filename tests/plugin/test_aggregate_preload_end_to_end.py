"""An xdist controller imports numpy for the scores while its workers run, from the first result on; -n 0 never.

Through real pytest processes (``runpytest_subprocess``), with and without ``-n 2``.
"""

from __future__ import annotations

import json

import pytest

from pytest_visioneval.testing import FakeOpenAIServer

SUITE = """\
suite: scores
defaults:
  task: image_generation
  params: {size: 32x32}
  graders:
    - use: image
cases:
  - {id: c1, prompt: draw one}
  - {id: c2, prompt: draw two}
  - {id: c3, prompt: draw three}
"""
# In the controller: each start of the import, with the number of case results the controller had by then.
PROBE = """\
import json, os
import pytest
from pytest_visioneval.plugin import aggregate_preload

_results = []

@pytest.hookimpl(wrapper=True)
def pytest_runtest_logreport(report):
    if report.when == "teardown":
        _results.append(report.nodeid)  # counted before any plugin's hook sees the result
    return (yield)

def pytest_configure(config):
    if hasattr(config, "workerinput"):
        return
    started = aggregate_preload.start

    def noted():
        with open(os.environ["AGGREGATE_PROBE"], "a") as out:
            out.write(json.dumps({"results_before": len(_results)}) + "\\n")
        return started()

    aggregate_preload.start = noted
"""


@pytest.mark.parametrize(("xdist", "starts"), [([], 0), (["-n", "2"], 1)], ids=["n0", "n2"])
def test_the_controller_alone_imports_numpy_for_the_scores_once_results_come(
    pytester: pytest.Pytester, server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch, xdist: list[str], starts: int
) -> None:
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "scores.eval.yaml").write_text(SUITE)
    pytester.makepyfile(aggregate_probe=PROBE)
    probe = pytester.path / "probe.jsonl"
    monkeypatch.setenv("AGGREGATE_PROBE", str(probe))
    result = pytester.runpytest_subprocess(
        "cases", "-p", "aggregate_probe", "--model=openai:img", f"--model-base-url={server.base_url}",
        "--eval-output-dir=out", "--eval-cache-dir=cache", *xdist,
    )  # fmt: skip
    result.assert_outcomes(passed=3)
    seen = [json.loads(line) for line in probe.read_text().splitlines()] if probe.exists() else []
    assert len(seen) == starts, seen
    # Not before a result came in: until then the workers' start-up is what the first request waits for.
    assert all(s["results_before"] == 1 for s in seen), seen
