"""Log records made while a case is evaluated, kept with that case.

Cases are evaluated ahead of pytest: on pool threads, or on pytest's own
thread while it sets another test up. pytest's log capture is process-wide:
during each phase of a test it keeps every record that reaches the root
logger, from any thread, so a record made while evaluating case B landed in
the report of whichever test pytest was in at the time (with
``--log-level=INFO`` one test showed every case's HTTP requests, the others
none). Here a record made during an evaluation goes to that evaluation's own
list (:func:`collecting`), travels with its outcome, also between xdist
workers, and is shown in its own test's report; pytest's per-test handlers
are told to skip it (:func:`install`). Live logging (``log_cli``) and
``--log-file`` still get every record.

Which records reach the root logger is up to the loggers' levels, as
without this module.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterable, Iterator

MAX_LINES = 200  # a case that logs in a loop must not fill its outcome file
FORMAT = "%(levelname)-8s %(name)s:%(filename)s:%(lineno)d %(message)s"  # pytest's default capture format

_current = threading.local()


@contextlib.contextmanager
def collecting() -> Iterator[list[str]]:
    """Collect the records this thread makes meanwhile (formatted, at most :data:`MAX_LINES` and a note)."""
    previous = getattr(_current, "lines", None)
    lines: list[str] = []
    _current.lines = lines
    try:
        yield lines
    finally:
        _current.lines = previous


def during_evaluation() -> bool:
    """Whether this thread is evaluating a case (inside :func:`collecting`)."""
    return getattr(_current, "lines", None) is not None


class CaseLogHandler(logging.Handler):
    """On the root logger: appends each record made during an evaluation to that evaluation's lines."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(logging.Formatter(FORMAT))

    def emit(self, record: logging.LogRecord) -> None:
        lines: list[str] | None = getattr(_current, "lines", None)
        if lines is None or len(lines) > MAX_LINES:
            return
        if len(lines) == MAX_LINES:
            lines.append(f"... more records not kept (at most {MAX_LINES} per case)")
            return
        try:
            lines.append(self.format(record))
        except Exception:  # a record whose message cannot be formatted: as logging does, report and go on
            self.handleError(record)


class NotDuringEvaluation(logging.Filter):
    """Lets a handler skip the records made while a case is evaluated (they belong to that case)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not during_evaluation()


_HANDLER = CaseLogHandler()
_FILTER = NotDuringEvaluation()


def install(per_test_handlers: Iterable[logging.Handler]) -> None:
    """Put :class:`CaseLogHandler` on the root logger; ``per_test_handlers`` (pytest's) skip evaluation records.

    Safe to call more than once.
    """
    root = logging.getLogger()
    if _HANDLER not in root.handlers:
        root.addHandler(_HANDLER)
    for handler in per_test_handlers:
        if _FILTER not in handler.filters:
            handler.addFilter(_FILTER)


def uninstall(per_test_handlers: Iterable[logging.Handler]) -> None:
    """Undo :func:`install` (a process may run pytest again, in-process)."""
    logging.getLogger().removeHandler(_HANDLER)
    for handler in per_test_handlers:
        handler.removeFilter(_FILTER)


@contextlib.contextmanager
def installed(per_test_handlers: Iterable[logging.Handler]) -> Iterator[None]:
    """:func:`install` for the duration of the block, then :func:`uninstall`, also when the block raises."""
    handlers = list(per_test_handlers)
    install(handlers)
    try:
        yield
    finally:
        uninstall(handlers)
