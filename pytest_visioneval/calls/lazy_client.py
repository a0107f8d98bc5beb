"""An SDK client made once, on first need, whichever thread needs it first.

A run answered from the cache never imports the SDK. On a cache miss the call
layer makes the client before taking a concurrency slot (``CallLayer.call``'s
``prepare``), so the SDK's import - most of a second - never holds a slot, and
sixteen threads starting together make one client, not sixteen.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class LazyClient(Generic[T]):
    def __init__(self, factory: Callable[[], T] | None = None, client: T | None = None):
        if client is None and factory is None:
            raise ValueError("a LazyClient needs a client or a factory")
        self._factory = factory
        self._client = client
        self._lock = threading.Lock()

    def get(self) -> T:
        client = self._client
        if client is not None:
            return client
        with self._lock:
            if self._client is None:
                assert self._factory is not None
                self._client = self._factory()
            return self._client
