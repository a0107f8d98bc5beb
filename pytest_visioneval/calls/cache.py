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
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..artifacts import making_folder, write_atomic

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


class CallCache:
    def __init__(self, root: Path, mode: str = "on"):
        if mode not in MODES:
            raise ValueError(f"cache mode must be one of {', '.join(MODES)}, not {mode!r}")
        self.root = Path(root)
        self.mode = mode

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
        write_atomic(self.path(kind, key), json.dumps(entry, separators=(",", ":")).encode("utf-8"))

    @contextlib.contextmanager
    def single_flight(self, kind: str, key: str) -> Iterator[None]:
        """Hold the key's lock: a second identical call (any thread or process) waits, then finds the entry."""
        if self.mode == "off":
            yield
            return
        lock = self.path(kind, key).with_suffix(".lock")
        fd = making_folder(lock, lambda: _lock_current(lock))
        try:
            yield
        finally:
            # Removed while still held: a waiter that then gets the lock sees the file gone and
            # starts over on a fresh one, so no two holders ever exist and no lock file stays behind.
            with contextlib.suppress(FileNotFoundError):
                lock.unlink()
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
