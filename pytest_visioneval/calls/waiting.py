"""Where a case's evaluation may wait, and a way to evaluate it only if it does not.

The case pipeline (:mod:`run.pipeline`) hands cases to background threads so
that their API calls overlap. A case whose every call is in the cache waits
for nothing, and handing it to a thread only adds hand-overs of the
interpreter lock between dozens of threads (a warm run of 1000 cases took
about 1.4 ms more per case that way than on one thread). So the pipeline
first evaluates a case on its own thread with waiting forbidden
(:func:`without_waiting`): the first point that would wait calls
:func:`may_wait`, which raises :class:`WouldWait`; the attempt is dropped and
the case goes to a thread as before.

The points that wait: a call the cache does not hold (:mod:`calls.layer`), a
page to render (:mod:`pages.prepare`), OCR (:mod:`graders.ocr`), and a model
that does not declare ``waits_only_in_calls = True`` (every model from a
third-party package, unless it does).

Where a point waits for the whole of a block (:func:`waiting`), the case thread
also lets its turn go for the block (:mod:`turn`). A call's wait is narrower: the
call layer lets the turn go only while the request is on the wire, a slot or the
cache's lock is awaited, or a retry sleeps, so the SDK's own work stays in turn.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

from .turn import turn_released

_forbidden: contextvars.ContextVar[bool] = contextvars.ContextVar("visioneval_waiting_forbidden", default=False)


class WouldWait(BaseException):
    """The evaluation reached a point that waits while waiting was forbidden.

    A ``BaseException``, like ``GeneratorExit``: a model's, judge's or grader's
    ``except Exception`` must not turn it into an error of the case.
    """


def may_wait(what: str) -> None:
    """Mark a point that may wait (``what`` says for what); raises :class:`WouldWait` where waiting is forbidden."""
    if _forbidden.get():
        raise WouldWait(what)


@contextlib.contextmanager
def waiting(what: str) -> Iterator[None]:
    """A block that waits (``what`` says for what): :func:`may_wait`, then the block with the turn let go."""
    may_wait(what)
    with turn_released():
        yield


@contextlib.contextmanager
def without_waiting() -> Iterator[None]:
    """Forbid waiting in this thread's context (threads started inside do not inherit it)."""
    token = _forbidden.set(True)
    try:
        yield
    finally:
        _forbidden.reset(token)


def model_waits_only_in_calls(model: object) -> bool:
    """Whether every wait of the model's ``generate`` is a call through the run's call layer (its cache)."""
    return getattr(model, "waits_only_in_calls", False) is True
