"""Import numpy on a background thread while an xdist controller waits for its workers.

The scores at the end of a run (``results/statistics.py``: the bootstrap
interval of every mean) need numpy, whose import takes 0.1-0.3 s of CPU. A
process that runs cases has usually imported it for its graders long before;
an xdist controller runs none, so it imported numpy only once the last worker
had finished: time between the last answer and the exit, when nothing else
is left to do. The controller idles while its workers run, so it imports
numpy then, from the first case's result on (not earlier: the workers'
own start, collection and SDK import are what the first request waits for).
"""

from __future__ import annotations

import contextlib
import threading

THREAD_NAME = "visioneval-aggregate-import"


def start() -> threading.Thread:
    """Start the import on a daemon thread; the thread."""
    thread = threading.Thread(target=_import_numpy, name=THREAD_NAME, daemon=True)
    thread.start()
    return thread


def _import_numpy() -> None:
    # A failed import is reported where the scores need it (the import is tried again there).
    with contextlib.suppress(Exception):
        import numpy  # noqa: F401
