"""calls/turn.py: case threads take turns at their local work and let the turn go while they wait."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx2
import openai
import pytest

from pytest_visioneval.calls import turn
from pytest_visioneval.calls.cache import CallCache
from pytest_visioneval.calls.concurrency import RunConcurrency
from pytest_visioneval.calls.layer import CallLayer, CallResult, CallSettings
from pytest_visioneval.calls.slot_transport import client_with_slots
from pytest_visioneval.calls.waiting import WouldWait, waiting, without_waiting
from pytest_visioneval.testing import FakeOpenAIServer
from tests.conftest import run_in_threads


@pytest.fixture(autouse=True)
def short_wait_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test that went wrong waits about 2 s for the turn, not for ever; a wait cut short is counted."""
    monkeypatch.setattr(turn, "HOLD_LIMIT_S", 2.0)


def most_holders_at_once(threads: int, rounds: int, hold_s: float) -> int:
    """Run ``threads`` threads that each hold the turn ``rounds`` times for ``hold_s`` (a blocking call made in
    turn), all starting together; the most that held it at once."""
    inside = 0
    most = 0
    lock = threading.Lock()
    start = threading.Barrier(threads)

    def work(_: int) -> None:
        nonlocal inside, most
        start.wait(5)
        for _ in range(rounds):
            with turn.holding_turn():
                with lock:
                    inside += 1
                    most = max(most, inside)
                time.sleep(hold_s)
                with lock:
                    inside -= 1

    run_in_threads(work, threads)
    return most


def run_together(*targets: Callable[[], None]) -> None:
    """Start a thread for each target, then wait for them all (10 s each at most)."""
    threads = [threading.Thread(target=target) for target in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)


def test_one_thread_at_a_time_holds_the_turn() -> None:
    before = turn.went_on_without_turn()
    assert most_holders_at_once(4, 20, 0.0005) == 1
    assert turn.went_on_without_turn() == before


def test_a_released_turn_lets_another_thread_work_while_this_one_waits() -> None:
    waiting_started = threading.Event()
    other_worked = threading.Event()
    seen: dict[str, bool] = {}  # asserted here: an assert inside a thread would only print

    def waiter() -> None:
        with turn.holding_turn():
            with turn.turn_released():
                waiting_started.set()
                seen["other got the turn meanwhile"] = other_worked.wait(5)
            seen["taken again after the wait"] = turn.holds_turn()

    def other() -> None:
        waiting_started.wait(5)
        with turn.holding_turn():
            seen["other held it"] = turn.holds_turn()
            other_worked.set()

    run_together(waiter, other)
    assert seen == {"other held it": True, "other got the turn meanwhile": True, "taken again after the wait": True}


def test_releasing_without_the_turn_and_holding_it_twice_change_nothing() -> None:
    assert not turn.holds_turn()
    with turn.turn_released():
        assert not turn.holds_turn()
    with turn.holding_turn():
        with turn.holding_turn():  # held further up this thread: not taken twice (that would block for ever)
            assert turn.holds_turn()
        assert turn.holds_turn()
        with turn.turn_released(), turn.turn_released():  # the inner one has nothing to let go
            assert not turn.holds_turn()
        assert turn.holds_turn()
    assert not turn.holds_turn()


def test_a_thread_whose_turn_is_held_too_long_goes_on_without_it_and_asks_again_after_its_next_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A holder that blocks on something (a wait nobody marked) delays the others by the limit, never for ever."""
    monkeypatch.setattr(turn, "HOLD_LIMIT_S", 0.05)
    release_holder = threading.Event()
    holder_in = threading.Event()
    seen: list[bool] = []

    def holder() -> None:
        with turn.holding_turn():
            holder_in.set()
            release_holder.wait(5)

    thread = threading.Thread(target=holder)
    thread.start()
    assert holder_in.wait(5)
    before = turn.went_on_without_turn()
    started = time.monotonic()
    with turn.holding_turn():
        waited = time.monotonic() - started
        seen.append(turn.holds_turn())
        release_holder.set()
        thread.join(5)
        with turn.turn_released():  # nothing held to let go; after the wait it asks again, and the turn is free
            seen.append(turn.holds_turn())
        seen.append(turn.holds_turn())
    assert seen == [False, False, True]
    assert turn.went_on_without_turn() == before + 1
    assert 0.04 < waited < 2
    assert not turn.holds_turn()


def test_a_long_queue_of_holders_that_each_move_on_keeps_every_waiter_in_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    """Twelve threads each holding the turn 20 ms: the last waits about 0.2 s in all, past the limit of
    0.1 s, yet no holder ever keeps it that long, so none goes on without it (two at once would be seen)."""
    monkeypatch.setattr(turn, "HOLD_LIMIT_S", 0.1)
    before = turn.went_on_without_turn()
    assert most_holders_at_once(12, 3, 0.02) == 1
    assert turn.went_on_without_turn() == before


def test_a_wait_marked_with_waiting_lets_the_turn_go_and_is_refused_where_waiting_is_forbidden() -> None:
    with turn.holding_turn():
        with waiting("a page to render"):
            assert not turn.holds_turn()
        assert turn.holds_turn()
    with without_waiting(), pytest.raises(WouldWait, match="OCR"), waiting("OCR"):
        pass


def test_two_threads_asking_for_the_same_call_do_not_wait_on_each_other_for_the_turn(tmp_path: Path) -> None:
    """The first holds the key's lock while its request is on the wire without the turn; the second waits for
    the key without the turn too, so the first can take the turn back, store its reply and let the key go."""
    cache = CallCache(tmp_path / "cache", "on")
    on_the_wire = threading.Event()
    order: list[str] = []

    def first() -> None:
        with turn.holding_turn(), cache.single_flight("model", "ab" * 32):
            order.append("first has the key")
            with turn.turn_released():  # what the slot transport does while the request is out
                on_the_wire.set()
                time.sleep(0.2)
            order.append("first stored its reply")

    def second() -> None:
        assert on_the_wire.wait(5)
        with turn.holding_turn(), cache.single_flight("model", "ab" * 32):
            order.append("second has the key")

    before = turn.went_on_without_turn()
    run_together(first, second)
    assert order == ["first has the key", "first stored its reply", "second has the key"]
    assert turn.went_on_without_turn() == before  # nobody had to give up waiting for the turn


def test_requests_through_the_slot_transport_are_on_the_wire_together_while_threads_hold_turns() -> None:
    with FakeOpenAIServer(latency=0.3) as server:
        server.text_reply = "fine"
        limit = RunConcurrency(4, None)
        client = openai.OpenAI(api_key="k", base_url=server.base_url, max_retries=0, http_client=client_with_slots(limit, 10.0))
        try:
            answers: list[tuple[str | None, bool]] = []

            def work(n: int) -> None:
                with turn.holding_turn():
                    reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": f"q{n}"}])
                    answers.append((reply.choices[0].message.content, turn.holds_turn()))

            run_in_threads(work, 4)
        finally:
            client.close()
            limit.close()
        assert server.max_in_flight == 4  # all on the wire at once: none held the turn while it waited
    assert answers == [("fine", True)] * 4  # each reply read, and the turn held again after it


def test_a_call_without_the_slot_transport_and_its_retry_sleeps_wait_without_the_turn(tmp_path: Path) -> None:
    layer = CallLayer(CallSettings(cache_dir=None, max_attempts=2, backoff=0.05))
    held_in_attempts: list[bool] = []

    def run() -> CallResult:
        held_in_attempts.append(turn.holds_turn())
        if len(held_in_attempts) == 1:
            raise openai.APIConnectionError(request=httpx2.Request("POST", "http://127.0.0.1:9/v1/images"))
        return CallResult({"ok": True}, {})

    other_ran = threading.Event()

    def other() -> None:
        while not held_in_attempts:
            time.sleep(0.001)
        with turn.holding_turn():  # gets the turn while the first thread sleeps before its retry
            other_ran.set()

    thread = threading.Thread(target=other)
    thread.start()
    with turn.holding_turn():
        result = layer.call("model", "m", {"prompt": "p"}, run)
        assert turn.holds_turn()
    thread.join(5)
    assert result.value == {"ok": True}
    assert held_in_attempts == [False, False]
    assert other_ran.is_set()
    layer.close()


# -- pixel work off the turn -------------------------------------------------------------------------------------
LARGE = turn.OFF_TURN_PIXELS
SMALL = turn.OFF_TURN_PIXELS - 1


def test_large_pixel_work_in_a_pixel_scope_is_done_off_the_turn_and_the_turn_taken_back() -> None:
    seen: list[tuple[str, bool]] = []
    with turn.holding_turn():
        with turn.off_turn(LARGE):
            seen.append(("large, outside a scope", turn.holds_turn()))
        with turn.pixel_scope():
            with turn.off_turn(SMALL):
                seen.append(("small", turn.holds_turn()))
            with turn.off_turn(LARGE):
                seen.append(("large", turn.holds_turn()))
            seen.append(("after it", turn.holds_turn()))
    assert seen == [("large, outside a scope", True), ("small", True), ("large", False), ("after it", True)]


def test_a_thread_without_the_turn_does_its_pixel_work_as_it_is() -> None:
    with turn.pixel_scope(), turn.off_turn(LARGE):
        assert not turn.holds_turn()  # nothing to let go, no slot taken: the only slot stays free below
    assert turn._cores.acquire(blocking=False)
    turn._cores.release()


def test_a_scope_keeps_its_slot_to_its_end_so_one_scope_per_slot_holds_pixels(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two threads, one slot: the second's pixel work starts only after the first's whole scope ended (what the
    first decoded is alive until then), although the first let the turn go meanwhile."""
    monkeypatch.setattr(turn, "_cores", threading.BoundedSemaphore(1))
    events: list[str] = []
    first_in = threading.Event()
    lock = threading.Lock()

    def note(what: str) -> None:
        with lock:
            events.append(what)

    def first() -> None:
        with turn.holding_turn(), turn.pixel_scope():
            with turn.off_turn(LARGE):
                note("first decodes")
                first_in.set()
            with turn.turn_released():  # back in the queue for the turn (or waiting on something), pixels in hand
                time.sleep(0.1)
            note("first's scope ends")

    def second() -> None:
        first_in.wait(5)
        with turn.holding_turn(), turn.pixel_scope():
            with turn.off_turn(LARGE):
                note("second decodes")

    run_together(first, second)
    assert events == ["first decodes", "first's scope ends", "second decodes"]


def test_a_scope_lets_its_slot_go_when_its_block_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(turn, "_cores", threading.BoundedSemaphore(1))
    with turn.holding_turn(), pytest.raises(ValueError), turn.pixel_scope():
        with turn.off_turn(LARGE):
            raise ValueError("a broken image")
    assert turn._cores.acquire(blocking=False)
    turn._cores.release()
