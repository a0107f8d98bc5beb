"""A renderer that keeps the CPU busy gives way to its neighbours.

Pages render side by side, each in its own renderer process. A page that
spins (``while (true) {}``), builds a huge DOM or navigates in a loop would
otherwise take its share of the machine's cores until its own time budget
ends, and a normal page beside it renders several times slower (on 2 cores,
0.7 s became 4-6 s). A renderer that has used more than :data:`BUSY_CPU_S` of
CPU time - far more than a normal page needs - is set to the lowest
scheduling priority (nice 19), every thread of it (Linux schedules threads,
and the page's script runs on one of them). It still runs, and its result
still counts, but only on time the other pages leave. Swept from the memory
watch's thread (:mod:`memory_watch`). Linux only; a process that cannot be
reniced is left as it is.
"""

from __future__ import annotations

import contextlib
import os

from .process_tree import PROC, read_proc

BUSY_CPU_S = 0.5
LOWEST_PRIORITY = 19
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_seconds(pid: int) -> float | None:
    """User plus system CPU time of a process (all its threads), from ``/proc/PID/stat``."""
    stat = read_proc(pid, "stat", 1024)
    if stat is None:
        return None
    try:
        fields = stat[stat.rindex(b")") + 2 :].split()  # after "pid (name) ": the name may hold spaces
        return (int(fields[11]) + int(fields[12])) / _TICKS  # utime, stime: fields 14 and 15 of stat
    except (ValueError, IndexError):
        return None


def lower_priority(pid: int, nice: int = LOWEST_PRIORITY) -> int:
    """Set every thread of ``pid`` to ``nice``; returns how many threads were changed."""
    changed = 0
    try:
        threads = [int(name) for name in os.listdir(PROC / str(pid) / "task")]
    except (OSError, ValueError):
        threads = [pid]
    for tid in threads:
        with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
            os.setpriority(os.PRIO_PROCESS, tid, nice)
            changed += 1
    return changed


class BusyRenderers:
    """Lowers, once, the priority of each renderer past ``busy_cpu_s`` of CPU time."""

    def __init__(self, busy_cpu_s: float = BUSY_CPU_S):
        self.busy_cpu_s = busy_cpu_s
        self.lowered: set[int] = set()  # renderers set to the lowest priority (gone ones are forgotten)

    def sweep(self, pids: list[int]) -> None:
        self.lowered &= set(pids)  # a pid reused by a new renderer starts at normal priority
        for pid in pids:
            if pid in self.lowered:
                continue
            used = cpu_seconds(pid)
            if used is not None and used > self.busy_cpu_s and lower_priority(pid):
                self.lowered.add(pid)
