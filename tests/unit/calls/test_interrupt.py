"""After a Ctrl-C no request takes a slot; every request that takes one is counted."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from pytest_visioneval.calls import interrupt
from pytest_visioneval.calls.concurrency import RunConcurrency


@pytest.fixture(autouse=True)
def fresh_switch() -> Iterator[None]:
    interrupt.reset_for_tests()
    yield
    interrupt.reset_for_tests()


def test_each_slot_taken_counts_one_request() -> None:
    limit = RunConcurrency(2, None)
    for _ in range(3):
        with limit.slot():
            pass
    assert interrupt.requests_sent() == 3


def test_no_slot_is_given_after_the_switch_and_nothing_is_counted() -> None:
    limit = RunConcurrency(2, None)
    interrupt.stop_new_calls()
    with pytest.raises(interrupt.CallsStopped, match="interrupted: no new API request starts"):
        with limit.slot():
            pytest.fail("a request started after the Ctrl-C")
    assert interrupt.requests_sent() == 0


def test_a_request_waiting_for_a_slot_is_refused_when_the_switch_flips() -> None:
    limit = RunConcurrency(1, None)
    outcome: list[str] = []
    with limit.slot():  # the only slot is busy: the other thread waits
        waiter = threading.Thread(target=lambda: outcome.append(_take(limit)))
        waiter.start()
        interrupt.stop_new_calls()
    waiter.join(5)
    assert outcome == ["refused"]
    assert interrupt.requests_sent() == 1  # the first request only


def _take(limit: RunConcurrency) -> str:
    try:
        with limit.slot():
            return "started"
    except interrupt.CallsStopped:
        return "refused"


def test_a_call_refused_on_the_wire_is_not_counted_as_a_failed_request() -> None:
    from pytest_visioneval.calls.layer import CallLayer, CallResult, CallSettings
    from pytest_visioneval.calls.usage import usage_scope

    def refused_by_the_transport() -> CallResult:
        interrupt.refuse_if_stopped()  # what the slot transport does before sending
        return CallResult("sent")

    layer = CallLayer(CallSettings())
    interrupt.stop_new_calls()
    with usage_scope() as usage, pytest.raises(interrupt.CallsStopped):
        layer.call("model", "m", {"p": 1}, refused_by_the_transport, slot_in_transport=True)
    assert usage.as_dict() == {} or all(k.get("failed", 0) == 0 for k in usage.as_dict().values()), usage.as_dict()
