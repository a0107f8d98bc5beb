"""A content-addressed cache of model and judge calls, on disk.

The key is the SHA-256 of the call's canonical JSON description (provider
and model, endpoint, the full request including input image bytes, grader
version, repeat index); settings that cannot change the output (API key,
timeout, retries) are never part of it. Model and judge calls live in separate
folders. Entries are written atomically (temporary file + rename), so xdist
workers can share one cache; a per-key lock file makes concurrent identical
calls, in any process, run once. Only successful calls are stored.

Modes (``--eval-cache``): ``on`` reads and writes, ``read`` only reads,
``write`` only writes (refreshes), ``off`` does neither.

A cache that cannot be written (a read-only mount, a full disk, no
permission) never costs a reply: the entry or the lock file that cannot be
made is skipped, a :class:`CacheWriteWarning` says so once per cache, and the
call goes on (identical calls are then made once per process, not once per
run). :attr:`CallCache.problem` keeps what went wrong for the run's summary.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import threading
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..artifacts import describe_os_error, making_folder, write_atomic

MODES = ("on", "off", "read", "write")
KINDS = ("model", "judge")
ENTRY_VERSION = 1


def cache_key(kind: str, material: Mapping[str, Any]) -> str:
    """SHA-256 of ``kind`` and the canonical JSON of ``material`` (sorted keys, no whitespace)."""
    canonical = json.dumps({"kind": kind, "v": ENTRY_VERSION, **material}, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def digest(data: bytes) -> str:
    """What stands for bulky bytes (an input image) inside key material."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


class CacheWriteWarning(RuntimeWarning):
    """The call cache could not be written; calls go on without storing (or locking) there."""


class CallCache:
    def __init__(self, root: Path, mode: str = "on"):
        if mode not in MODES:
            raise ValueError(f"cache mode must be one of {', '.join(MODES)}, not {mode!r}")
        self.root = Path(root)
        self.mode = mode
        self.problem: str | None = None  # the first write that failed, worded (None: none failed)
        self._problem_lock = threading.Lock()
        # Per-key locks of this process, for keys whose lock file cannot be made: threads still call once.
        self._local_locks: dict[str, threading.Lock] = {}

    @property
    def reads(self) -> bool:
        return self.mode in ("on", "read")

    @property
    def writes(self) -> bool:
        return self.mode in ("on", "write")

    def path(self, kind: str, key: str) -> Path:
        if kind not in KINDS:
            raise ValueError(f"unknown call kind {kind!r}")
        return self.root / kind / key[:2] / f"{key}.json"

    def get(self, kind: str, key: str) -> Any | None:
        """The stored value, or ``None`` (a miss, a mode that does not read, or an unreadable entry)."""
        if not self.reads:
            return None
        try:
            entry = json.loads(self.path(kind, key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None  # absent, or damaged by hand: treated as a miss and rewritten
        if not isinstance(entry, dict) or entry.get("version") != ENTRY_VERSION or entry.get("key") != key:
            return None
        return entry.get("value")

    def put(self, kind: str, key: str, value: Any, description: Mapping[str, Any] | None = None) -> None:
        if not self.writes:
            return
        entry = {"version": ENTRY_VERSION, "key": key, "kind": kind, "about": dict(description or {}), "value": value}
        try:
            write_atomic(self.path(kind, key), json.dumps(entry, separators=(",", ":")).encode("utf-8"))
        except OSError as exc:  # the reply is in hand (and paid for): use it, and say once that it was not kept
            self._failed("an entry", exc)

    def _failed(self, what: str, exc: OSError) -> None:
        """A write to the cache failed: remember it, and warn the first time only."""
        with self._problem_lock:
            if self.problem is not None:
                return
            self.problem = (
                f"the call cache {self.root} cannot be written ({what}: {describe_os_error(exc)}); "
                "calls go on without it: replies are used and the outputs kept in the run folder, "
                "but a later run pays for them again"
            )
        warnings.warn(CacheWriteWarning(self.problem), stacklevel=2)

    @contextlib.contextmanager
    def single_flight(self, kind: str, key: str) -> Iterator[None]:
        """Hold the key's lock: a second identical call (any thread or process) waits, then finds the entry."""
        if self.mode == "off":
            yield
            return
        lock = self.path(kind, key).with_suffix(".lock")
        try:
            fd = making_folder(lock, lambda: _lock_current(lock))
        except OSError as exc:
            self._failed("a lock file", exc)
            with self._problem_lock:
                local = self._local_locks.setdefault(key, threading.Lock())
            with local:
                yield
            return
        try:
            yield
        finally:
            # Removed while still held: a waiter that then gets the lock sees the file gone and
            # starts over on a fresh one, so no two holders ever exist and no lock file stays behind.
            # (A folder that turned read-only meanwhile keeps it: harmless, a later holder locks it again.)
            try:
                lock.unlink()
            except FileNotFoundError:
                pass
            except OSError as exc:
                self._failed("removing a lock file", exc)
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)


def _lock_current(lock: Path) -> int:
    """An fd holding an exclusive ``flock`` on the file that ``lock`` names now (not on an unlinked one)."""
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # flock is per open file: threads of one process exclude each other too
            if os.fstat(fd).st_ino == os.stat(lock).st_ino:
                return fd
        except FileNotFoundError:
            pass  # the holder removed it as it let go: lock the next one
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)
