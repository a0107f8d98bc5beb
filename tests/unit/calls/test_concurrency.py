"""calls/concurrency.py: the run-wide limit, across threads, across processes, and after a process dies."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pytest_visioneval.calls.concurrency import RunConcurrency
from pytest_visioneval.calls.slot_server import SlotServer
from tests.conftest import run_in_threads


def max_overlap(spans: list[tuple[float, float]]) -> int:
    """The most spans open at one instant (a span that ends as another starts does not overlap it)."""
    events = sorted([(start, 1) for start, _ in spans] + [(end, -1) for _, end in spans], key=lambda e: (e[0], e[1]))
    best = current = 0
    for _, step in events:
        current += step
        best = max(best, current)
    return best


def wait_for(path: Path, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.01)


def test_max_overlap_helper() -> None:
    assert max_overlap([(0, 1), (1, 2), (2, 3)]) == 1
    assert max_overlap([(0, 3), (1, 2), (1.5, 4), (5, 6)]) == 3


def test_limit_must_be_positive(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        RunConcurrency(0, tmp_path)


@pytest.mark.parametrize("shared", [False, True], ids=["threads-only", "slot-files"])
def test_never_more_than_the_limit_inside_across_threads(tmp_path: Path, shared: bool) -> None:
    gate = RunConcurrency(3, tmp_path / "slots" if shared else None)
    lock = threading.Lock()
    inside = 0
    most = 0

    def work(_: int) -> None:
        nonlocal inside, most
        for _ in range(3):
            with gate.slot():
                with lock:
                    inside += 1
                    most = max(most, inside)
                time.sleep(0.02)
                with lock:
                    inside -= 1

    run_in_threads(work, 10)
    gate.close()
    assert inside == 0
    assert most == 3  # never more than 3, and the limit is used (10 threads compete)
    if shared:
        assert sorted(p.name for p in (tmp_path / "slots").iterdir()) == ["slot-0.lock", "slot-1.lock", "slot-2.lock"]


def test_a_slot_is_given_back_after_an_exception(tmp_path: Path) -> None:
    gate = RunConcurrency(1, tmp_path)
    with pytest.raises(RuntimeError), gate.slot():
        raise RuntimeError("boom")
    done = threading.Event()

    def again() -> None:
        with gate.slot():
            done.set()

    thread = threading.Thread(target=again)
    thread.start()
    assert done.wait(5)
    thread.join(5)
    gate.close()


def test_each_slot_in_flight_has_its_own_index_in_the_process() -> None:
    gate = RunConcurrency(4, None)
    lock = threading.Lock()
    holding: set[int] = set()
    seen: set[int] = set()
    clashes: list[int] = []

    def work(_: int) -> None:
        for _ in range(5):
            with gate.slot() as index:
                with lock:
                    if index in holding:
                        clashes.append(index)
                    holding.add(index)
                    seen.add(index)
                time.sleep(0.01)
                with lock:
                    holding.discard(index)

    run_in_threads(work, 8)
    gate.close()
    assert clashes == []
    assert seen == {0, 1, 2, 3}  # all four used (8 threads compete), none beyond the limit


def test_one_call_at_a_time_reuses_one_index_and_an_exception_gives_it_back() -> None:
    gate = RunConcurrency(8, None)
    with pytest.raises(RuntimeError), gate.slot() as first:
        raise RuntimeError("boom")
    indexes = set()
    for _ in range(5):
        with gate.slot() as index:
            indexes.add(index)
    assert indexes == {first}  # the one kept-alive connection behind it keeps being used


_WORKER = """
import sys, threading, time
from pathlib import Path
from pytest_visioneval.calls.concurrency import RunConcurrency
where, limit, out, ready, go = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4]), Path(sys.argv[5])
if where.startswith("server:"):
    gate = RunConcurrency(limit, None, where.removeprefix("server:"))
else:
    gate = RunConcurrency(limit, Path(where))
ready.write_text("")
while not go.exists():
    time.sleep(0.002)
spans, lock = [], threading.Lock()
def work():
    for _ in range(5):
        with gate.slot():
            start = time.monotonic()
            time.sleep(0.03)
            end = time.monotonic()
        with lock:
            spans.append((start, end))
        time.sleep(0.02)  # between calls: without it one process's threads hand slots to each other and the other waits
threads = [threading.Thread(target=work) for _ in range(3)]
for t in threads: t.start()
for t in threads: t.join()
out.write_text("\\n".join(f"{a!r} {b!r}" for a, b in spans))
"""


def run_workers(tmp_path: Path, folders: list[Path] | list[str], limit: int) -> list[list[tuple[float, float]]]:
    """Start one process per folder (or ``server:ADDRESS``), release them together, return each one's (enter, exit) times."""
    go = tmp_path / "go"
    procs = []
    for n, folder in enumerate(folders):
        args = [str(folder), str(limit), str(tmp_path / f"spans-{n}"), str(tmp_path / f"ready-{n}"), str(go)]
        procs.append(subprocess.Popen([sys.executable, "-c", _WORKER, *args]))
    try:
        for n in range(len(folders)):
            wait_for(tmp_path / f"ready-{n}")
        go.write_text("")
        for proc in procs:
            assert proc.wait(30) == 0
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
    result = []
    for n in range(len(folders)):
        lines = (tmp_path / f"spans-{n}").read_text().splitlines()
        result.append([(float(a), float(b)) for a, b in (line.split() for line in lines)])
    return result


def test_processes_sharing_the_slot_folder_stay_within_the_limit(tmp_path: Path) -> None:
    first, second = run_workers(tmp_path, [tmp_path / "slots", tmp_path / "slots"], limit=2)
    assert len(first) == len(second) == 15
    # The two processes did run at the same time (their busy periods overlap) ...
    assert min(s for s, _ in first) < max(e for _, e in second) and min(s for s, _ in second) < max(e for _, e in first)
    # ... yet together never held more than 2 slots, and did use both.
    assert max_overlap(first + second) == 2


def test_processes_sharing_a_slot_server_stay_within_the_limit(tmp_path: Path) -> None:
    server = SlotServer(2)
    try:
        first, second = run_workers(tmp_path, [f"server:{server.address}"] * 2, limit=2)
    finally:
        server.close()
    assert len(first) == len(second) == 15
    assert min(s for s, _ in first) < max(e for _, e in second) and min(s for s, _ in second) < max(e for _, e in first)
    assert max_overlap(first + second) == 2


def test_processes_with_separate_folders_do_exceed_it(tmp_path: Path) -> None:
    """The control for the test above: the measurement does see a limit that is not shared."""
    first, second = run_workers(tmp_path, [tmp_path / "slots-a", tmp_path / "slots-b"], limit=2)
    assert max_overlap(first) <= 2 and max_overlap(second) <= 2
    assert max_overlap(first + second) > 2


_HOLDER = """
import sys, time
from pathlib import Path
from pytest_visioneval.calls.concurrency import RunConcurrency
gate = RunConcurrency(1, Path(sys.argv[1]))
with gate.slot():
    Path(sys.argv[2]).write_text("")
    time.sleep(60)
"""


def test_a_killed_process_releases_its_slot(tmp_path: Path) -> None:
    folder, held = tmp_path / "slots", tmp_path / "held"
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(folder), str(held)])
    gate: RunConcurrency | None = None
    try:
        wait_for(held)
        gate = RunConcurrency(1, folder)
        got = threading.Event()

        def take() -> None:
            assert gate is not None
            with gate.slot():
                got.set()

        thread = threading.Thread(target=take, daemon=True)
        thread.start()
        assert not got.wait(0.4), "took the slot another process holds"
        holder.kill()
        holder.wait(10)
        assert got.wait(5), "the slot of the killed process was never released"
        thread.join(5)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait(10)
        if gate is not None:
            gate.close()
