"""The processes below this one, read from ``/proc`` (Linux; elsewhere none are found).

Playwright's driver starts Chromium as our descendant, so the memory watch
finds the renderers here, and a browser that stopped answering is found and
killed here by a tag on its command line.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path

PROC = Path("/proc")


def read_proc(pid: int, name: str, size: int = 65536) -> bytes | None:
    """``/proc/PID/NAME``, or None when the process is gone.

    Plain ``os`` calls: the memory watch reads every process's ``stat`` ten times a second, and
    ``pathlib``'s file objects cost three times as much CPU as the reads themselves.
    """
    try:
        fd = os.open(f"/proc/{pid}/{name}", os.O_RDONLY)
    except OSError:
        return None
    try:
        return os.read(fd, size)
    except OSError:
        return None
    finally:
        os.close(fd)


def _children_by_parent() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    if not PROC.is_dir():
        return children
    for name in os.listdir(PROC):
        if not name.isdigit():
            continue
        stat = read_proc(int(name), "stat", 1024)
        if stat is None:
            continue  # gone meanwhile
        # The command name is in parentheses and may hold spaces: the fields start after the last ")".
        fields = stat.rpartition(b")")[2].split()
        if len(fields) > 1 and fields[1].isdigit():
            children.setdefault(int(fields[1]), []).append(int(name))
    return children


def descendants(root: int, children: dict[int, list[int]] | None = None) -> Iterator[int]:
    """Every process below ``root``, parents before their children (``children``: a tree already read)."""
    children = _children_by_parent() if children is None else children
    stack = list(children.get(root, ()))
    while stack:
        pid = stack.pop()
        yield pid
        stack.extend(children.get(pid, ()))


def command_line(pid: int) -> bytes | None:
    """The NUL-separated command line, or None when the process is gone."""
    return read_proc(pid, "cmdline")


def kill_tagged(root: int, tag: str) -> int:
    """SIGKILL the topmost processes below ``root`` whose command line holds ``tag``, and all below them.

    Returns how many processes were signalled. Children go too: a browser's
    renderers would otherwise outlive it.
    """
    needle = tag.encode()
    tree = _children_by_parent()  # read once: the walks below are over the same processes
    # Split at spaces too: Chromium rewrites its child processes' titles into one space-separated string.
    found = [pid for pid in descendants(root, tree) if needle in (command_line(pid) or b"").replace(b"\0", b" ").split()]
    doomed: set[int] = set()
    for pid in found:
        if pid not in doomed:
            doomed.add(pid)
            doomed.update(descendants(pid, tree))
    for pid in doomed:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    return len(doomed)
