"""A process past its CPU allowance is put in SCHED_IDLE (or nice 19), every thread of it; an idle one is left alone."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from pytest_visioneval.pages.cpu_share import BusyRenderers, cpu_seconds, schedule_idle

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")

SPIN = "import threading\ndef spin():\n    while True: pass\nthreading.Thread(target=spin, daemon=True).start()\nspin()"


@pytest.fixture
def spinning() -> Iterator[int]:
    child = subprocess.Popen([sys.executable, "-c", SPIN])
    yield child.pid
    child.kill()
    child.wait()


@pytest.fixture
def idle() -> Iterator[int]:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield child.pid
    child.kill()
    child.wait()


def nice_of_threads(pid: int) -> dict[int, int]:
    return {int(tid): os.getpriority(os.PRIO_PROCESS, int(tid)) for tid in os.listdir(f"/proc/{pid}/task")}


def policies_of_threads(pid: int) -> dict[int, int]:
    return {int(tid): os.sched_getscheduler(int(tid)) for tid in os.listdir(f"/proc/{pid}/task")}


def wait_until_busy(pid: int, cpu_s: float = 0.3) -> None:
    deadline = time.monotonic() + 20
    while (cpu_seconds(pid) or 0.0) < cpu_s and time.monotonic() < deadline:
        time.sleep(0.05)


def test_a_busy_process_is_put_in_sched_idle_every_thread_and_an_idle_one_keeps_its_class(spinning: int, idle: int) -> None:
    wait_until_busy(spinning)
    busy = BusyRenderers(busy_cpu_s=0.2, policy="idle")
    busy.sweep([spinning, idle])
    assert busy.lowered == {spinning}, f"demoted {busy.lowered}; cpu: busy {cpu_seconds(spinning)} s, idle {cpu_seconds(idle)} s"
    threads = policies_of_threads(spinning)
    assert len(threads) >= 2 and set(threads.values()) == {os.SCHED_IDLE}, threads  # the spinning thread too
    assert set(policies_of_threads(idle).values()) == {os.sched_getscheduler(0)}


def test_sched_idle_refused_falls_back_to_nice_19(spinning: int, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object) -> None:
        raise PermissionError("not allowed here")

    wait_until_busy(spinning)  # both threads started
    monkeypatch.setattr(os, "sched_setscheduler", refuse)
    assert schedule_idle(spinning) >= 2
    assert set(nice_of_threads(spinning).values()) == {19}


def test_an_unknown_policy_is_refused() -> None:
    with pytest.raises(ValueError, match="policy must be one of idle, nice, none, not 'stop'"):
        BusyRenderers(policy="stop")


def test_a_busy_process_gets_nice_19_by_default_and_an_idle_one_keeps_its_own(spinning: int, idle: int) -> None:
    wait_until_busy(spinning)
    busy = BusyRenderers(busy_cpu_s=0.2)
    busy.sweep([spinning, idle])
    assert busy.lowered == {spinning}, f"lowered {busy.lowered}; cpu: busy {cpu_seconds(spinning)} s, idle {cpu_seconds(idle)} s"
    threads = nice_of_threads(spinning)
    assert len(threads) >= 2 and set(threads.values()) == {19}, threads  # the spinning thread too, not the main one only
    assert set(nice_of_threads(idle).values()) == {os.getpriority(os.PRIO_PROCESS, 0)}


def test_a_process_that_is_gone_is_forgotten(spinning: int) -> None:
    busy = BusyRenderers(busy_cpu_s=0.0)
    busy.lowered = {spinning, 999_999_999}
    busy.sweep([spinning])
    assert busy.lowered == {spinning}
    assert cpu_seconds(999_999_999) is None
