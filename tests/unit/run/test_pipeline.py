"""run/pipeline.py: cases evaluated ahead in threads, and shared between workers through an exchange folder."""

from __future__ import annotations

import collections
import errno
import fcntl
import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from pytest_visioneval.artifacts import Artifact, ArtifactStore, ModelOutput
from pytest_visioneval.calls.turn import holds_turn
from pytest_visioneval.calls.waiting import may_wait
from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.errors import ModelError
from pytest_visioneval.graders import GradeContext
from pytest_visioneval.pages.render import PageRenderer
from pytest_visioneval.run import pipeline as pipeline_module
from pytest_visioneval.run.environment import Environment
from pytest_visioneval.run.evaluation import evaluation_from
from pytest_visioneval.run.pipeline import AHEAD_PER_THREAD, CasePipeline, threads_for
from tests.conftest import run_in_threads

DELAY = 0.2


class SleepyModel:
    """A model that takes ``delay`` seconds per case and counts its calls (shared between instances if given a counter)."""

    name = "fake:sleepy"

    def __init__(
        self,
        png: bytes,
        delay: float = DELAY,
        *,
        fail: Iterable[str] = (),
        crash: Iterable[str] = (),
        counter: collections.Counter[str] | None = None,
    ):
        self.png = png
        self.delay = delay
        self.fail = set(fail)
        self.crash = set(crash)
        self.calls = counter if counter is not None else collections.Counter()
        self.mine: collections.Counter[str] = collections.Counter()
        self.in_flight = self.most_in_flight = 0
        self._lock = threading.Lock()

    def generate(self, case: CaseSpec, params: Mapping[str, Any]) -> ModelOutput:
        with self._lock:
            self.calls[case.id] += 1
            self.mine[case.id] += 1
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            time.sleep(self.delay)
        finally:
            with self._lock:
                self.in_flight -= 1
        if case.id in self.fail:
            raise ModelError(f"no image for {case.id}")
        if case.id in self.crash:
            raise RuntimeError(f"adapter bug on {case.id}")
        return ModelOutput((Artifact("image-0.png", self.png),), params=dict(params), usage={"images": 1})


class InlineModel(SleepyModel):
    """Declares that it waits only in calls (like the OpenAI adapter); ``waits_for`` cases hit a waiting point.

    It records the thread of every attempt, so a test can tell an evaluation made where it was
    started from one handed to the pool.
    """

    name = "fake:sleepy"  # the same outputs folder as SleepyModel, so check_outcome applies
    waits_only_in_calls = True

    def __init__(self, png: bytes, *, waits_for: Iterable[str] = (), delay: float = 0.0, **kwargs: Any):
        super().__init__(png, delay=delay, **kwargs)
        self.waits_for = set(waits_for)
        self.threads: dict[str, list[str]] = collections.defaultdict(list)

    def generate(self, case: CaseSpec, params: Mapping[str, Any]) -> ModelOutput:
        self.threads[case.id].append(threading.current_thread().name)
        if case.id in self.waits_for:
            may_wait("a call the cache does not hold")  # what the call layer does on a miss
        return super().generate(case, params)


def no_renderer() -> PageRenderer:
    raise AssertionError("image cases never render")


@pytest.fixture
def png(encode_image: Callable[..., bytes]) -> bytes:
    return encode_image((16, 16))


@pytest.fixture
def cases(make_case: Callable[..., CaseSpec]) -> list[tuple[str, CaseSpec]]:
    return [(f"unit.eval.yaml::case-{i}", make_case(id=f"case-{i}")) for i in range(8)]


def environment(model: SleepyModel, tmp_path: Path) -> Environment:
    return Environment(
        model=model,
        store=ArtifactStore(tmp_path, "run"),
        context=GradeContext(),
        renderer=no_renderer,
        model_params={"size": "16x16"},
    )


def claim_path(exchange: Path, nodeid: str, suffix: str = ".claim") -> Path:
    return exchange / (hashlib.sha256(nodeid.encode("utf-8")).hexdigest()[:32] + suffix)


def dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def start_claimer(script: str, claim: Path) -> subprocess.Popen[str]:
    """Another worker, as a process running ``script``: it returns once the claim is made and locked."""
    claimer = subprocess.Popen([sys.executable, "-c", script, str(claim)], stdout=subprocess.PIPE, text=True)
    assert claimer.stdout is not None and claimer.stdout.readline().strip() == "claimed"
    return claimer


def canonical(outcome: dict[str, Any]) -> str:
    return json.dumps(outcome, sort_keys=True)


def check_outcome(outcome: dict[str, Any], case: CaseSpec, tmp_path: Path, png: bytes) -> None:
    assert outcome["uid"] == case.uid
    assert outcome["model"] == "fake:sleepy"
    assert outcome["error"] is None
    path = tmp_path / "run" / "fake_sleepy" / "unit" / case.id / "image-0.png"
    assert [(a["name"], a["path"]) for a in outcome["artifacts"]] == [("image-0.png", str(path))]
    assert outcome["usage"] == {}  # the model made no calls through the call layer
    evaluation = evaluation_from(case, outcome)
    assert [a.data for a in evaluation.artifacts] == [png]
    assert evaluation.gates == () and evaluation.metrics == ()


# -- one worker ------------------------------------------------------------------------------
def test_without_concurrency_a_case_is_evaluated_when_asked(
    tmp_path: Path, png: bytes, cases: list[tuple[str, CaseSpec]]
) -> None:
    model = SleepyModel(png, delay=0.0)
    pipeline = CasePipeline(environment(model, tmp_path), cases, None)
    assert sum(model.calls.values()) == 0  # nothing ahead
    nodeid, case = cases[3]
    check_outcome(pipeline.outcome_for(nodeid, case), case, tmp_path, png)
    assert model.calls == {"case-3": 1}
    pipeline.close()


def test_cases_overlap_with_concurrency(tmp_path: Path, png: bytes, cases: list[tuple[str, CaseSpec]]) -> None:
    model = SleepyModel(png)
    pipeline = CasePipeline(environment(model, tmp_path), cases, 4)
    outcomes = {nodeid: pipeline.outcome_for(nodeid, case) for nodeid, case in cases}
    pipeline.close()
    # Overlap is counted, not timed, so a loaded machine cannot fail it. The pool keeps spare threads beyond the
    # limit (the limit binds API calls, in the call layer), and the asking thread may run a case itself.
    assert 2 <= model.most_in_flight <= threads_for(4) + 1, model.most_in_flight
    for nodeid, case in cases:
        check_outcome(outcomes[nodeid], case, tmp_path, png)
    assert model.calls == {case.id: 1 for _, case in cases}


def test_a_case_that_waits_for_nothing_is_evaluated_where_it_is_started(
    tmp_path: Path, png: bytes, cases: list[tuple[str, CaseSpec]]
) -> None:
    """A warm case (every call cached) never goes to a pool thread: no hand-overs of the interpreter lock."""
    model = InlineModel(png)
    pipeline = CasePipeline(environment(model, tmp_path), cases, 4)
    outcomes = {nodeid: pipeline.outcome_for(nodeid, case) for nodeid, case in cases}
    pipeline.close()
    for nodeid, case in cases:
        check_outcome(outcomes[nodeid], case, tmp_path, png)
    assert model.calls == {case.id: 1 for _, case in cases}
    assert {name for names in model.threads.values() for name in names} == {threading.current_thread().name}


def test_a_case_that_would_wait_goes_to_a_pool_thread(tmp_path: Path, png: bytes, cases: list[tuple[str, CaseSpec]]) -> None:
    """The attempt stops at the first waiting point and the case is evaluated again, in the pool."""
    model = InlineModel(png, waits_for={"case-1", "case-6"})
    pipeline = CasePipeline(environment(model, tmp_path), cases, 4)
    outcomes = {nodeid: pipeline.outcome_for(nodeid, case) for nodeid, case in cases}
    pipeline.close()
    for nodeid, case in cases:
        check_outcome(outcomes[nodeid], case, tmp_path, png)
    # The attempt runs on whichever thread starts the case (a refill after a pool job runs on its thread).
    for case_id in ("case-1", "case-6"):
        _attempt, job = model.threads[case_id]
        assert job.startswith("visioneval-case")
    assert all(len(model.threads[f"case-{i}"]) == 1 for i in (0, 2, 3, 4, 5, 7))
    assert model.calls == {case.id: 1 for _, case in cases}  # the attempts stopped before generating


def test_a_model_that_may_wait_elsewhere_always_goes_to_a_pool_thread(
    tmp_path: Path, png: bytes, cases: list[tuple[str, CaseSpec]]
) -> None:
    """Without waits_only_in_calls (a third-party model, a subprocess) nothing is tried on the starting thread."""
    model = InlineModel(png)
    model.waits_only_in_calls = False  # type: ignore[misc]
    pipeline = CasePipeline(environment(model, tmp_path), cases, 4)
    for nodeid, case in cases:
        pipeline.outcome_for(nodeid, case)
    pipeline.close()
    assert model.calls == {case.id: 1 for _, case in cases}
    assert all(len(names) == 1 and names[0].startswith("visioneval-case") for names in model.threads.values())


@pytest.mark.parametrize("waits_only_in_calls", [True, False])
def test_a_case_evaluated_ahead_works_in_turn_and_lets_it_go_for_a_model_that_may_wait(
    tmp_path: Path, png: bytes, cases: list[tuple[str, CaseSpec]], waits_only_in_calls: bool
) -> None:
    """calls/turn.py: a pool thread holds the process's turn for its case, except around its waits."""
    in_turn: dict[str, bool] = {}

    class TurnModel(InlineModel):
        def generate(self, case: CaseSpec, params: Mapping[str, Any]) -> ModelOutput:
            if threading.current_thread().name.startswith("visioneval-case"):
                in_turn[case.id] = holds_turn()
            return super().generate(case, params)

    model = TurnModel(png, waits_for=[case.id for _, case in cases])  # none can be made where it starts
    model.waits_only_in_calls = waits_only_in_calls  # type: ignore[misc]
    pipeline = CasePipeline(environment(model, tmp_path), cases, 4)
    for nodeid, case in cases:
        check_outcome(pipeline.outcome_for(nodeid, case), case, tmp_path, png)
    pipeline.close()
    assert in_turn == {case.id: waits_only_in_calls for _, case in cases}


def test_cases_made_where_they_start_count_against_the_cases_run_ahead(
    tmp_path: Path, png: bytes, cases: list[tuple[str, CaseSpec]]
) -> None:
    """A warm run does not evaluate the whole session when the pipeline starts."""
    model = InlineModel(png)
    pipeline = CasePipeline(environment(model, tmp_path), cases, 1)
    ahead = int(AHEAD_PER_THREAD * threads_for(1))
    assert ahead < len(cases)
    assert sorted(model.calls) == [f"case-{i}" for i in range(ahead)]
    nodeid, case = cases[0]
    check_outcome(pipeline.outcome_for(nodeid, case), case, tmp_path, png)
    assert sorted(model.calls) == [f"case-{i}" for i in range(ahead + 1)]  # one taken, one more made
    pipeline.close()


def test_an_error_of_a_case_made_where_it_starts_lands_in_its_outcome(
    tmp_path: Path, png: bytes, cases: list[tuple[str, CaseSpec]]
) -> None:
    model = InlineModel(png, fail={"case-2"}, crash={"case-5"})
    pipeline = CasePipeline(environment(model, tmp_path), cases, 2)
    outcomes = {case.id: pipeline.outcome_for(nodeid, case) for nodeid, case in cases}
    pipeline.close()
    assert outcomes["case-2"]["error"] == "ModelError: no image for case-2"
    assert outcomes["case-5"]["error"].startswith("internal error RuntimeError: adapter bug on case-5\n")
    assert model.calls["case-2"] == model.calls["case-5"] == 1  # an error is an outcome: not tried again in the pool


class PeakModel(SleepyModel):
    """Counts how many of its cases run at the same moment.

    Until ``target`` cases have run at once, each case waits (up to 10 s) for the others, so a loaded machine
    that starts the threads slowly cannot keep the peak under what the pipeline allows; past it, none waits.
    """

    def __init__(self, png: bytes, target: int):
        super().__init__(png)
        self.target = target
        self.running = self.peak = 0
        self._changed = threading.Condition(self._lock)

    def generate(self, case: CaseSpec, params: Mapping[str, Any]) -> ModelOutput:
        with self._changed:
            self.running += 1
            self.peak = max(self.peak, self.running)
            self._changed.notify_all()
            self._changed.wait_for(lambda: self.peak >= self.target, timeout=10)
        try:
            return super().generate(case, params)
        finally:
            with self._lock:
                self.running -= 1


@pytest.mark.parametrize(("workers", "most"), [(1, 8), (4, threads_for(2))])
def test_a_worker_keeps_threads_for_its_share_of_the_limit(
    tmp_path: Path, png: bytes, cases: list[tuple[str, CaseSpec]], workers: int, most: int
) -> None:
    """Concurrency 8 over 4 xdist workers: each runs at most the threads for its share (2 slots) at once."""
    model = PeakModel(png, target=most)
    pipeline = CasePipeline(environment(model, tmp_path), cases, 8, workers=workers)
    for nodeid, case in cases:
        pipeline.outcome_for(nodeid, case)
    pipeline.close()
    assert model.peak == most


def test_threads_are_the_slots_plus_a_spare_each_up_to_sixteen() -> None:
    assert [threads_for(slots) for slots in (1, 2, 8, 16, 17, 64, 128)] == [2, 4, 16, 32, 33, 80, 144]


def test_errors_land_in_the_outcome(tmp_path: Path, png: bytes, cases: list[tuple[str, CaseSpec]]) -> None:
    model = SleepyModel(png, delay=0.05, fail={"case-2"}, crash={"case-5"})
    pipeline = CasePipeline(environment(model, tmp_path), cases, 3)
    outcomes = {case.id: pipeline.outcome_for(nodeid, case) for nodeid, case in cases}
    pipeline.close()
    assert outcomes["case-2"]["error"] == "ModelError: no image for case-2"
    assert outcomes["case-2"]["artifacts"] == [] and "evaluation" not in outcomes["case-2"]
    assert outcomes["case-5"]["error"].startswith("internal error RuntimeError: adapter bug on case-5\n")
    assert "test_pipeline.py" in outcomes["case-5"]["error"]  # says where it happened
    for _, case in cases:
        if case.id not in ("case-2", "case-5"):
            check_outcome(outcomes[case.id], case, tmp_path, png)


def test_out_of_order_consumption_evaluates_each_case_once(tmp_path: Path, png: bytes, cases: list[tuple[str, CaseSpec]]) -> None:
    model = SleepyModel(png, delay=0.02)
    pipeline = CasePipeline(environment(model, tmp_path), cases, 1)
    for nodeid, case in reversed(cases):  # e.g. pytest runs the items in another order than collected
        check_outcome(pipeline.outcome_for(nodeid, case), case, tmp_path, png)
    pipeline.close()
    assert model.calls == {case.id: 1 for _, case in cases}


# -- workers sharing an exchange folder (xdist) -----------------------------------------------
@pytest.mark.parametrize("inline", [False, True], ids=["in-the-pool", "where-started"])
def test_two_workers_evaluate_each_case_once(tmp_path: Path, png: bytes, cases: list[tuple[str, CaseSpec]], inline: bool) -> None:
    exchange = tmp_path / "run" / ".exchange"
    counter: collections.Counter[str] = collections.Counter()
    make = InlineModel if inline else SleepyModel
    # A case takes a moment either way: inline cases taking none, one worker under load could make all eight
    # before the other had started, and nothing would be shared.
    models = [make(png, counter=counter, delay=0.02), make(png, counter=counter, delay=0.02)]
    orders = [cases, list(reversed(cases))]
    results: list[dict[str, dict[str, Any]]] = [{}, {}]
    errors: list[BaseException] = []
    ready = threading.Barrier(2)

    def worker(n: int) -> None:
        try:
            ready.wait(5)
            pipeline = CasePipeline(environment(models[n], tmp_path), cases, 2, exchange)
            for nodeid, case in orders[n]:
                results[n][nodeid] = pipeline.outcome_for(nodeid, case)
            pipeline.close()
        except BaseException as exc:  # noqa: B036 - re-raised in the main thread
            errors.append(exc)

    run_in_threads(worker, 2)
    assert not errors, errors
    assert counter == {case.id: 1 for _, case in cases}  # every case evaluated exactly once, by one of the two
    assert sum(models[0].mine.values()) > 0 and sum(models[1].mine.values()) > 0  # and the work was shared
    for nodeid, case in cases:
        check_outcome(results[0][nodeid], case, tmp_path, png)
        assert canonical(results[0][nodeid]) == canonical(results[1][nodeid])
        assert json.loads(claim_path(exchange, nodeid, ".json").read_text()) == json.loads(canonical(results[0][nodeid]))


def test_a_case_another_worker_claimed_costs_no_draft_file(
    tmp_path: Path, png: bytes, cases: list[tuple[str, CaseSpec]], monkeypatch: pytest.MonkeyPatch
) -> None:
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    nodeid, _ = cases[0]
    claim_path(exchange, nodeid).write_text("12345")
    pipeline = CasePipeline(environment(SleepyModel(png, delay=0.0), tmp_path), cases[:1], None, exchange)
    monkeypatch.setattr(os, "link", lambda *a: pytest.fail("a taken claim was tried with a draft"))
    assert pipeline._claim(nodeid) is False
    assert sorted(p.name for p in exchange.iterdir()) == [claim_path(exchange, nodeid).name]
    pipeline.close()


def test_a_stale_claim_is_taken_over(tmp_path: Path, png: bytes, cases: list[tuple[str, CaseSpec]]) -> None:
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    nodeid, case = cases[0]
    claim_path(exchange, nodeid).write_text(str(dead_pid()))  # its worker died before publishing
    model = SleepyModel(png, delay=0.01)
    pipeline = CasePipeline(environment(model, tmp_path), cases[:3], 2, exchange)
    started = time.perf_counter()
    outcome = pipeline.outcome_for(nodeid, case)
    assert time.perf_counter() - started < 5
    check_outcome(outcome, case, tmp_path, png)
    assert claim_path(exchange, nodeid).read_text().strip() == str(os.getpid())  # padded: room for a failure note
    assert claim_path(exchange, nodeid, ".json").is_file()
    for other, other_case in cases[1:3]:
        pipeline.outcome_for(other, other_case)
    pipeline.close()
    assert model.calls == {"case-0": 1, "case-1": 1, "case-2": 1}


def test_a_live_claim_is_waited_for(tmp_path: Path, png: bytes, cases: list[tuple[str, CaseSpec]]) -> None:
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    nodeid, case = cases[0]
    claim = claim_path(exchange, nodeid)
    claim.write_text("4242")
    holder = os.open(claim, os.O_RDONLY)  # another worker (alive) holds the claim's lock
    fcntl.flock(holder, fcntl.LOCK_EX)
    published = {"uid": case.uid, "model": "fake:sleepy", "artifacts": [], "error": "from the other worker", "usage": {}}

    def publish() -> None:
        time.sleep(0.3)
        claim_path(exchange, nodeid, ".json").write_text(json.dumps(published))

    model = SleepyModel(png, delay=0.0)
    pipeline = CasePipeline(environment(model, tmp_path), cases[:2], 2, exchange)
    other = threading.Thread(target=publish)
    other.start()
    started = time.perf_counter()
    assert pipeline.outcome_for(nodeid, case) == published
    assert time.perf_counter() - started >= 0.2
    other.join(5)
    pipeline.close()
    os.close(holder)
    assert model.calls == {"case-1": 1}  # never evaluated case-0 itself


CLAIMER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
fcntl.flock(fd, fcntl.LOCK_EX)
os.write(fd, str(os.getpid()).encode())
print("claimed", flush=True)
time.sleep(600)
"""


def test_a_claim_of_a_killed_worker_is_taken_over_while_it_is_a_zombie(
    tmp_path: Path, png: bytes, cases: list[tuple[str, CaseSpec]]
) -> None:
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    nodeid, case = cases[0]
    claimer = start_claimer(CLAIMER, claim_path(exchange, nodeid))
    claimer.kill()  # kill -9, and not reaped: the process stays a zombie that os.kill(pid, 0) still finds
    time.sleep(0.2)
    assert Path(f"/proc/{claimer.pid}/stat").read_text().split(") ")[1].startswith("Z")
    model = SleepyModel(png, delay=0.0)
    pipeline = CasePipeline(environment(model, tmp_path), cases[:1], 1, exchange)
    result: dict[str, Any] = {}
    waiter = threading.Thread(target=lambda: result.update(outcome=pipeline.outcome_for(nodeid, case)), daemon=True)
    waiter.start()
    waiter.join(10)
    try:
        assert not waiter.is_alive(), "still waiting on a dead worker's claim"
        check_outcome(result["outcome"], case, tmp_path, png)
        assert model.calls == {"case-0": 1}
    finally:
        pipeline.close()
        claimer.wait()


def test_close_leaves_no_claim_without_an_outcome(tmp_path: Path, png: bytes, cases: list[tuple[str, CaseSpec]]) -> None:
    exchange = tmp_path / "exchange"
    model = SleepyModel(png, delay=0.1)
    pipeline = CasePipeline(environment(model, tmp_path), cases, 1, exchange)
    pipeline.close()  # the worker is told to stop while one case runs and one waits in the queue
    evaluated = sum(model.calls.values())
    assert 1 <= evaluated < len(cases)
    for nodeid, _ in cases:
        claimed, published = claim_path(exchange, nodeid).exists(), claim_path(exchange, nodeid, ".json").exists()
        assert published or not claimed, f"{nodeid} is claimed but will never be published"
    assert sum(claim_path(exchange, nodeid, ".json").exists() for nodeid, _ in cases) == evaluated


def _wait_in_thread(pipeline: CasePipeline, nodeid: str, case: CaseSpec, seconds: float) -> dict[str, Any]:
    result: dict[str, Any] = {}
    waiter = threading.Thread(target=lambda: result.update(outcome=pipeline.outcome_for(nodeid, case)), daemon=True)
    waiter.start()
    waiter.join(seconds)
    assert not waiter.is_alive(), f"still waiting after {seconds} s"
    return result["outcome"]  # type: ignore[no-any-return]


def test_a_stopped_claimer_ends_the_wait_as_an_error_of_the_case(
    tmp_path: Path, png: bytes, cases: list[tuple[str, CaseSpec]]
) -> None:
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    nodeid, case = cases[0]
    claimer = start_claimer(CLAIMER, claim_path(exchange, nodeid))
    claimer.send_signal(signal.SIGSTOP)  # alive, holding its lock, never beating again
    model = SleepyModel(png, delay=0.0)
    pipeline = CasePipeline(environment(model, tmp_path), cases[:1], 1, exchange, stale_after=1.0)
    try:
        outcome = _wait_in_thread(pipeline, nodeid, case, 10)
        assert time.time() - claim_path(exchange, nodeid).stat().st_mtime >= 1.0  # it waited for the silence
        assert outcome["uid"] == case.uid and outcome["artifacts"] == []
        assert outcome["error"].startswith("WorkerStuck: ")
        assert f"pid {claimer.pid}" in outcome["error"] and "no heartbeat" in outcome["error"]
        assert model.calls == {}  # not evaluated twice: the stuck worker may still publish
    finally:
        pipeline.close()
        claimer.kill()
        claimer.wait()


BEATING_CLAIMER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
fcntl.flock(fd, fcntl.LOCK_EX)
os.write(fd, str(os.getpid()).encode())
print("claimed", flush=True)
while True:  # alive and beating, but never publishing
    os.utime(fd)
    time.sleep(0.2)
"""


def test_a_wait_on_a_live_claimer_has_a_deadline(tmp_path: Path, png: bytes, cases: list[tuple[str, CaseSpec]]) -> None:
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    nodeid, case = cases[0]
    claimer = start_claimer(BEATING_CLAIMER, claim_path(exchange, nodeid))
    model = SleepyModel(png, delay=0.0)
    pipeline = CasePipeline(environment(model, tmp_path), cases[:1], 1, exchange, stale_after=5.0, wait_timeout=1.0)
    try:
        outcome = _wait_in_thread(pipeline, nodeid, case, 10)
        assert outcome["error"].startswith("WorkerStuck: waited ")
        assert f"pid {claimer.pid}" in outcome["error"] and "limit 1 s" in outcome["error"]
        assert model.calls == {}
    finally:
        pipeline.close()
        claimer.kill()
        claimer.wait()


def test_a_claimer_beats_while_it_evaluates(tmp_path: Path, png: bytes, cases: list[tuple[str, CaseSpec]]) -> None:
    exchange = tmp_path / "exchange"
    model = SleepyModel(png, delay=2.5)
    nodeid, case = cases[0]
    pipeline = CasePipeline(environment(model, tmp_path), cases[:1], 1, exchange)
    try:
        claim = claim_path(exchange, nodeid)
        first = claim.stat().st_mtime
        time.sleep(1.8)
        assert claim.stat().st_mtime > first, "no heartbeat on a claim being evaluated"
        check_outcome(pipeline.outcome_for(nodeid, case), case, tmp_path, png)
    finally:
        pipeline.close()


# -- a disk that refuses the outcome (issue 38) -------------------------------------------------
def _refuse_outcomes(monkeypatch: pytest.MonkeyPatch, exchange: Path, times: int | None) -> list[Path]:
    """The exchange's disk is full for the next ``times`` outcome files (None: for all of them)."""
    refused: list[Path] = []
    real = pipeline_module.write_atomic

    def full(path: Path, data: bytes) -> None:
        if path.parent == exchange and (times is None or len(refused) < times):
            refused.append(path)
            raise OSError(errno.ENOSPC, "No space left on device", str(path.with_name(f".{path.name}.tmp")))
        real(path, data)

    monkeypatch.setattr(pipeline_module, "write_atomic", full)
    return refused


@pytest.mark.parametrize("fits", [False, True], ids=["nothing-fits", "a-small-outcome-fits"])
def test_an_outcome_the_disk_refuses_reaches_the_waiting_worker_as_the_disk_error(
    tmp_path: Path, png: bytes, cases: list[tuple[str, CaseSpec]], monkeypatch: pytest.MonkeyPatch, fits: bool
) -> None:
    exchange = tmp_path / "run" / ".exchange"
    refused = _refuse_outcomes(monkeypatch, exchange, 1 if fits else None)
    nodeid, case = cases[0]
    claimer_model, waiter_model = SleepyModel(png, delay=0.0), SleepyModel(png, delay=0.0)
    claimer = CasePipeline(environment(claimer_model, tmp_path), cases[:1], 1, exchange)
    waiter = CasePipeline(environment(waiter_model, tmp_path), cases[:1], 1, exchange, wait_timeout=60)
    try:
        started = time.perf_counter()
        handed = _wait_in_thread(waiter, nodeid, case, 10)
        waited = time.perf_counter() - started
        own = claimer.outcome_for(nodeid, case)
    finally:
        claimer.close()
        waiter.close()
    assert waited < 5, f"waited {waited:.1f} s for an outcome that could not be published"
    check_outcome(own, case, tmp_path, png)  # the claimer keeps its outcome in memory
    assert waiter_model.calls == {} and claimer_model.calls == {case.id: 1}  # not evaluated twice
    assert handed["uid"] == case.uid and handed["artifacts"] == []
    assert handed["error"] == (
        f"DiskError: the worker that evaluated this case (pid {os.getpid()}) could not hand its outcome over: "
        f"No space left on device (ENOSPC) at {exchange}"
    )
    assert len(refused) == (1 if fits else 2)  # the whole outcome, then the small one
    assert claim_path(exchange, nodeid, ".json").exists() == fits


def test_a_disk_error_of_the_evaluation_itself_is_what_the_waiter_is_told(
    tmp_path: Path, png: bytes, cases: list[tuple[str, CaseSpec]], monkeypatch: pytest.MonkeyPatch
) -> None:
    exchange = tmp_path / "run" / ".exchange"
    _refuse_outcomes(monkeypatch, exchange, None)
    nodeid, case = cases[0]
    exchange.mkdir(parents=True)
    claimer = CasePipeline(environment(SleepyModel(png, delay=0.0), tmp_path), cases[:1], None, exchange)
    assert claimer._claim(nodeid)  # claimed, evaluated elsewhere: what reaches _publish is an error outcome
    own_error = "DiskError: cannot write: No space left on device (ENOSPC) at /out/run/fake_sleepy/unit/case-0"
    claimer._publish(nodeid, {"uid": case.uid, "model": "fake:sleepy", "artifacts": [], "error": own_error})
    waiter = CasePipeline(environment(SleepyModel(png, delay=0.0), tmp_path), [], 1, exchange)
    try:
        assert _wait_in_thread(waiter, nodeid, case, 10)["error"] == own_error
    finally:
        claimer.close()
        waiter.close()


# -- a worker's own queue first (xdist) ------------------------------------------------------
def claimed(exchange: Path, cases: list[tuple[str, CaseSpec]]) -> list[str]:
    return [case.id for nodeid, case in cases if claim_path(exchange, nodeid).exists()]


def test_a_worker_first_starts_the_cases_xdist_sent_it(tmp_path: Path, png: bytes, cases: list[tuple[str, CaseSpec]]) -> None:
    exchange = tmp_path / "run" / ".exchange"
    model = SleepyModel(png, delay=0.05)
    queue = [nodeid for nodeid, _ in cases[5:]]  # sent to this worker: the last three cases, in this order
    pipeline = CasePipeline(environment(model, tmp_path), cases, 1, exchange, upcoming=lambda: list(queue))
    ahead = int(AHEAD_PER_THREAD * threads_for(1))
    assert ahead == 3
    # Claimed as they start, before any case the collection lists first: those were sent to another worker.
    assert claimed(exchange, cases) == ["case-5", "case-6", "case-7"]
    for nodeid, case in cases[5:]:
        queue.remove(nodeid)  # xdist takes an item off the queue when it runs it
        check_outcome(pipeline.outcome_for(nodeid, case), case, tmp_path, png)
    pipeline.close()
    assert model.mine["case-5"] == model.mine["case-6"] == model.mine["case-7"] == 1


def test_without_a_queue_a_worker_walks_the_collection_order(
    tmp_path: Path, png: bytes, cases: list[tuple[str, CaseSpec]]
) -> None:
    exchange = tmp_path / "run" / ".exchange"

    def unreadable() -> list[str]:
        raise AttributeError("'TestQueue' object has no attribute 'lock'")  # another xdist

    pipeline = CasePipeline(environment(SleepyModel(png, delay=0.05), tmp_path), cases, 1, exchange, upcoming=unreadable)
    assert claimed(exchange, cases) == ["case-0", "case-1", "case-2"]
    pipeline.close()


def test_two_workers_with_queues_each_evaluate_what_they_run(
    tmp_path: Path, png: bytes, cases: list[tuple[str, CaseSpec]]
) -> None:
    exchange = tmp_path / "run" / ".exchange"
    counter: collections.Counter[str] = collections.Counter()
    models = [SleepyModel(png, delay=0.02, counter=counter), SleepyModel(png, delay=0.02, counter=counter)]
    halves = [cases[:4], cases[4:]]  # what xdist sent each worker
    queues = [[nodeid for nodeid, _ in half] for half in halves]
    pipelines = [
        CasePipeline(environment(models[n], tmp_path), cases, 1, exchange, upcoming=lambda n=n: list(queues[n])) for n in (0, 1)
    ]
    # Both workers start at once; on a loaded machine the second's threads may need a moment to begin (this
    # test consumes the first worker's half before the second's, and the first would then walk on into it).
    deadline = time.monotonic() + 5
    while min(len(models[0].mine), len(models[1].mine)) < 3 and time.monotonic() < deadline:
        time.sleep(0.005)
    for n in (0, 1):
        for nodeid, case in halves[n]:
            queues[n].remove(nodeid)
            check_outcome(pipelines[n].outcome_for(nodeid, case), case, tmp_path, png)
    for pipeline in pipelines:
        pipeline.close()
    assert counter == {case.id: 1 for _, case in cases}
    # Each worker started its own first three cases (the cases it keeps ahead) before anything else.
    assert {"case-0", "case-1", "case-2"} <= set(models[0].mine)
    assert {"case-4", "case-5", "case-6"} <= set(models[1].mine)


def _let_go(claim: Path, deadline: float = 10.0) -> None:
    """Wait until no process holds the claim's lock (its claimer is done with the case)."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if claim.exists():
            fd = os.open(claim, os.O_RDONLY)
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                pass
            finally:
                os.close(fd)
        time.sleep(0.01)
    raise AssertionError(f"{claim} still held after {deadline} s")


def test_only_outcomes_another_worker_may_run_are_published(
    tmp_path: Path, png: bytes, cases: list[tuple[str, CaseSpec]]
) -> None:
    exchange = tmp_path / "run" / ".exchange"
    model = SleepyModel(png, delay=0.02)
    queue = [nodeid for nodeid, _ in cases[:2]]  # xdist sent this worker the first two cases
    pipeline = CasePipeline(environment(model, tmp_path), cases, 1, exchange, upcoming=lambda: list(queue))
    for nodeid, case in cases[:3]:  # the third was never sent here: another worker may be asked to run it
        if nodeid in queue:
            queue.remove(nodeid)  # xdist takes an item off the queue when it runs it
        check_outcome(pipeline.outcome_for(nodeid, case), case, tmp_path, png)
    pipeline.close()
    published = [case.id for nodeid, case in cases if claim_path(exchange, nodeid, ".json").exists()]
    assert "case-0" not in published and "case-1" not in published
    assert "case-2" in published
    assert all(claim_path(exchange, nodeid).exists() for nodeid, _ in cases[:3])  # claimed all the same


def test_a_case_moved_to_another_worker_after_it_was_evaluated_is_taken_over(
    tmp_path: Path, png: bytes, cases: list[tuple[str, CaseSpec]]
) -> None:
    # xdist sent case-0 to the first worker, which evaluated it unpublished; then the case went to the second
    # worker (--dist worksteal, or the first worker died): the second finds the claim let go and takes it over.
    exchange = tmp_path / "run" / ".exchange"
    first_model, second_model = SleepyModel(png, delay=0.02), SleepyModel(png, delay=0.02)
    nodeid, case = cases[0]
    first = CasePipeline(environment(first_model, tmp_path), cases[:1], 1, exchange, upcoming=lambda: [nodeid])
    _let_go(claim_path(exchange, nodeid))
    assert first_model.mine[case.id] == 1
    assert not claim_path(exchange, nodeid, ".json").exists()
    second = CasePipeline(environment(second_model, tmp_path), cases[:1], 1, exchange, upcoming=lambda: [nodeid])
    check_outcome(second.outcome_for(nodeid, case), case, tmp_path, png)
    assert second_model.mine[case.id] == 1
    first.close()
    second.close()
