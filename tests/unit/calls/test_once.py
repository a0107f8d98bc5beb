"""``once``: a value made by the first caller while every other thread that asks at that moment waits for it."""

from __future__ import annotations

import threading
import time

import pytest

from pytest_visioneval.calls.once import once


def test_threads_that_ask_together_share_one_making() -> None:
    started = threading.Event()
    made: list[int] = []

    @once
    def slow() -> object:
        started.set()
        made.append(1)
        time.sleep(0.2)  # every other thread asks while this one is still making the value
        return object()

    values: list[object] = []
    threads = [threading.Thread(target=lambda: values.append(slow())) for _ in range(16)]
    threads[0].start()
    started.wait(5)
    for thread in threads[1:]:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert len(values) == 16 and len({id(v) for v in values}) == 1
    assert made == [1] and slow.makes == 1 and slow.made


def test_none_is_a_value_like_any_other() -> None:
    calls: list[int] = []

    @once
    def nothing() -> None:
        calls.append(1)

    assert nothing() is None and nothing() is None
    assert calls == [1]


def test_a_failed_making_is_tried_again_by_the_next_caller() -> None:
    attempts: list[int] = []

    @once
    def flaky() -> str:
        attempts.append(1)
        if len(attempts) == 1:
            raise OSError("the trust store could not be read")
        return "context"

    with pytest.raises(OSError, match="trust store"):
        flaky()
    assert not flaky.made
    assert flaky() == "context" and flaky() == "context"
    assert len(attempts) == 2 and flaky.makes == 1


def test_the_function_keeps_its_name_and_doc() -> None:
    @once
    def numbered() -> int:
        """The next number."""
        return 1

    assert numbered.__name__ == "numbered" and numbered.__doc__ == "The next number."
