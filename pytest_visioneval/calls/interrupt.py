"""Ctrl-C for the call layer: once a process is interrupted, no new request of it starts.

The plugin's SIGINT handler calls :func:`stop_new_calls`; every request takes its
concurrency slot through :meth:`RunConcurrency.slot`, which checks the switch
before it waits for a slot and again once it holds one, and raises
:class:`CallsStopped` instead of starting the request. Requests already on the
wire are left to finish: their cost is already spent.

The same place counts the requests this process sent, so an interrupted run can
say how many calls were made even for cases whose records never came back.
"""

from __future__ import annotations

import threading

_stopped = threading.Event()
_lock = threading.Lock()
_sent = 0


class CallsStopped(KeyboardInterrupt):
    """A request not started because the run was interrupted.

    A ``KeyboardInterrupt``: the SDK does not wrap it into a retryable connection
    error, the retry policy does not retry it, and pytest treats it as the Ctrl-C it is.
    """


def stop_new_calls() -> None:
    """From now on no request of this process starts (a signal handler may call it)."""
    _stopped.set()


def calls_stopped() -> bool:
    return _stopped.is_set()


def refuse_if_stopped() -> None:
    if _stopped.is_set():
        raise CallsStopped("the run was interrupted: no new API request starts")


def count_request() -> None:
    """One request goes on the wire now."""
    global _sent
    with _lock:
        _sent += 1


def requests_sent() -> int:
    """The requests this process has sent (each attempt of a retried call counts)."""
    with _lock:
        return _sent


def reset_for_tests() -> None:
    global _sent
    _stopped.clear()
    with _lock:
        _sent = 0
