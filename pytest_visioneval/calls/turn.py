"""The case threads of a process take turns at their local work; each lets the turn go while it waits.

Every case evaluated ahead runs on a pool thread (:mod:`run.pipeline`). Between its waits (a reply
on the wire, a slot, the cache's lock for its key, a render, OCR) a case does milliseconds of
Python: the SDK builds the request and reads the reply, graders decode and measure, the cache and
the run folder are written. With dozens of such threads runnable at once, every blocking system
call one of them makes hands the interpreter lock to another and back, and a run at c=64 spent a
fifth of its CPU switching threads (73 voluntary context switches per API call against the bare
client's 0.4; docs/throughput-log.md, fifteenth sitting).

So a case thread holds *the turn*, one lock per process, while it does its own work, and lets it go
around each wait (:func:`turn_released`, at the points of :mod:`waiting`, the HTTP transport, the
cache's single flight and the retry sleeps). pytest's thread holds it too while it runs a case's
test (set-up, hooks, reports: ``plugin/hooks.py``), letting it go while it waits for the case's
outcome. The interpreter lock is then wanted by one thread at a time, not by every thread whose
reply has just come in, and the voluntary switches per call fell from about 73 to about 21.

The turn is an optimisation, never a condition of progress: when one thread has held the turn for
:data:`HOLD_LIMIT_S` without letting it go, the threads waiting for it go on without it, and ask
again after their next wait. A wait that was missed, or code that holds the turn and blocks on
another case thread, costs at most that much time, never a deadlock. What counts is how long the
holder has held it, not how long a waiter has waited: with large images each case holds the turn
for tens of milliseconds, and a queue of 60 threads waited past half a second while every holder
moved on; a limit on the wait let most of them go on at once (50 decoded 1024 px images at the
same time, 472 MiB; docs/throughput-log.md, sixteenth sitting). Threads that never take the turn (the
renderer's, a grader's own, pytest's running a plain Python test) are not held back by it.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator

# Far longer than a case holds the turn between two waits (milliseconds; a grade of a 1024 px image
# about 20), far shorter than anything a user would notice as a stall.
HOLD_LIMIT_S = 0.5
# A waiter looks again this soon at the earliest, when the holder is close to the limit.
_LEAST_WAIT_S = 0.01

# Pixel work in C (decoding, resampling) lets the interpreter lock go; done off the turn, on another core, while
# another case runs its Python. Below this many pixels the hand-over costs more than it frees.
OFF_TURN_PIXELS = 1 << 18  # a 512x512 image
# One case grading large pixels off the turn per CPU at a time (see pixel_scope): their decoded images, 4 bytes a
# pixel, are what a run holds in memory at once.
_cores = threading.BoundedSemaphore(max(1, os.cpu_count() or 1))

_turn = threading.Lock()
_taken_at = 0.0  # monotonic time the turn was last taken (read without a lock: a float assignment is atomic)
# Per thread: .wanted (inside holding_turn), .held (holds the turn now), .waits (turn_released blocks open),
# .scope (inside pixel_scope), .core (holds one of the _cores slots).
_holder = threading.local()
_went_on = 0  # waits cut short by a holder past HOLD_LIMIT_S (the thread went on without the turn)
_count_lock = threading.Lock()


def _take() -> None:
    global _taken_at, _went_on
    timeout = HOLD_LIMIT_S
    while not _turn.acquire(timeout=timeout):
        # Other threads took and gave back the turn meanwhile: wait on while its holder keeps moving.
        held_for = time.monotonic() - _taken_at
        if held_for >= HOLD_LIMIT_S:
            _holder.held = False
            with _count_lock:
                _went_on += 1
            return
        timeout = max(_LEAST_WAIT_S, HOLD_LIMIT_S - held_for)
    _taken_at = time.monotonic()
    _holder.held = True


def _give_back() -> None:
    _holder.held = False
    _turn.release()


def holds_turn() -> bool:
    """Whether the calling thread holds the turn."""
    return bool(getattr(_holder, "held", False))


def went_on_without_turn() -> int:
    """How many times a thread of this process stopped waiting for the turn (its holder kept it too long) and went on."""
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


@contextlib.contextmanager
def pixel_scope() -> Iterator[None]:
    """Where :func:`off_turn` may work off the turn: a case's grading.

    The first block that goes off the turn takes one of the per-CPU slots and keeps it to this scope's end,
    since what it decoded is alive until then: a thread back in the queue for the turn holds its pixels,
    and without the slot every thread of the queue held its own (434 MiB at 1024 px against 267).
    """
    if getattr(_holder, "scope", False):
        yield
        return
    _holder.scope, _holder.core = True, False
    try:
        yield
    finally:
        _holder.scope = False
        if _holder.core:
            _holder.core = False
            _cores.release()


@contextlib.contextmanager
def off_turn(pixels: int) -> Iterator[None]:
    """Do the block - C work on ``pixels`` pixels that releases the interpreter lock - without the turn.

    Only within a :func:`pixel_scope`, for blocks of :data:`OFF_TURN_PIXELS` or more, by a thread that holds the
    turn; others run the block as they are. The thread waits for a slot without the turn (a thread waiting
    for a slot never holds the turn, and one holding a slot may wait for the turn: no cycle).
    """
    if pixels < OFF_TURN_PIXELS or not getattr(_holder, "scope", False) or not holds_turn():
        yield
        return
    with turn_released():
        if not _holder.core:
            _cores.acquire()
            _holder.core = True
        yield
