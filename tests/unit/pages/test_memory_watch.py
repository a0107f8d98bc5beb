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

# A child that holds about 200 MB resident and carries the flag a Chromium renderer's command line has.
HOG = "import sys, time; kept = b'x' * (200 * 1024 * 1024); print('ready', flush=True); time.sleep(60)"


@pytest.fixture
def stand_in() -> Iterator[subprocess.Popen[str]]:
    child = subprocess.Popen([sys.executable, "-c", HOG, "--type=renderer"], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    yield child
    child.kill()
    child.wait()


def test_a_renderer_over_the_limit_is_stopped_and_the_page_learns_its_size(stand_in: subprocess.Popen[str]) -> None:
    watch = MemoryWatch(interval_s=0.02)
    with watch.page(100) as watched:
        stand_in.wait(timeout=10)  # killed by the watch
        assert watched.exceeded_mb is not None and 150 <= watched.exceeded_mb <= 400
    assert stand_in.returncode == -9
    time.sleep(0.01)
    with watch.page(100) as later:  # a page that started after the kill was not stopped
        assert later.exceeded_mb is None


def test_pages_without_a_limit_are_not_swept(stand_in: subprocess.Popen[str]) -> None:
    watch = MemoryWatch(interval_s=0.02)
    with watch.page(None) as watched:
        time.sleep(0.2)
        assert stand_in.poll() is None and watched.exceeded_mb is None


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
