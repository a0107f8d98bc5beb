"""A content-addressed cache of model and judge calls, on disk.

The key is the SHA-256 of the call's canonical JSON description (provider
and model, endpoint, the full request including input image bytes, grader
version, repeat index); settings that cannot change the output (API key,
timeout, retries) are never part of it. Model and judge calls live in separate
folders. Entries are written atomically (temporary file + rename), so xdist
workers can share one cache and a torn file is never read as a hit. Only
successful calls are stored.

Concurrent identical calls, in any thread or process, run once
(:meth:`CallCache.single_flight`): a thread takes its key's lock within its
process, then a one-byte record lock (``fcntl.lockf``) at the key's offset in
the cache's one lock file, ``.single-flight``, which is made once and never
removed. No file is made or removed per call (a lock file per key cost an
open, a create, two stats, an unlink and a close for every call).

Modes (``--eval-cache``): ``on`` reads and writes, ``read`` only reads,
``write`` only writes (refreshes), ``off`` does neither.

A cache that cannot be written (a read-only mount, a full disk, no
permission) never costs a reply: the entry or the lock file that cannot be
written is skipped, a :class:`CacheWriteWarning` says so once per cache, and
the call goes on (identical calls are then made once per process, not once
per run). :attr:`CallCache.problem` keeps what went wrong for the run's summary.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import threading
import time
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..artifacts import describe_os_error, making_folder, write_atomic
from .turn import turn_released

MODES = ("on", "off", "read", "write")
KINDS = ("model", "judge", "grade")  # grade: grades of deterministic graders (run/grade_memo.py)
ENTRY_VERSION = 1
LOCK_FILE = ".single-flight"  # in the cache's root: the record locks of single_flight, for every key


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
        self._root_text = os.fspath(self.root)  # entries' paths are joined as text: a Path per look-up cost more than the look-up
        self.mode = mode
        self.problem: str | None = None  # the first write that failed, worded (None: none failed)
        self._problem_lock = threading.Lock()
        self._locks = _lock_file(self.root / LOCK_FILE)

    @property
    def reads(self) -> bool:
        return self.mode in ("on", "read")

    @property
    def writes(self) -> bool:
        return self.mode in ("on", "write")

    def path(self, kind: str, key: str) -> Path:
        return Path(self._entry_file(kind, key))

    def _entry_file(self, kind: str, key: str) -> str:
        if kind not in KINDS:
            raise ValueError(f"unknown call kind {kind!r}")
        return f"{self._root_text}{os.sep}{kind}{os.sep}{key[:2]}{os.sep}{key}.json"

    def get(self, kind: str, key: str) -> Any | None:
        """The stored value, or ``None`` (a miss, a mode that does not read, or an unreadable entry)."""
        if not self.reads:
            return None
        try:
            with open(self._entry_file(kind, key), "rb") as stored:
                entry = json.loads(stored.read())
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
            write_atomic(self._entry_file(kind, key), json.dumps(entry, separators=(",", ":")).encode("utf-8"))
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
        offset = _offset(kind, key)
        locks = self._locks
        with contextlib.ExitStack() as held:
            with turn_released():  # the same request may be on the wire for another thread or process
                held.enter_context(locks.in_process(offset))
                fd = self._hold_byte(offset)
            try:
                yield
            finally:
                if fd is not None:
                    try:
                        fcntl.lockf(fd, fcntl.LOCK_UN, 1, offset)
                    finally:
                        locks.let_go()

    def _hold_byte(self, offset: int) -> int | None:
        """The lock file's descriptor, holding the byte at ``offset``; None where the lock file cannot be used.

        Without it the threads of this process still exclude each other (the caller holds the byte's thread
        lock); other processes may make the same call too.
        """
        try:
            fd = self._locks.hold()
        except OSError as exc:
            self._failed("a lock file", exc)
            return None
        try:
            _lock_range(fd, offset)
        except BaseException as exc:
            self._locks.let_go()
            if not isinstance(exc, OSError):
                raise
            self._failed("a lock file", exc)  # a file system without record locks (ENOLCK)
            return None
        return fd


def _offset(kind: str, key: str) -> int:
    """The byte of the lock file that stands for a key: 60 bits of its hash, model and judge keys apart."""
    return int(key[:15], 16) * 2 + KINDS.index(kind)


def _lock_range(fd: int, offset: int) -> None:
    """Wait for the exclusive record lock on the byte at ``offset``.

    The kernel's deadlock check counts a process as one owner: threads of two processes waiting for
    bytes the other process holds can be refused with EDEADLK although each holder will let go. Waiting
    a moment and asking again is then right.
    """
    while True:
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX, 1, offset)
            return
        except OSError as exc:
            if exc.errno != errno.EDEADLK:
                raise
            time.sleep(0.005)


class _LockFile:
    """A cache's lock file as this process uses it: one descriptor, and one thread lock per byte in use.

    Record locks belong to the process, not to a thread or a descriptor, so two threads of one process
    must never hold the same byte (the second would be let in at once) and the descriptor must not be
    closed while any byte is held (closing any descriptor of the file lets go of all of them): the
    byte's thread lock is taken first, and the descriptor is closed when no thread uses it.
    """

    def __init__(self, path: Path):
        self.path = path
        self._guard = threading.Lock()
        self._fd: int | None = None
        self._users = 0  # threads between hold() and let_go()
        self._bytes: dict[int, list[Any]] = {}  # offset -> [its thread lock, threads using or waiting for it]

    @contextlib.contextmanager
    def in_process(self, offset: int) -> Iterator[None]:
        with self._guard:
            entry = self._bytes.setdefault(offset, [threading.Lock(), 0])
            entry[1] += 1
        try:
            with entry[0]:
                yield
        finally:
            with self._guard:
                entry[1] -= 1
                if not entry[1]:
                    del self._bytes[offset]

    def hold(self) -> int:
        """The descriptor, opened (and the file and its folder made) if no thread has it open."""
        with self._guard:
            if self._fd is None:
                path = self.path
                self._fd = making_folder(path, lambda: os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666))
            self._users += 1
            return self._fd

    def let_go(self) -> None:
        with self._guard:
            self._users -= 1
            if not self._users and self._fd is not None:
                os.close(self._fd)
                self._fd = None


_lock_files: dict[str, _LockFile] = {}
_lock_files_guard = threading.Lock()


def _lock_file(path: Path) -> _LockFile:
    """The one :class:`_LockFile` of this process for ``path`` (every CallCache of a root shares it)."""
    name = os.path.abspath(path)
    with _lock_files_guard:
        found = _lock_files.get(name)
        if found is None:
            found = _lock_files[name] = _LockFile(Path(name))
        return found
