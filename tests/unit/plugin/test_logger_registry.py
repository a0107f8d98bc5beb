"""logger_registry: pytest's walk of the loggers survives other threads creating loggers.

The swap is process-wide, so the end-to-end check runs in pytest processes of
its own (``runpytest_subprocess``), never in this one.
"""

from __future__ import annotations

import pytest

from pytest_visioneval.plugin.logger_registry import SnapshotDict

# Tests whose set-up and tear-down (pytest's log capture walks the loggers at each) race a thread making loggers.
RACE = """
import logging, sys, threading, time
import pytest

def make_loggers(stop):
    for i in range(3000):
        if stop.is_set():
            return
        logging.getLogger(f"race.logger{i}")
        time.sleep(0.0002)

@pytest.fixture(scope="module", autouse=True)
def busy_thread():
    sys.setswitchinterval(1e-6)  # hand the interpreter over as often as it can: the race shows at once
    stop = threading.Event()
    thread = threading.Thread(target=make_loggers, args=(stop,), daemon=True)
    thread.start()
    yield
    stop.set()
    thread.join()

@pytest.mark.parametrize("i", range(300))
def test_nothing(i):
    pass
"""


@pytest.mark.parametrize("walk", ["values", "items", "keys", "iter"])
def test_a_walk_goes_on_while_the_dict_grows(walk: str) -> None:
    registry = SnapshotDict({f"logger{i}": i for i in range(5)})
    walked = []
    for entry in iter(registry) if walk == "iter" else getattr(registry, walk)():
        registry[f"added after {entry}"] = -1  # a plain dict raises "dictionary changed size during iteration"
        walked.append(entry)
    assert len(walked) == 5 and len(registry) == 10


def test_the_copy_is_a_plain_dict_with_the_same_entries() -> None:
    registry = SnapshotDict({"a": 1, "b": 2})
    assert dict(registry) == {"a": 1, "b": 2} and list(registry.items()) == [("a", 1), ("b", 2)]
    assert registry["a"] == 1 and "b" in registry and len(registry) == 2


def test_tests_pass_while_another_thread_makes_loggers(pytester: pytest.Pytester) -> None:
    # Without the swap, pytest 9 errored 41-42 of these 300 set-ups and tear-downs per run on the 2-core machine.
    pytester.makepyfile(test_race=RACE)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=300)
