"""A cold case run imports the SDK in the background from its start; a warm one never imports it.

Through real pytest processes (``runpytest_subprocess``): this test process has imported the SDK long ago.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_visioneval.testing import FakeOpenAIServer

SUITE = """\
suite: preload
defaults:
  task: image_generation
  params: {size: 32x32}
  graders:
    - use: image
cases:
  - {id: c1, prompt: draw one}
  - {id: c2, prompt: draw two}
"""
# Notes, in each process that runs cases, whether the import was started and whether the SDK was loaded at the end.
PROBE = """\
import json, os, sys
from pytest_visioneval.plugin.sdk_preload import preload_key

def pytest_sessionfinish(session):
    config = session.config
    if hasattr(config, "workerinput") or config.option.dist == "no":
        thread = config.stash.get(preload_key, None)
        seen = {"preloaded": thread is not None and thread.ident is not None, "sdk": "openai" in sys.modules}
        with open(os.environ["PRELOAD_PROBE"], "a") as out:
            out.write(json.dumps(seen) + "\\n")
"""


def _run(pytester: pytest.Pytester, server: FakeOpenAIServer, probe: Path, *args: str) -> list[dict[str, bool]]:
    probe.unlink(missing_ok=True)
    result = pytester.runpytest_subprocess(
        "cases",
        "-p",
        "preload_probe",
        "--model=openai:img",
        f"--model-base-url={server.base_url}",
        "--eval-output-dir=out",
        "--eval-cache-dir=cache",
        "--eval-concurrency=2",
        *args,
    )
    result.assert_outcomes(passed=2)
    return [json.loads(line) for line in probe.read_text().splitlines()]


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["n0", "n2"])
def test_a_cold_run_preloads_the_sdk_and_a_warm_one_never_loads_it(
    pytester: pytest.Pytester, server: FakeOpenAIServer, xdist: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "preload.eval.yaml").write_text(SUITE)
    pytester.makepyfile(preload_probe=PROBE)  # python -m pytest puts the folder on sys.path: -p finds it
    probe = pytester.path / "probe.jsonl"
    monkeypatch.setenv("PRELOAD_PROBE", str(probe))

    cold = _run(pytester, server, probe, *xdist)
    assert cold and all(seen == {"preloaded": True, "sdk": True} for seen in cold), cold
    assert len(server.requests) == 2

    warm = _run(pytester, server, probe, *xdist)  # every call answered from the cache
    assert warm and all(seen == {"preloaded": False, "sdk": False} for seen in warm), warm
    assert len(server.requests) == 2


def test_collecting_only_starts_no_import(pytester: pytest.Pytester, server: FakeOpenAIServer) -> None:
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "preload.eval.yaml").write_text(SUITE)
    probe = pytester.path / "probe.txt"
    pytester.makeconftest(
        "import os\n"
        "from pytest_visioneval.plugin.sdk_preload import preload_key\n"
        "def pytest_collection_finish(session):\n"
        f"    open({str(probe)!r}, 'w').write(str(session.config.stash.get(preload_key, None)))\n"
    )
    result = pytester.runpytest_subprocess("cases", "--collect-only", "--model=openai:img", "--eval-cache-dir=cache")
    assert result.ret == 0
    assert probe.read_text() == "None"
