"""calls/lazy_client.py: one client, whichever thread asks first."""

from __future__ import annotations

import threading
import time

import pytest

from pytest_visioneval.calls.lazy_client import LazyClient


def test_threads_starting_together_make_one_client() -> None:
    made: list[object] = []

    def factory() -> object:
        time.sleep(0.05)  # slow, as importing the SDK is: every thread arrives while it is being made
        made.append(object())
        return made[-1]

    lazy: LazyClient[object] = LazyClient(factory)
    start = threading.Barrier(16)
    got: list[object] = []

    def ask() -> None:
        start.wait()
        got.append(lazy.get())

    threads = [threading.Thread(target=ask) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(made) == 1
    assert len(got) == 16 and all(client is made[0] for client in got)


def test_a_given_client_is_used_as_is_and_nothing_is_a_mistake() -> None:
    client = object()
    assert LazyClient(client=client).get() is client
    with pytest.raises(ValueError, match="needs a client or a factory"):
        LazyClient()
