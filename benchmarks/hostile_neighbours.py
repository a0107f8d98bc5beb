"""How long a normal page takes beside three hostile ones, and where the CPU goes meanwhile.

Run on demand (the machine is shared and noisy, so this is not a test):

    .venv/bin/python benchmarks/hostile_neighbours.py [--turns 5]

Each turn renders the normal page alone, then again beside a busy loop, a
200,000-node DOM and a navigation loop (4 pages in flight, as
``tests/unit/pages/test_neighbours.py`` does). Printed: the normal page's
median time alone and beside them, and the CPU seconds each kind of process
used during the turns beside them (read from ``/proc`` before and after): the
renderers, Chromium's browser and GPU processes, playwright's driver and this
Python process (its event loop and the memory watch).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pytest_visioneval.pages.cpu_share import BUSY_CPU_S, cpu_seconds
from pytest_visioneval.pages.process_tree import command_line, descendants
from pytest_visioneval.pages.render import Renderer, RenderError, RenderOptions
from pytest_visioneval.testing.hostile_pages import HOSTILE, NORMAL

OPTIONS = RenderOptions(width=800, height=600, timeout_ms=5000)


def kind_of(pid: int) -> str:
    line = (command_line(pid) or b"").replace(b"\0", b" ")
    for switch in (b"renderer", b"gpu-process", b"utility", b"zygote"):
        if b"--type=" + switch in line:
            return switch.decode()
    if b"node" in line.split(b" ")[0] or b"run-driver" in line:
        return "driver"
    return "browser" if b"chrom" in line else "other"


def cpu_by_kind(totals: Counter[str], seen: dict[int, float], demoted: set[int]) -> None:
    """Add to ``totals`` the CPU each process below us used since last seen (``seen``: pid -> CPU then).

    ``demoted``: the renderers found busy (their CPU is counted apart from the other renderers').
    """
    for pid in [os.getpid(), *descendants(os.getpid())]:
        used = cpu_seconds(pid)
        if used is None:
            continue
        kind = "python" if pid == os.getpid() else kind_of(pid)
        if kind == "renderer" and pid in demoted:
            kind = "busy renderers"
        totals[kind] += used - seen.get(pid, 0.0)
        seen[pid] = used


def render(renderer: Renderer, folder: Path, html: str) -> tuple[float, str]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "page.html").write_text(html)
    started = time.monotonic()
    try:
        result = renderer.render(folder, "page.html", OPTIONS)
    except RenderError as exc:
        return time.monotonic() - started, f"error: {str(exc)[:90]}"
    return time.monotonic() - started, "ok" if "Quarterly report" in result.dom else "rendered"


def variant(text: str) -> tuple[str, float]:
    """``idle``, ``nice``, ``none`` or ``idle:0.2``: what is done to a busy renderer, and past how much CPU."""
    policy, _, threshold = text.partition(":")
    return policy, float(threshold) if threshold else BUSY_CPU_S


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument(
        "--demote",
        nargs="+",
        default=["idle"],
        help="what is done to a busy renderer (idle, nice, none; ':SECONDS' sets the CPU past which it is busy); "
        "several are taken in turns, so the machine's drift falls on each alike",
    )
    parser.add_argument("--only", choices=list(HOSTILE), nargs="+", default=list(HOSTILE), help="the hostile pages beside it")
    args = parser.parse_args()
    hostile_pages = {name: HOSTILE[name] for name in args.only}
    alone: list[float] = []
    beside: dict[str, list[float]] = {name: [] for name in args.demote}
    outcomes: dict[str, list[str]] = {name: [] for name in args.demote}
    totals: dict[str, Counter[str]] = {name: Counter() for name in args.demote}
    renderer = Renderer()
    busy = renderer.busy
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        render(renderer, folder / "warm", NORMAL)  # the browser is started before the clock runs
        for turn in range(args.turns):
            alone.append(render(renderer, folder / f"alone{turn}", NORMAL)[0])
            line = [f"turn {turn + 1}: alone {alone[-1]:.2f} s"]
            for name in args.demote:
                busy.policy, busy.busy_cpu_s = variant(name)
                seen: dict[int, float] = {}
                cpu_by_kind(Counter(), seen, set())  # the CPU used so far is not this turn's
                with ThreadPoolExecutor(len(hostile_pages) + 1) as pool:
                    hostile = [
                        pool.submit(render, renderer, folder / f"h{turn}-{name}-{i}", html)
                        for i, html in enumerate(hostile_pages.values())
                    ]
                    time.sleep(0.2)  # the hostile pages are already at work
                    seconds, outcome = pool.submit(render, renderer, folder / f"normal{turn}-{name}", NORMAL).result()
                    cpu_by_kind(totals[name], seen, set(busy.lowered))  # while the normal page rendered
                    for future in hostile:
                        future.result()
                beside[name].append(seconds)
                outcomes[name].append(outcome)
                line.append(f"beside them ({name}) {seconds:.2f} s ({outcome})")
            print(", ".join(line))
    renderer.close()
    print(f"normal page alone: median {statistics.median(alone):.2f} s ({min(alone):.2f}-{max(alone):.2f})")
    for name, times in beside.items():
        print(
            f"beside {len(hostile_pages)} hostile, busy renderers {name}: median {statistics.median(times):.2f} s "
            f"({min(times):.2f}-{max(times):.2f}); {Counter(outcomes[name])}"
        )
        print("  CPU seconds while the normal page rendered: " + ", ".join(f"{k} {v:.1f}" for k, v in totals[name].most_common()))


if __name__ == "__main__":
    main()
