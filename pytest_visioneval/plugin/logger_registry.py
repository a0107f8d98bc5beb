"""Let pytest walk the logging registry while our threads create loggers.

pytest's log capture (``catching_logs.__enter__`` in ``_pytest/logging.py``)
loops over ``logging.Logger.manager.loggerDict`` without logging's lock, at
every setup, call and teardown of every test. A case run has other threads
working meanwhile: the SDK's import (``sdk_preload``) and the cases' pool
threads, whose first imports (httpx's transport, Pillow's image plugins,
the SDK's modules) each call ``logging.getLogger``. When a new logger lands
during pytest's loop, the loop raises "RuntimeError: dictionary changed size
during iteration": the case then errors at setup (seen in CI), or the worker
dies with an INTERNALERROR when the loop was the run loop's.

The registry is swapped, once, for a dict whose iterators walk a copy,
taken under the lock ``getLogger`` holds while it adds a logger.
The proper fix is a ``list(...)`` in pytest's loop; until pytest has one,
this closes the race for every plugin and test of the run, not just ours.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from _collections_abc import dict_items, dict_keys, dict_values

# logging's own lock (private, hence the fallback), which ``getLogger`` holds while it adds a logger.
_LOGGING_LOCK: Any = getattr(logging, "_lock", None) or contextlib.nullcontext()


class SnapshotDict(dict[str, Any]):
    """A dict whose ``keys``, ``values``, ``items`` and iteration walk a copy taken when they are asked for."""

    __slots__ = ()

    def _copy(self) -> dict[str, Any]:
        # From the items view, not from self: dict(self) would call back into keys().
        with _LOGGING_LOCK:
            return dict(dict.items(self))

    def __iter__(self) -> Iterator[str]:
        return iter(self._copy())

    def keys(self) -> dict_keys[str, Any]:
        return self._copy().keys()

    def values(self) -> dict_values[str, Any]:
        return self._copy().values()

    def items(self) -> dict_items[str, Any]:
        return self._copy().items()


def make_walks_safe() -> None:
    """Swap the registry of loggers for a :class:`SnapshotDict` holding the same loggers (once per process)."""
    manager = logging.Logger.manager
    with _LOGGING_LOCK:  # no logger can be added between the copy and the swap
        if not isinstance(manager.loggerDict, SnapshotDict):
            manager.loggerDict = SnapshotDict(dict.items(manager.loggerDict))
