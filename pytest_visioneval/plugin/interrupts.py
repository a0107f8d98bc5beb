"""Ctrl-C: stop starting calls at once, finish in order, and never lose the partial results.

A terminal sends SIGINT to every process of the run (the controller and its
xdist workers). The first Ctrl-C in a process stops its new API requests at
once (:func:`~pytest_visioneval.calls.interrupt.stop_new_calls`) and asks the
session to stop after the case in progress (``shouldstop``; on the xdist
controller, xdist's own, which shuts the workers down and keeps taking their
reports until they are gone). The case in progress ends as soon as its calls
in flight return: a call it could not start makes it "not run"
(:func:`stopped_case`), so the cases that finished and the calls that were
made reach the results. A second Ctrl-C raises ``KeyboardInterrupt`` as
Python's own handler does: stop waiting at once.

Once the session starts writing its results, report and JUnit XML, later
Ctrl-Cs are ignored (with a note): a run cut while writing would leave a
half-written file, or none, and could exit with a status that does not say it
was interrupted.
"""

from __future__ import annotations

import os
import signal
import threading
from types import FrameType
from typing import Any

import pytest

from ..calls.interrupt import CallsStopped, calls_stopped, requests_sent, stop_new_calls

REQUESTS_WORKEROUTPUT_KEY = "visioneval_requests_sent"
INTERRUPTED_REASON = "interrupted (Ctrl-C or a signal)"


class InterruptHandler:
    """The SIGINT handler of one pytest process, installed from configure to unconfigure."""

    def __init__(self, config: pytest.Config):
        self.config = config
        self.is_worker = hasattr(config, "workerinput")
        self.signals = 0
        self.writing = False  # the session writes its outputs: no Ctrl-C may cut it
        self.worker_requests: dict[str, int] = {}  # controller: requests each worker sent, from its output
        self.workers_started = 0  # controller: xdist workers configured (those that never report are not counted)
        self._previous: Any = None
        self.session: pytest.Session | None = None  # set when the session starts
        self._sent_before = requests_sent()  # a process may hold several sessions (pytester's in-process runs)

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return  # signal handlers can only be set from the main thread (pytest embedded in a thread)
        self._previous = signal.signal(signal.SIGINT, self._on_sigint)

    def uninstall(self) -> None:
        if self._previous is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None

    def _on_sigint(self, signum: int, frame: FrameType | None) -> None:
        self.signals += 1
        stop_new_calls()
        if self.writing:
            _note("Ctrl-C ignored: writing the partial results (kill -9 stops at once, and loses them)")
            return
        if self.signals > 1:
            raise KeyboardInterrupt
        dsession = None if self.is_worker else self.config.pluginmanager.get_plugin("dsession")
        if dsession is not None:
            dsession.shouldstop = INTERRUPTED_REASON  # xdist shuts the workers down, then raises Interrupted
        elif self.session is not None:
            self.session.shouldstop = INTERRUPTED_REASON  # after the case in progress
        else:
            raise KeyboardInterrupt  # still collecting: nothing to finish
        if not self.is_worker:
            _note("Ctrl-C: no new API call starts; finishing the cases in flight (Ctrl-C again to stop at once)")

    def every_process_counted(self) -> bool:
        """Whether every worker reported its requests (a second Ctrl-C stops waiting for them)."""
        return len(self.worker_requests) >= self.workers_started

    def requests_sent(self) -> int:
        """The API requests this run sent: this process's and its workers' (as far as they reported)."""
        return requests_sent() - self._sent_before + sum(self.worker_requests.values())


def interrupted() -> bool:
    """Whether this process had a Ctrl-C."""
    return calls_stopped()


def _note(text: str) -> None:
    try:
        os.write(2, f"\nvisioneval: {text}\n".encode())  # a signal handler: no buffered stream, no lock
    except OSError:
        pass


STOPPED_CASE_TEXT = "not run: the run was interrupted (Ctrl-C) before this case's API calls could start"


def stopped_case(exc: BaseException) -> bool:
    """Whether a case's exception is a call refused after a Ctrl-C (the case is then skipped, as not run)."""
    return isinstance(exc, CallsStopped)
