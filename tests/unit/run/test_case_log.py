"""Records made while a case is evaluated stay with that case, and out of the test pytest is in."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator

import pytest

from pytest_visioneval.run import case_log

log = logging.getLogger("visioneval-test.case-log")


class Kept(logging.Handler):
    """Stands in for pytest's per-test capture handler: keeps the messages it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def message(line: str) -> str:
    """The message of a collected line (after pytest's ``LEVEL name:file.py:line`` prefix)."""
    return line.split(".py:", 1)[1].split(" ", 1)[1]


@pytest.fixture
def per_test() -> Iterator[Kept]:
    handler = Kept()
    root = logging.getLogger()
    root.addHandler(handler)
    with case_log.installed([handler]):
        yield handler
    root.removeHandler(handler)


def test_a_record_made_during_an_evaluation_goes_to_that_evaluation_only(per_test: Kept) -> None:
    log.warning("before")
    with case_log.collecting() as lines:
        log.warning("inside %s", "case-1")
    log.warning("after")
    assert [message(line) for line in lines] == ["inside case-1"]
    assert lines[0].startswith("WARNING  visioneval-test.case-log:test_case_log.py:")
    assert per_test.messages == ["before", "after"]


def test_each_thread_collects_its_own_records(per_test: Kept) -> None:
    collected: dict[int, list[str]] = {}
    barrier = threading.Barrier(4)

    def evaluate(number: int) -> None:
        with case_log.collecting() as lines:
            barrier.wait()  # all four evaluations are open at once
            for step in range(3):
                log.warning("case %d step %d", number, step)
            barrier.wait()
        collected[number] = lines

    threads = [threading.Thread(target=evaluate, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    log.warning("pytest's own")  # the main thread is in no evaluation meanwhile
    for thread in threads:
        thread.join(10)
    for number in range(4):
        assert [message(line) for line in collected[number]] == [f"case {number} step {s}" for s in range(3)]
    assert per_test.messages == ["pytest's own"]


def test_an_evaluation_inside_another_thread_s_work_restores_what_was_collected_before(per_test: Kept) -> None:
    with case_log.collecting() as outer:
        log.warning("outer 1")
        with case_log.collecting() as inner:
            log.warning("inner")
        log.warning("outer 2")
    assert [message(line) for line in outer] == ["outer 1", "outer 2"]
    assert [message(line) for line in inner] == ["inner"]
    assert not case_log.during_evaluation()


def test_a_case_that_logs_in_a_loop_keeps_a_bounded_list(per_test: Kept) -> None:
    with case_log.collecting() as lines:
        for step in range(case_log.MAX_LINES + 50):
            log.warning("step %d", step)
    assert len(lines) == case_log.MAX_LINES + 1
    assert message(lines[-2]) == f"step {case_log.MAX_LINES - 1}"
    assert lines[-1] == f"... more records not kept (at most {case_log.MAX_LINES} per case)"


def test_uninstall_gives_pytest_its_records_back() -> None:
    handler = Kept()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        case_log.install([handler])
        case_log.install([handler])  # twice: still one filter, one case handler
        assert sum(isinstance(h, case_log.CaseLogHandler) for h in root.handlers) == 1
        assert len(handler.filters) == 1
        case_log.uninstall([handler])
        with case_log.collecting() as lines:
            log.warning("seen by pytest again")
        assert handler.messages == ["seen by pytest again"] and lines == []
        assert not any(isinstance(h, case_log.CaseLogHandler) for h in root.handlers)
    finally:
        root.removeHandler(handler)
