"""Keep Python's cycle collector off the objects a case run holds for its whole life.

While a case file is read and its items are made, the collector waits
(:func:`paused`): all of it stays alive until the session ends, so a pass
finds nothing to free, yet the YAML nodes made there trigger passes that walk
the whole growing heap - a third of the time of collecting 10,000 cases.

After collection a run holds tens of thousands of long-lived objects (modules,
the SDK's classes, items, case specs); every full collection walks them all
again, and so do pytest's last collection and the interpreter's at exit - a
tenth of a second or more per process once the SDK is loaded.
``gc.freeze()`` moves every object alive now into a generation the collector
never visits: once after collection (the run's own objects), and once when
pytest unconfigures a process that is about to exit.

Never inside a process that runs pytest in-process (``pytester``: a second
configuration while one is open) or calls ``pytest.main()`` from its own
program: there a freeze would keep that program's later garbage from ever
being collected.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

_open_configs = 0
_nested = False  # a configuration was made while another was open: pytest runs inside a test process


def configured() -> None:
    global _open_configs, _nested
    _open_configs += 1
    _nested = _nested or _open_configs > 1


def unconfigured() -> None:
    global _open_configs
    _open_configs -= 1


def _in_process_run() -> bool:
    return _nested


def _process_ends_with_pytest(config: pytest.Config) -> bool:
    """Whether this process exits when pytest is done: the ``pytest`` command, ``python -m pytest``, an xdist worker."""
    if hasattr(config, "workerinput"):
        return True
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and spec.name in ("pytest.__main__", "pytest"):
        return True
    return os.path.basename(sys.argv[0]) in ("pytest", "py.test") if sys.argv else False


@contextmanager
def paused() -> Iterator[None]:
    """No cycle collection inside; a collector that was off before stays off after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def freeze_after_collection(runs_cases: bool) -> None:
    """Freeze what collection built, when this process will run cases (a plain test run is left alone)."""
    if runs_cases and not _in_process_run():
        gc.freeze()


def freeze_before_exit(config: pytest.Config) -> None:
    """At the end of a process that exits with pytest: every object is about to go anyway."""
    if not _in_process_run() and _process_ends_with_pytest(config):
        gc.freeze()
