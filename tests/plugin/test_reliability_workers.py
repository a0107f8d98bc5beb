"""A worker killed mid-run: the calls it paid for still count in the run's usage (issue 38, point 9)."""

from __future__ import annotations

import collections
import hashlib
import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_visioneval.testing import FakeOpenAIServer, RecordedRequest
from tests.conftest import read_json
from tests.plugin.test_calls_end_to_end import CHAT, GEN, JUDGE, MODEL, answers, case_of, suite_yaml

CASES = 12
# The worker evaluating the victim case is killed while the victim's judge call is being answered. When that
# worker's pytest was itself running the victim, xdist reports the victim as crashed and nothing takes it over:
# the run is tried again with the next victim.
VICTIMS = (6, 9, 4)


class Killer:
    """Answers judge calls; on the first judge call of case VICTIM, kill -9 the worker holding that case's claim."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.out = "out"
        self.victim = VICTIMS[0]
        self.killed: int | None = None
        self._lock = threading.Lock()

    def claim(self) -> Path | None:
        name = hashlib.sha256(f"cases/calls.eval.yaml::calls/c{self.victim}".encode()).hexdigest()[:32] + ".claim"
        found = list(self.root.glob(f"{self.out}/*/.exchange/*/{name}"))
        return found[0] if found else None

    def __call__(self, request: RecordedRequest) -> str:
        with self._lock:
            if case_of(request) == self.victim and self.killed is None:
                claim = self.claim()
                assert claim is not None, "no claim for the victim case: the test's nodeid guess is wrong"
                self.killed = int(claim.read_text().strip())
                os.kill(self.killed, signal.SIGKILL)
        return answers(request)


@pytest.fixture
def killer(pytester: pytest.Pytester) -> Killer:
    return Killer(pytester.path)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, killer: Killer) -> Iterator[FakeOpenAIServer]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-killed")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with FakeOpenAIServer(text_reply=killer) as fake:
        yield fake


def test_calls_a_killed_worker_paid_for_are_counted_as_paid_not_cached(
    pytester: pytest.Pytester, server: FakeOpenAIServer, killer: Killer
) -> None:
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "calls.eval.yaml").write_text(suite_yaml(CASES))
    for attempt, victim in enumerate(VICTIMS):
        server.reset()
        killer.out, killer.victim, killer.killed = f"out{attempt}", victim, None
        result = pytester.runpytest(
            "cases",
            f"--model={MODEL}",
            f"--model-base-url={server.base_url}",
            f"--judge={JUDGE}",
            f"--judge-base-url={server.base_url}",
            f"--eval-output-dir=out{attempt}",
            f"--eval-results=results{attempt}.json",
            "-p",
            "no:randomly",
            "-n",
            "2",
            "--eval-concurrency=4",
        )
        assert killer.killed is not None, result.stdout.str()[-3000:]
        document = read_json(pytester.path / f"results{attempt}.json")
        by_case = {int(r["case_id"][1:]): r for r in document["cases"]}
        crashed = [n for n, r in by_case.items() if r["status"] == "error" and "crashed" in (r.get("error") or "")]
        if victim not in crashed:
            break
    else:
        pytest.fail(f"in {len(VICTIMS)} runs the killed worker's pytest was always running the victim itself")
    served = collections.Counter((r.path, case_of(r)) for r in server.requests if r.status == 200)
    # The victim's case was taken over: its image came from the dead worker's cache entry (served once),
    # its judge call, lost with the worker, was asked again (served twice).
    assert (served[(GEN, victim)], served[(CHAT, victim)]) == (1, 2), sorted(served.items())
    assert by_case[victim]["status"] == "passed", by_case[victim]
    usage = by_case[victim]["usage"]
    assert (usage["model"]["calls"], usage["model"]["cached"]) == (1, 0)  # paid by the dead worker, counted here
    # Nothing served in this run is counted as a free cache hit; what is not counted at all is what died with
    # the worker: its replies still on the wire, and the case pytest reports as the crashed one.
    total = document["usage"]["total"]
    assert total["cached"] == 0, total
    for n, record in by_case.items():
        if n in crashed:
            continue
        counted = sum(kind["calls"] for kind in (record.get("usage") or {}).values())
        assert counted >= 2, (n, record.get("usage"))
    assert total["calls"] <= sum(served.values())
