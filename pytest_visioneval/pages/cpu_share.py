"""A renderer that keeps the CPU busy gives way to its neighbours.

Pages render side by side, each in its own renderer process. A page that
spins (``while (true) {}``) or builds a huge DOM would otherwise take its
share of the machine's cores until its own time budget ends. A renderer that
has used more than :data:`BUSY_CPU_S` of CPU time - normal pages use
0.05-0.13 s for their whole render (the shipped web and productwebgen pages)
- gets nice 19, every thread of it (Linux schedules threads, and the page's
script runs on one of them). It still runs, and its result still counts.
``SCHED_IDLE`` (a lower class than any nice level) is the other policy the
benchmark compares; it measured no better (medians 1.08-1.27 s against 0.71 s
for nice 19 beside three hostile pages) and would starve a legitimately heavy
page on a busy machine, so nice 19 stays the default.

What this buys was measured (``benchmarks/hostile_neighbours.py``,
docs/rendering.md): on a loaded 2-core machine, nothing that could be told
from the noise - the time a normal page loses beside hostile ones is not the
busy renderers' CPU. Swept from the memory watch's thread
(:mod:`memory_watch`). Linux only; a process that cannot be changed is left
as it is.
"""

from __future__ import annotations

import contextlib
import os

from .process_tree import PROC, read_proc

BUSY_CPU_S = 0.5
LOWEST_PRIORITY = 19
POLICIES = ("idle", "nice", "none")  # what is done to a busy renderer; "none" only finds it (benchmarks compare)
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


def threads_of(pid: int) -> list[int]:
    """The thread ids of ``pid`` (just ``pid`` when they cannot be listed)."""
    try:
        return [int(name) for name in os.listdir(PROC / str(pid) / "task")]
    except (OSError, ValueError):
        return [pid]


def lower_priority(pid: int, nice: int = LOWEST_PRIORITY) -> int:
    """Set every thread of ``pid`` to ``nice``; returns how many threads were changed."""
    changed = 0
    for tid in threads_of(pid):
        with contextlib.suppress(OSError):  # gone meanwhile, or not ours
            os.setpriority(os.PRIO_PROCESS, tid, nice)
            changed += 1
    return changed


def schedule_idle(pid: int) -> int:
    """Put every thread of ``pid`` in ``SCHED_IDLE`` (nice 19 for a thread refused that); returns how many changed."""
    changed = 0
    for tid in threads_of(pid):
        try:
            os.sched_setscheduler(tid, os.SCHED_IDLE, os.sched_param(0))
        except (OSError, AttributeError):  # refused, gone, or no SCHED_IDLE on this system
            with contextlib.suppress(OSError):
                os.setpriority(os.PRIO_PROCESS, tid, LOWEST_PRIORITY)
                changed += 1
            continue
        changed += 1
    return changed


class BusyRenderers:
    """Demotes, once, each renderer past ``busy_cpu_s`` of CPU time (``policy``: one of :data:`POLICIES`)."""

    def __init__(self, busy_cpu_s: float = BUSY_CPU_S, policy: str = "nice"):
        if policy not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}, not {policy!r}")
        self.busy_cpu_s = busy_cpu_s
        self.policy = policy
        self.lowered: set[int] = set()  # renderers found busy and demoted (gone ones are forgotten)

    def sweep(self, pids: list[int]) -> None:
        self.lowered &= set(pids)  # a pid reused by a new renderer starts at normal priority
        for pid in pids:
            if pid in self.lowered:
                continue
            used = cpu_seconds(pid)
            if used is not None and used > self.busy_cpu_s and self._demote(pid):
                self.lowered.add(pid)

    def _demote(self, pid: int) -> int:
        if self.policy == "idle":
            return schedule_idle(pid)
        if self.policy == "nice":
            return lower_priority(pid)
        return 1  # "none": found, left as it is
