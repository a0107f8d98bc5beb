"""Throughput of API-bound runs: wall time against the ideal, cold and with a warm cache.

Run on demand (not part of the test suite; this machine is shared and noisy):

    .venv/bin/python benchmarks/throughput.py [--cases 200] [--latency 0.3] [--concurrency 16] [--repeats 3]

A local OpenAI-compatible server (``pytest_visioneval.testing.FakeOpenAIServer``)
adds a fixed latency to every call. Each case makes one image generation and
one judge call (a ``score`` grader). For each ``-n`` it prints the median (and
min-max) over ``--repeats`` runs of:

* cold: process wall time / ideal, where ideal = calls x latency / concurrency
  (goal <= 1.15); then where the time went: when pytest's session started
  (after the process started), when the first request reached the server
  (goal <= 0.5 s after the session started), the span from the first request
  to the last answer / ideal, the mean number of requests the server was
  serving over that span (the limit is ``--concurrency``), the time from the
  last answer to the process's exit, and the CPU seconds the pytest processes
  used (user + system; a process above one CPU-second per second of wall is
  bound by the interpreter lock, not by the network);
* warm: the same run again on the filled cache: wall / cold wall (goal <= 0.1)
  and the number of calls the server saw (goal: 0);
* at the end, the peak resident memory of the largest pytest process.

The runs write bytecode caches (``PYTHONDONTWRITEBYTECODE`` is dropped, as on a
user's machine) and one untimed pair of runs comes first, so no timed run
compiles the plugin's modules.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from pytest_visioneval.testing import FakeOpenAIServer

JUDGE_REPLY = '{"scores": {"quality": {"reason": "clean shapes, readable", "score": 8}}}'
PROBE_ENV = "VISIONEVAL_BENCH_SESSION_START"
# Loaded with -p: notes when pytest's session started (the controller's and every worker's; the earliest counts).
PROBE = f"""
import os, time

def pytest_sessionstart(session):
    with open(os.environ["{PROBE_ENV}"], "a") as out:
        out.write(f"{{time.monotonic()!r}}\\n")
"""


def make_suite(root: Path, cases: int, per_file: int = 50) -> None:
    folder = root / "cases"
    folder.mkdir(parents=True)
    files = -(-cases // per_file)
    for f in range(files):
        count = min(per_file, cases - f * per_file)
        lines = [
            f"suite: t{f:03d}",
            "defaults:",
            "  task: image_generation",
            "  params: {size: 64x64}",
            "  graders:",
            "    - use: image",
            "      options: {width: 64, height: 64}",
            "    - use: score",
            "      options: {dimensions: {quality: overall visual quality}, scale: 10}",
            "cases:",
        ]
        lines += [f"  - {{id: c{c:03d}, prompt: 'a red square number {c} of file {f}'}}" for c in range(count)]
        (folder / f"t{f:03d}.eval.yaml").write_text("\n".join(lines) + "\n")


@dataclass(frozen=True)
class Run:
    wall: float  # the pytest process, start to exit
    calls: int  # requests the server saw
    session: float  # seconds from the process's start to pytest's start of the session
    first: float  # seconds from pytest's start of the session to the first request reaching the server
    span: float  # first request received -> last answer ready
    in_flight: float  # requests being served, on average over the span
    tail: float  # last answer -> the process's exit
    cpu: float  # CPU seconds (user + system) of the pytest processes


def run(root: Path, server: FakeOpenAIServer, workers: int, concurrency: int, cache: Path) -> Run:
    server.reset()
    marks = root / "session-start.txt"
    marks.unlink(missing_ok=True)
    # An outer PYTHONPATH is kept (after the probe's folder): PYTHONPATH=<another checkout> measures that code.
    path = os.pathsep.join(p for p in (str(root), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "OPENAI_API_KEY": "bench-key", PROBE_ENV: str(marks), "PYTHONPATH": path}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    command = [
        sys.executable, "-m", "pytest", "cases", "-q", "-p", "no:cacheprovider", "-p", "bench_probe",
        "--model=openai:bench-image", f"--model-base-url={server.base_url}",
        "--judge=openai:bench-judge", f"--judge-base-url={server.base_url}",
        f"--eval-concurrency={concurrency}", f"--eval-cache-dir={cache}", "--eval-cache=on",
    ]  # fmt: skip
    if workers:
        command += ["-n", str(workers)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, check=False)
    ended = time.monotonic()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        raise SystemExit(f"the run failed (exit {done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}")
    session = min(float(line) for line in marks.read_text().split())
    requests = list(server.requests)
    if not requests:
        return Run(ended - started, 0, session - started, float("nan"), 0.0, 0.0, float("nan"), cpu)
    first = min(r.received for r in requests)
    last = max(r.answered or r.received for r in requests)
    serving = sum((r.answered or r.received) - r.received for r in requests)
    span = last - first
    in_flight = serving / span if span else 0.0
    return Run(ended - started, len(requests), session - started, first - session, span, in_flight, ended - last, cpu)


def _spread(values: list[float], fmt: str = "{:.2f}") -> str:
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--workers", default="0,2", help="xdist worker counts to try (0: no xdist)")
    parser.add_argument("--repeats", type=int, default=3, help="cold+warm pairs per worker count (median reported)")
    args = parser.parse_args()
    import pytest_visioneval

    print(f"measuring the plugin at {Path(pytest_visioneval.__file__).parent}")
    calls = 2 * args.cases
    ideal = calls * args.latency / args.concurrency
    print(f"{args.cases} cases x (1 generation + 1 judge call) = {calls} calls, latency {args.latency}s, "
          f"concurrency {args.concurrency}: ideal {ideal:.2f}s; median (min-max) of {args.repeats}")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="visioneval-throughput-") as tmp, FakeOpenAIServer(latency=args.latency) as server:
        server.text_reply = JUDGE_REPLY
        root = Path(tmp)
        make_suite(root, args.cases)
        (root / "bench_probe.py").write_text(PROBE)
        warm_up = root / "cache-warm-up"
        run(root, server, 0, args.concurrency, warm_up)  # untimed: writes the bytecode caches
        run(root, server, 0, args.concurrency, warm_up)
        for workers in (int(w) for w in args.workers.split(",")):
            cold: list[Run] = []
            warm: list[Run] = []
            for index in range(args.repeats):
                cache = root / f"cache-n{workers}-{index}"
                cold.append(run(root, server, workers, args.concurrency, cache))
                warm.append(run(root, server, workers, args.concurrency, cache))
            print(
                f"-n {workers} cold: wall/ideal {_spread([r.wall / ideal for r in cold])} (goal <= 1.15); "
                f"session start {_spread([r.session for r in cold])} s; "
                f"first request {_spread([r.first for r in cold])} s after it (goal <= 0.5); "
                f"span/ideal {_spread([r.span / ideal for r in cold])}; "
                f"in flight {_spread([r.in_flight for r in cold], '{:.1f}')} of {args.concurrency}; "
                f"exit {_spread([r.tail for r in cold])} s after the last answer; "
                f"CPU {_spread([r.cpu for r in cold], '{:.1f}')} s; calls {[r.calls for r in cold]}"
            )
            print(
                f"-n {workers} warm: wall/cold {_spread([w.wall / c.wall for w, c in zip(warm, cold, strict=True)], '{:.3f}')} "
                f"(goal <= 0.1); wall {_spread([w.wall for w in warm])} s; "
                f"CPU {_spread([w.cpu for w in warm], '{:.1f}')} s; calls {[w.calls for w in warm]} (goal 0)"
            )
    # ru_maxrss of waited-for children: the largest of them all, in KiB on Linux.
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak RSS of the largest pytest process: {peak:.0f} MiB (goal < 300 at 1000 cases)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
