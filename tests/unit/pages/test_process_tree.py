"""Finding and killing processes below this one by a tag on their command line (stand-ins, not Chromium)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from pytest_visioneval.pages.process_tree import command_line, descendants, kill_tagged
from tests.unit.pages.conftest import alive, gone

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")

# A child that starts a grandchild and prints the grandchild's pid: a browser and one of its renderers.
PARENT = (
    "import subprocess, sys, time; "
    "kid = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)', '--type=renderer']); "
    "print(kid.pid, flush=True); time.sleep(60)"
)


def start(*tags: str) -> tuple[subprocess.Popen[str], int]:
    child = subprocess.Popen([sys.executable, "-c", PARENT, *tags], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    return child, int(child.stdout.readline())


def test_the_tagged_process_and_everything_below_it_are_killed_and_nothing_else() -> None:
    tagged, tagged_kid = start("--visioneval-browser=one")
    other, other_kid = start("--visioneval-browser=two")
    try:
        assert {tagged.pid, tagged_kid, other.pid, other_kid} <= set(descendants(os.getpid()))
        assert b"--visioneval-browser=one" in (command_line(tagged.pid) or b"")
        assert kill_tagged(os.getpid(), "--visioneval-browser=one") == 2
        assert tagged.wait(timeout=5) == -9
        assert gone([tagged_kid])  # the renderer went with its browser
        assert other.poll() is None and alive(other_kid)
    finally:
        for child in (tagged, other):
            child.kill()
            child.wait()
        for pid in (tagged_kid, other_kid):
            if alive(pid):
                os.kill(pid, 9)


def test_a_tag_must_match_a_whole_argument() -> None:
    child, kid = start("--visioneval-browser=onetwo")
    try:
        assert kill_tagged(os.getpid(), "--visioneval-browser=one") == 0
        assert child.poll() is None
    finally:
        child.kill()
        child.wait()
        os.kill(kid, 9)


def test_a_process_gone_has_no_command_line() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert command_line(child.pid) is None
