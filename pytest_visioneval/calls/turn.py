"""The case threads of a process take turns at their local work; each lets the turn go while it waits.

Every case evaluated ahead runs on a pool thread (:mod:`run.pipeline`). Between its waits (a reply
on the wire, a slot, the cache's lock for its key, a render, OCR) a case does milliseconds of
Python: the SDK builds the request and reads the reply, graders decode and measure, the cache and
the run folder are written. With dozens of such threads runnable at once, every blocking system
call one of them makes hands the interpreter lock to another and back, and a run at c=64 spent a
fifth of its CPU switching threads (73 voluntary context switches per API call against the bare
client's 0.4; docs/calls.md, fifteenth sitting).

So a case thread holds *the turn*, one lock per process, while it does its own work, and lets it go
around each wait (:func:`turn_released`, at the points of :mod:`waiting`, the HTTP transport, the
cache's single flight and the retry sleeps). pytest's thread holds it too while it runs a case's
test (set-up, hooks, reports: ``plugin/hooks.py``), letting it go while it waits for the case's
outcome. The interpreter lock is then wanted by one thread at a time, not by every thread whose
reply has just come in, and the voluntary switches per call fell from about 73 to about 21.

The turn is an optimisation, never a condition of progress: a thread that has waited
:data:`WAIT_LIMIT_S` for it goes on without it, and asks again after its next wait. A wait that
was missed, or code that holds the turn and blocks on another case thread, costs at most that much
time, never a deadlock. Threads that never take the turn (the renderer's, a grader's own, pytest's
running a plain Python test) are not held back by it.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

# Longer than the turn is held for by the queue of case threads at c=64 (its 99th percentile measured
# 0.44 s there), far shorter than anything a user would notice as a stall.
WAIT_LIMIT_S = 0.5

_turn = threading.Lock()
# Per thread: .wanted (inside holding_turn), .held (holds the turn now), .waits (turn_released blocks open).
_holder = threading.local()
_went_on = 0  # waits that reached WAIT_LIMIT_S (the thread went on without the turn)
_count_lock = threading.Lock()


def _take() -> None:
    global _went_on
    held = _turn.acquire(timeout=WAIT_LIMIT_S)
    _holder.held = held
    if not held:
        with _count_lock:
            _went_on += 1


def _give_back() -> None:
    _holder.held = False
    _turn.release()


def holds_turn() -> bool:
    """Whether the calling thread holds the turn."""
    return bool(getattr(_holder, "held", False))


def went_on_without_turn() -> int:
    """How many times a thread of this process stopped waiting for the turn and went on without it."""
    return _went_on


@contextlib.contextmanager
def holding_turn() -> Iterator[None]:
    """Do the block's local work in turn with the process's other case threads."""
    if getattr(_holder, "wanted", False):  # already inside one further up this thread
        yield
        return
    _holder.wanted, _holder.waits = True, 0
    _take()
    try:
        yield
    finally:
        _holder.wanted = False
        if holds_turn():
            _give_back()


@contextlib.contextmanager
def turn_released() -> Iterator[None]:
    """Let the turn go for the block (a wait) and take it again after; nothing outside :func:`holding_turn`.

    A thread that went on without the turn asks for it again after its next wait. Only the outermost of
    nested blocks lets go and takes again.
    """
    if not getattr(_holder, "wanted", False) or _holder.waits:
        yield
        return
    _holder.waits = 1
    if holds_turn():
        _give_back()
    try:
        yield
    finally:
        _holder.waits = 0
        _take()
