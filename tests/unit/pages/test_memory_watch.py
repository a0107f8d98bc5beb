"""The memory watch over this process's renderers, with a stand-in renderer (a child process named like one)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from pytest_visioneval.pages.memory_watch import MemoryWatch

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the watch reads /proc")

# A child that holds about MB megabytes resident and carries the flag a Chromium renderer's command line has.
HOG = "import sys, time; kept = b'x' * ({mb} * 1024 * 1024); print('ready', flush=True); time.sleep(60)"


def start_stand_in(mb: int) -> subprocess.Popen[str]:
    child = subprocess.Popen([sys.executable, "-c", HOG.format(mb=mb), "--type=renderer"], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    return child


@pytest.fixture
def stand_in() -> Iterator[subprocess.Popen[str]]:
    child = start_stand_in(200)
    yield child
    child.kill()
    child.wait()


def test_a_renderer_over_the_limit_is_stopped_and_the_page_learns_its_size(stand_in: subprocess.Popen[str]) -> None:
    watch = MemoryWatch(interval_s=0.02)
    with watch.page(100) as watched:
        stand_in.wait(timeout=10)  # killed by the watch
        stopped = watched.stopped
        assert stopped is not None and 150 <= stopped.resident_mb <= 400 and stopped.total_mb is None
    assert stand_in.returncode == -9
    time.sleep(0.01)
    with watch.page(100) as later:  # a page that started after the kill was not stopped
        assert later.stopped is None


def test_pages_without_a_limit_are_not_swept(stand_in: subprocess.Popen[str]) -> None:
    watch = MemoryWatch(interval_s=0.02)
    with watch.page(None) as watched:
        time.sleep(0.2)
        assert stand_in.poll() is None and watched.stopped is None


def test_the_sweeper_stops_with_the_last_page_and_starts_with_the_next(stand_in: subprocess.Popen[str]) -> None:
    watch = MemoryWatch(interval_s=0.02)
    with watch.page(4000):  # far above the stand-in: nothing is stopped
        time.sleep(0.1)
    time.sleep(0.2)  # the sweeper has seen that no page is watched, and ended
    assert stand_in.poll() is None
    assert "visioneval-memory-watch" not in [thread.name for thread in threading.enumerate()]
    with watch.page(100):
        stand_in.wait(timeout=10)
    assert stand_in.returncode == -9


def test_past_the_total_limit_the_largest_renderer_is_stopped_and_the_others_go_on() -> None:
    small, large = start_stand_in(120), start_stand_in(220)
    try:
        watch = MemoryWatch(interval_s=0.02, total_limit_mb=300)  # each is under its own limit, not both together
        with watch.page(1000) as watched:
            large.wait(timeout=10)
            time.sleep(0.1)  # more sweeps: the small one alone fits
            stopped = watched.stopped
        assert large.returncode == -9 and small.poll() is None
        assert stopped is not None and 200 <= stopped.resident_mb <= 450
        assert stopped.total_mb is not None and stopped.total_mb > 300
    finally:
        for child in (small, large):
            child.kill()
            child.wait()
