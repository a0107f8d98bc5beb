"""plugin/fixtures.py: reading an xdist worker's queue for the pipeline."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

from pytest_visioneval.plugin.fixtures import _xdist_queue


class FakeTestQueue:
    """xdist 3's queue of item indexes: a deque read under its lock."""

    def __init__(self, items: list[Any]):
        self._items = list(items)
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def lock(self) -> Iterator[list[Any]]:
        with self._lock:
            yield self._items


class WorkerInteractor:
    def __init__(self, queued: list[Any], nodeids: list[str]):
        self.torun = FakeTestQueue(queued)
        self.session = SimpleNamespace(items=[SimpleNamespace(nodeid=n) for n in nodeids])


def config_with(*plugins: object) -> Any:
    return SimpleNamespace(pluginmanager=SimpleNamespace(get_plugins=lambda: set(plugins)))


def test_the_queue_gives_the_node_ids_in_the_order_they_will_run() -> None:
    nodeids = [f"cases/a.eval.yaml::a/c{i}" for i in range(6)]
    interactor = WorkerInteractor([4, 2, 5, "SHUTDOWN"], nodeids)
    upcoming = _xdist_queue(config_with(object(), interactor))  # type: ignore[arg-type]
    assert upcoming is not None
    assert upcoming() == [nodeids[4], nodeids[2], nodeids[5]]
    interactor.torun._items[:] = [5]  # xdist ran two of them (and the newest entry the last read saw)
    assert upcoming() == [nodeids[5]]  # read again: the pipeline takes a node id once


def test_a_read_of_the_queue_gives_only_what_xdist_added_since_the_last() -> None:
    nodeids = [f"cases/a.eval.yaml::a/c{i}" for i in range(6)]
    interactor = WorkerInteractor([4, 2], nodeids)
    upcoming = _xdist_queue(config_with(object(), interactor))  # type: ignore[arg-type]
    assert upcoming is not None
    assert upcoming() == [nodeids[4], nodeids[2]]
    assert upcoming() == []
    interactor.torun._items[:] = [2, 5, 1]  # one run, two more sent
    assert upcoming() == [nodeids[5], nodeids[1]]
    interactor.torun._items[:] = [3]  # every entry seen has run; one more sent
    assert upcoming() == [nodeids[3]]


def test_without_xdist_s_worker_plugin_there_is_no_queue() -> None:
    assert _xdist_queue(config_with(object())) is None  # type: ignore[arg-type]
    other = WorkerInteractor([], [])
    other.torun = SimpleNamespace()  # type: ignore[assignment]  # a queue of another shape (another xdist)
    assert _xdist_queue(config_with(other)) is None  # type: ignore[arg-type]
