"""Ctrl-C on a real ``-n 2`` run: no request starts after it, and the partial results say what happened.

The run is a subprocess in its own session; SIGINT goes to its whole process
group, as a terminal sends it. A slow loopback server keeps calls in flight, and
counts what it served.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from pytest_visioneval.testing import FakeOpenAIServer

CASES = 40
GRACE = 0.3  # a request already being written when the signal came may arrive a moment later
LATENCY = 1.0


def write_suite(root: Path) -> None:
    cases = "".join(f"  - id: c{i}\n    prompt: draw case-{i}\n" for i in range(1, CASES + 1))
    (root / "cases").mkdir()
    defaults = "defaults:\n  task: image_generation\n  params: {size: 32x32}\n  graders:\n    - use: image\n"
    (root / "cases" / "calls.eval.yaml").write_text(f"suite: calls\n{defaults}cases:\n{cases}")


def interrupted_run(root: Path, server: FakeOpenAIServer, second_after: float | None) -> dict[str, Any]:
    """Start the run, send SIGINT once a few requests arrived (and again ``second_after`` later), wait for the exit."""
    write_suite(root)
    env = {**os.environ, "OPENAI_API_KEY": "sk-test-interrupts"}
    env.pop("OPENAI_BASE_URL", None)
    command = [sys.executable, "-m", "pytest", "cases", "-p", "no:cacheprovider", "-n", "2", "--eval-concurrency", "8"]
    command += ["--model=openai:img", f"--model-base-url={server.base_url}", "--eval-output-dir=out"]
    command += ["--eval-results=r.json", "--junitxml=j.xml", "--eval-report=report.html"]
    run = subprocess.Popen(
        command, cwd=root, env=env, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        deadline = time.monotonic() + 120
        while len(server.requests) < 4 and time.monotonic() < deadline and run.poll() is None:
            time.sleep(0.02)
        assert run.poll() is None and len(server.requests) >= 4, "the run made no requests to interrupt"
        signalled = time.monotonic()
        os.killpg(run.pid, signal.SIGINT)
        if second_after is not None:
            time.sleep(second_after)
            os.killpg(run.pid, signal.SIGINT)
        output, _ = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
    late = [r.number for r in server.requests if r.received > signalled + GRACE]
    return {
        "rc": run.returncode,
        "output": output,
        "late": late,
        "served": len(server.requests),
        "took": time.monotonic() - signalled,
    }


@pytest.fixture
def server() -> Any:
    with FakeOpenAIServer(latency=LATENCY) as fake:
        yield fake


def check_partial_outputs(root: Path, run: dict[str, Any]) -> dict[str, Any]:
    assert run["late"] == [], f"{len(run['late'])} request(s) started after the Ctrl-C"
    assert run["rc"] == pytest.ExitCode.INTERRUPTED, run["output"][-3000:]
    last = run["output"].strip().splitlines()[-4:]
    assert "all gates passed" not in run["output"]
    assert any("exit status 2" in line and "INCOMPLETE run: interrupted" in line for line in last), last
    document = json.loads((root / "r.json").read_text())
    assert document["complete"] is False
    assert document["exit"]["status"] == 2
    assert document["incomplete"]["reason"] == "interrupted (Ctrl-C or a signal)"
    assert len(document["incomplete"]["not_run"]) + len(document["cases"]) == CASES
    assert (root / "j.xml").is_file() and (root / "report.html").is_file()
    return document


@pytest.mark.slow
def test_ctrl_c_stops_new_calls_and_counts_the_calls_made(tmp_path: Path, server: FakeOpenAIServer) -> None:
    run = interrupted_run(tmp_path, server, second_after=None)
    document = check_partial_outputs(tmp_path, run)
    calls = document["incomplete"]["calls"]
    assert calls["every_process_counted"] is True
    assert calls["made"] == run["served"], (calls, run["served"])
    assert calls["in_reported_cases"] == document["usage"].get("total", {}).get("calls", 0)
    # In-flight requests take LATENCY to return; then the workers go down. What stops is proven above (no late
    # request, the rest listed as not run); this bound only catches a run that hangs after the Ctrl-C, so it
    # leaves a loaded 2-core machine, where a worker takes seconds to start or stop, plenty of room.
    assert run["took"] < 60, f"the run exited {run['took']:.1f} s after the Ctrl-C"
    assert all(case["status"] == "passed" for case in document["cases"])  # a case cut short is not run, not an error


@pytest.mark.slow
def test_a_second_ctrl_c_stops_at_once_and_still_writes_the_partial_results(tmp_path: Path, server: FakeOpenAIServer) -> None:
    run = interrupted_run(tmp_path, server, second_after=0.5)
    document = check_partial_outputs(tmp_path, run)
    calls = document["incomplete"]["calls"]
    # The workers' counts may be lost with the second Ctrl-C: then the count says it is a lower bound.
    if calls["every_process_counted"]:
        assert calls["made"] == run["served"], (calls, run["served"])
    else:
        assert calls["made"] <= run["served"], (calls, run["served"])
