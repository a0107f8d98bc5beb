"""A value made once per process, however many threads ask for it at the same moment.

``functools.cache`` lets every thread that misses make the value: when the case threads of a
cold run start together, each of them built the TLS context (30-120 ms of CPU each) or hashed the
package's source for the grade memo, and the first of them finished no sooner. :func:`once` makes
the value under a lock the first time; later calls read it without taking the lock.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Once(Generic[T]):
    """``make()``'s value, made by the first caller; the others wait for it, then share it."""

    def __init__(self, make: Callable[[], T]):
        self._make = make
        self._lock = threading.Lock()
        self._value: list[T] = []  # empty until made (a list, so that None is a value like any other)
        self.makes = 0  # how many times ``make`` ran to the end: 1 once made
        functools.update_wrapper(self, make)

    def __call__(self) -> T:
        value = self._value
        if value:
            return value[0]
        with self._lock:
            if not self._value:
                made = self._make()  # raises through: the next caller tries again
                self.makes += 1
                self._value = [made]
            return self._value[0]

    @property
    def made(self) -> bool:
        return bool(self._value)


def once(make: Callable[[], T]) -> Once[T]:
    """Decorate a function of no arguments whose value is made once per process (see the module's docstring)."""
    return Once(make)
