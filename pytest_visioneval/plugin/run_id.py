"""One id per run, chosen on the controller and handed to xdist workers.

A run id names a folder that one run at a time may write: the controller holds
an exclusive lock on ``<run folder>/.run.lock`` for the whole session, and a
second run asking for the same ``--eval-run-id`` while the first is still
going is refused instead of mixing its outputs and outcomes with the first's.
Each session also gets a random token, so the folders its workers share
(the exchange of evaluated cases) are never another session's.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
from datetime import datetime, timezone
from pathlib import Path

import pytest

from ..artifacts import describe_os_error

run_id_key = pytest.StashKey[str]()
session_token_key = pytest.StashKey[str]()
run_lock_key = pytest.StashKey[int]()
WORKERINPUT_KEY = "visioneval_run_id"
TOKEN_WORKERINPUT_KEY = "visioneval_session_token"
LOCK_NAME = ".run.lock"


def new_run_id() -> str:
    """Sortable by time, unique by a random suffix: ``20261122-113045-3fa2``."""
    return datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(2)


def resolve_run_id(config: pytest.Config, requested: str | None) -> str:
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and WORKERINPUT_KEY in workerinput:
        return str(workerinput[WORKERINPUT_KEY])
    return requested or new_run_id()


def resolve_session_token(config: pytest.Config) -> str:
    """The controller's token on a worker; a new one on the controller."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and TOKEN_WORKERINPUT_KEY in workerinput:
        return str(workerinput[TOKEN_WORKERINPUT_KEY])
    return secrets.token_hex(8)


def lock_run_folder(folder: Path, run_id: str) -> int:
    """Hold the run folder for this session; raise ``pytest.UsageError`` if a live run holds it."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as exc:
        raise pytest.UsageError(
            f"pytest-visioneval: the run folder {folder} cannot be made ({describe_os_error(exc)}): "
            "--eval-output-dir must be writable; give another folder"
        ) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.read(fd, 64).decode(errors="replace").strip() or "another process"
        os.close(fd)
        raise pytest.UsageError(
            f"pytest-visioneval: run id {run_id!r} is in use by a run still going (pid {holder}); "
            "two runs must not share a run folder: choose another --eval-run-id, or wait for it to end"
        ) from None
    os.ftruncate(fd, 0)
    os.write(fd, str(os.getpid()).encode())
    return fd


def unlock_run_folder(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)
