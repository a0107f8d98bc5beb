"""Throughput of API-bound runs: wall time against the ideal, cold and with a warm cache.

Run on demand (not part of the test suite; this machine is shared and noisy):

    .venv/bin/python benchmarks/throughput.py [--cases 200] [--latency 0.3] [--concurrency 16] [--repeats 3]
        [--workers 0,2] [--no-bare] [--same-image] [--size 64x64] [--compare DIR ...]

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
* per variant, the peak resident memory of its largest process (goal < 300 MiB).

The floor: a bare ``openai.AsyncOpenAI`` client (``bare_client.py``, its own
process, one asyncio loop, a semaphore of ``--concurrency``) sends exactly our
traffic to the same server: the generation and judge bodies our first untimed
run sent, with each case's prompt and the image each generation returned, as
our judge sends it. The variants take turns (ours ``-n 0``, ours ``-n 2``, the
bare client) in every repeat, and for each the script prints the CPU
milliseconds per call (CPU seconds of the process and its children / calls the
server saw), wall/ideal and the voluntary+involuntary context switches, and for
ours the ratios ours/bare of both, taken within each repeat. ``--compare DIR``
adds the plugin found in DIR (another commit's ``pytest_visioneval``) to the
same turns, for a before/after on one machine at one time. A quick run:
``--cases 300 --concurrency 64 --repeats 1``.

The harness floor: pytest alone (``--no-harness`` skips it) runs as many trivial
Python tests as there are cases (one parametrized test that asserts a number),
with the same ``-n``, the other installed plugins (this one is not loaded) and the
same probe, in the same turns. It makes no call: its CPU per case and its wall time
are what any pytest run of that many tests pays, whatever the plugin does. The script
prints ours minus the bare client minus that floor, per case (what is left is our
own), and the floor's wall over our cold wall (the least a warm run could take,
against its goal of 0.1). Both floors start an interpreter, so that start (a few
hundredths of a second) is taken away twice; with a few dozen cases the difference
is within the turns' noise and can come out below zero.

The server's image for each case is the same square in a colour of its own
(every output differs, as in a real run, so nothing made once per image is
shared between cases); ``--same-image`` answers every case with one image.

The runs write bytecode caches (``PYTHONDONTWRITEBYTECODE`` is dropped, as on a
user's machine) and one untimed pair of runs comes first, so no timed run
compiles the plugin's modules.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pytest_visioneval.testing import FakeOpenAIServer
from pytest_visioneval.testing.openai_server import RecordedRequest, default_image

JUDGE_REPLY = '{"scores": {"quality": {"reason": "clean shapes, readable", "score": 8}}}'
PROBE_ENV = "VISIONEVAL_BENCH_SESSION_START"
PEAK_ENV = "VISIONEVAL_BENCH_PEAK_RSS"  # a file each measured process appends a line to as it ends (PROCESS_RECORD)
# What each process writes there when pytest unconfigures it: its peak resident memory (VmHWM, KiB: of this
# process alone; a child's ru_maxrss also counts the memory of the parent it was forked from, here the benchmark
# with its server), the CPU seconds it has used so far (user + system) and its part: "main" (the process that
# runs the cases without xdist, or the controller) or the xdist worker's id.
PROCESS_RECORD = f"""
def _visioneval_bench_record():
    import os
    with open("/proc/self/status") as status, open(os.environ["{PEAK_ENV}"], "a") as out:
        peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
        used = os.times()
        out.write(f"{{peak}} {{used.user + used.system:.3f}} {{os.environ.get('PYTEST_XDIST_WORKER', 'main')}}\\n")
"""
# Loaded with -p: notes when pytest's session started (the controller's and every worker's; the earliest
# counts), and each process's record as it ends.
PROBE = f"""
import os, time
{PROCESS_RECORD}
def pytest_sessionstart(session):
    with open(os.environ["{PROBE_ENV}"], "a") as out:
        out.write(f"{{time.monotonic()!r}}\\n")

def pytest_unconfigure(config):
    _visioneval_bench_record()
"""


# The harness floor's test file: as many trivial tests as the suite has cases, and nothing else.
HARNESS_TESTS = """
import pytest

@pytest.mark.parametrize("number", range({cases}))
def test_trivial(number):
    assert number >= 0
"""


def image_of_its_prompt(request: RecordedRequest) -> bytes:
    """The server's image for a generation: the default square, in a colour of the prompt's own (outputs differ)."""
    body = request.json or {}
    red, green, blue = (v // 2 for v in hashlib.sha256(str(body.get("prompt")).encode()).digest()[:3])  # dark on white
    return default_image(body.get("size"), (red, green, blue))


def case_prompt(file: int, case: int) -> str:
    # No colour named: each case's square has a colour of its own, and the image grader checks named colours.
    return f"a square number {case} of file {file}"


def make_suite(root: Path, cases: int, per_file: int = 50, size: str = "64x64") -> list[str]:
    """Write the suite; the prompts of its cases, in order."""
    folder = root / "cases"
    folder.mkdir(parents=True)
    width, height = (int(side) for side in size.split("x"))
    files = -(-cases // per_file)
    prompts: list[str] = []
    for f in range(files):
        count = min(per_file, cases - f * per_file)
        lines = [
            f"suite: t{f:03d}",
            "defaults:",
            "  task: image_generation",
            f"  params: {{size: {size}}}",
            "  graders:",
            "    - use: image",
            f"      options: {{width: {width}, height: {height}}}",
            "    - use: score",
            "      options: {dimensions: {quality: overall visual quality}, scale: 10}",
            "cases:",
        ]
        lines += [f"  - {{id: c{c:03d}, prompt: '{case_prompt(f, c)}'}}" for c in range(count)]
        prompts += [case_prompt(f, c) for c in range(count)]
        (folder / f"t{f:03d}.eval.yaml").write_text("\n".join(lines) + "\n")
    return prompts


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
    switches: int = 0  # context switches (voluntary + involuntary) of those processes
    peak: float = 0.0  # MiB: the peak resident memory of the largest of those processes
    parts: Mapping[str, float] = field(default_factory=dict)  # CPU seconds by process: "main" (-n 0, or the controller), "gw0"...


def run_pytest(
    root: Path, arguments: list[str], workers: int, plugin: str | None = None, extra_env: Mapping[str, str] | None = None
) -> tuple[float, float, int, float, dict[str, float]]:
    """``pytest ARGUMENTS`` in ``root`` with the probe and ``-n workers``; wall, CPU, switches, peak MiB and CPU by part.

    The session's start is noted in ``root/session-start.txt`` (see ``PROBE``). A run that fails stops the benchmark.
    """
    (root / "session-start.txt").unlink(missing_ok=True)
    # ``plugin``, else an outer PYTHONPATH, is kept after the probe's folder: PYTHONPATH=<another checkout> measures that code.
    path = os.pathsep.join(p for p in (str(root), plugin or os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, **(extra_env or {}), PROBE_ENV: str(root / "session-start.txt"), "PYTHONPATH": path}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    command = [sys.executable, "-m", "pytest", *arguments, "-q", "-p", "no:cacheprovider", "-p", "bench_probe"]
    if workers:
        command += ["-n", str(workers)]
    # A temporary folder of its own: an xdist controller asks pytest for one (each worker gets a folder in
    # it), and at the session's end pytest deletes the numbered folders of /tmp/pytest-of-USER beyond the
    # newest three, whatever earlier session left them. After a run of this project's test suite, that
    # once took a -n 2 run 3-9 s between its last answer and its exit.
    command.append(f"--basetemp={root / 'basetemp'}")
    done, wall, cpu, switches, peak, parts = timed(command, root, env)
    if done.returncode != 0:
        raise SystemExit(
            f"pytest {' '.join(arguments)} failed (exit {done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}"
        )
    return wall, cpu, switches, peak, parts


def run(root: Path, server: FakeOpenAIServer, workers: int, concurrency: int, cache: Path, plugin: str | None = None) -> Run:
    server.reset()
    arguments = [
        "cases",
        "--model=openai:bench-image", f"--model-base-url={server.base_url}",
        "--judge=openai:bench-judge", f"--judge-base-url={server.base_url}",
        f"--eval-concurrency={concurrency}", f"--eval-cache-dir={cache}", "--eval-cache=on",
    ]  # fmt: skip
    wall, cpu, switches, peak, parts = run_pytest(root, arguments, workers, plugin, {"OPENAI_API_KEY": "bench-key"})
    marks = root / "session-start.txt"
    ended = time.monotonic()
    started = ended - wall
    session = min(float(line) for line in marks.read_text().split())
    requests = list(server.requests)
    if not requests:
        return Run(wall, 0, session - started, float("nan"), 0.0, 0.0, float("nan"), cpu, switches, peak, parts)
    first = min(r.received for r in requests)
    last = max(r.answered or r.received for r in requests)
    serving = sum((r.answered or r.received) - r.received for r in requests)
    span = last - first
    in_flight = serving / span if span else 0.0
    return Run(
        wall, len(requests), session - started, first - session, span, in_flight, ended - last, cpu, switches, peak, parts
    )  # fmt: skip


def timed(
    command: list[str], cwd: Path, env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], float, float, int, float, dict[str, float]]:
    """Run ``command``; its result, wall seconds, CPU seconds, context switches, peak RSS in MiB and CPU by part.

    CPU and switches of the process and its children together (xdist's workers); the peak is that of
    the largest of them, and the CPU by part ("main", "gw0", ...) what each reported to the file named
    by ``PEAK_ENV`` as pytest unconfigured it (see ``PROCESS_RECORD``; empty where none did).
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.NamedTemporaryFile("r", suffix=".peak") as records:
        started = time.monotonic()
        done = subprocess.run(command, cwd=cwd, env={**env, PEAK_ENV: records.name}, capture_output=True, text=True, check=False)
        wall = time.monotonic() - started
        peak_kib, parts = read_process_records(records.read())
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    switches = (after.ru_nvcsw - before.ru_nvcsw) + (after.ru_nivcsw - before.ru_nivcsw)
    return done, wall, cpu, switches, peak_kib / 1024, parts


def read_process_records(text: str) -> tuple[int, dict[str, float]]:
    """The largest peak (KiB) and each part's CPU seconds in the records of ``PROCESS_RECORD``."""
    peak, parts = 0, {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) not in (1, 3) or not fields[0].isdigit():
            continue  # a record cut short (a process killed while writing it)
        peak = max(peak, int(fields[0]))
        if len(fields) == 3:  # the bare client writes its peak alone
            parts[fields[2]] = float(fields[1])
    return peak, parts


def record_traffic(server: FakeOpenAIServer, prompts: list[str], path: Path) -> None:
    """What our run just sent: one generation body and the judge body that carried its image, for the bare client."""
    bodies = [r for r in server.requests if r.json is not None and r.status == 200]
    generation = next(r.json for r in bodies if r.path.endswith("/images/generations"))
    prompt = generation["prompt"]
    # The judge request of the same case: the one whose text names the generation's prompt.
    judge = next(r.json for r in bodies if r.path.endswith("/chat/completions") and prompt in json.dumps(r.json))
    path.write_text(json.dumps({"generation": generation, "judge": judge, "prompt": prompt, "prompts": prompts}))


def run_bare(root: Path, server: FakeOpenAIServer, concurrency: int, traffic: Path) -> Run:
    """The bare client's turn (see ``bare_client.py``): only wall, calls, CPU and switches are measured."""
    server.reset()
    command = [sys.executable, str(Path(__file__).with_name("bare_client.py")), str(traffic), server.base_url, str(concurrency)]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done, wall, cpu, switches, peak, _ = timed(command, root, env)
    if done.returncode != 0:
        raise SystemExit(f"the bare client failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    nan = float("nan")
    return Run(wall, len(server.requests), nan, nan, nan, nan, nan, cpu, switches, peak)


def run_harness(root: Path, workers: int) -> Run:
    """pytest alone: the trivial tests of ``harness/`` (see ``HARNESS_TESTS``) with ``-n workers``; wall, CPU and parts."""
    wall, cpu, switches, peak, parts = run_pytest(root, ["harness", "-p", "no:visioneval"], workers)
    nan = float("nan")
    return Run(wall, 0, nan, nan, nan, nan, nan, cpu, switches, peak, parts)


def _spread(values: list[float], fmt: str = "{:.2f}") -> str:
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def cpu_by_part(runs: Sequence[Mapping[str, float]]) -> str | None:
    """Where xdist runs' CPU went: the controller's and the workers' seconds, as each process reported them.

    ``None`` for runs without workers (``-n 0``, the bare client).
    """
    workers = [[used for part, used in parts.items() if part != "main"] for parts in runs]
    if not any(workers):
        return None
    return (
        f"CPU by process: controller {_spread([parts.get('main', float('nan')) for parts in runs])} s, "
        f"workers together {_spread([sum(w) for w in workers])} s ({_spread([sum(w) / len(w) for w in workers if w])} s each)"
    )


def warm_against_floor(cold: Sequence[Run], warm: Sequence[Run], floor: Sequence[Run]) -> str:
    """pytest alone's wall over our cold wall (the least a warm run could take) and our warm wall over pytest alone's."""
    least = [f.wall / c.wall for f, c in zip(floor, cold, strict=True)]
    above = [w.wall / f.wall for w, f in zip(warm, floor, strict=True)]
    return (
        f"pytest alone / cold {_spread(least, '{:.3f}')} (the least a warm run could take), warm / pytest alone {_spread(above)}"
    )


def our_own_cpu(ours: Sequence[Run], bare: Sequence[Run], floor: Sequence[Run], cases: int) -> str:
    """What is left of our CPU once the calls (the bare client) and pytest's work for as many tests are taken away.

    Taken within each turn; per case (two calls) and as a share of our CPU.
    """
    left = [r.cpu - b.cpu - f.cpu for r, b, f in zip(ours, bare, floor, strict=True)]
    per_case = [1000 * seconds / cases for seconds in left]
    share = [seconds / r.cpu for seconds, r in zip(left, ours, strict=True)]
    return f"ours - bare client - pytest alone: {_spread(per_case)} ms per case, {_spread(share)} of our CPU"


def harness_line(workers: int, floor: Sequence[Run], bare: Sequence[Run], cases: int) -> str:
    """pytest alone with ``-n workers``: its CPU per test and wall, and with the bare client's CPU, over the bare client's."""
    line = (
        f"pytest alone -n {workers} ({cases} trivial tests): CPU {_spread([1000 * f.cpu / cases for f in floor])} ms per test; "
        f"wall {_spread([f.wall for f in floor])} s"
    )
    if bare:
        least = [(f.cpu + b.cpu) / b.cpu for f, b in zip(floor, bare, strict=True)]
        line += f"; with the bare client's CPU: {_spread(least)} x the bare client's (the least ours/bare could be)"
    if (split := cpu_by_part([f.parts for f in floor])) is not None:
        line += f"; {split}"
    return line


def _ms_per_call(r: Run) -> float:
    return 1000 * r.cpu / r.calls if r.calls else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--workers", default="0,2", help="xdist worker counts to try (0: no xdist)")
    parser.add_argument("--repeats", type=int, default=3, help="turns of every variant (median reported)")
    parser.add_argument("--no-bare", action="store_true", help="skip the bare client (the floor)")
    parser.add_argument("--no-harness", action="store_true", help="skip pytest alone (the harness floor)")
    parser.add_argument("--same-image", action="store_true", help="the server answers every case with one image")
    parser.add_argument("--size", default="64x64", help="the size the cases ask for (WxH; the server's images have it)")
    parser.add_argument(
        "--compare", action="append", default=[], metavar="DIR",
        help="also run the plugin found in DIR (a PYTHONPATH entry, e.g. a `git archive` of another commit) in the same turns",
    )  # fmt: skip
    args = parser.parse_args()
    import openai

    import pytest_visioneval

    calls = 2 * args.cases
    ideal = calls * args.latency / args.concurrency
    worker_counts = [int(w) for w in args.workers.split(",")]
    # (label, -n, PYTHONPATH of the plugin: None is this checkout, or an outer PYTHONPATH)
    variants = [(f"ours -n {w}", w, None) for w in worker_counts]
    variants += [(f"{folder} -n {w}", w, folder) for folder in args.compare for w in worker_counts]
    turns = [f"{label} (cold, then warm)" for label, _, _ in variants] + ([] if args.no_bare else ["bare client"])
    turns += [] if args.no_harness else [f"pytest alone -n {w}" for w in worker_counts]
    print(f"measuring the plugin at {Path(pytest_visioneval.__file__).parent}, openai {openai.__version__}, "
          f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; turns per repeat: {', '.join(turns)}")  # fmt: skip
    print(f"{args.cases} cases x (1 generation + 1 judge call) = {calls} calls, latency {args.latency}s, "
          f"concurrency {args.concurrency}: ideal {ideal:.2f}s; median (min-max) of {args.repeats}; "
          f"{'one image for every case' if args.same_image else 'an image of its own per case'}, {args.size}")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="visioneval-throughput-") as tmp, FakeOpenAIServer(latency=args.latency) as server:
        server.text_reply = JUDGE_REPLY
        if not args.same_image:
            server.image_factory = image_of_its_prompt
        root = Path(tmp)
        prompts = make_suite(root, args.cases, size=args.size)
        (root / "bench_probe.py").write_text(PROBE)
        (root / "harness").mkdir()
        (root / "harness" / "test_harness_floor.py").write_text(HARNESS_TESTS.format(cases=args.cases))
        traffic = root / "traffic.json"
        warm_up = root / "cache-warm-up"
        run(root, server, 0, args.concurrency, warm_up)  # untimed: writes the bytecode caches
        record_traffic(server, prompts, traffic)
        run(root, server, 0, args.concurrency, warm_up)
        for folder in args.compare:
            run(root, server, 0, args.concurrency, root / "cache-warm-up-other", folder)  # its bytecode too
        if not args.no_bare:
            run_bare(root, server, args.concurrency, traffic)  # untimed too
        if not args.no_harness:
            run_harness(root, 0)  # untimed: the test file's bytecode
        cold: dict[str, list[Run]] = {label: [] for label, _, _ in variants}
        warm: dict[str, list[Run]] = {label: [] for label, _, _ in variants}
        bare: list[Run] = []
        harness: dict[int, list[Run]] = {w: [] for w in worker_counts}  # pytest alone's turns, by -n
        for index in range(args.repeats):
            for number, (label, workers, plugin) in enumerate(variants):
                cache = root / f"cache-{number}-{index}"
                cold[label].append(run(root, server, workers, args.concurrency, cache, plugin))
                warm[label].append(run(root, server, workers, args.concurrency, cache, plugin))
            if not args.no_bare:
                bare.append(run_bare(root, server, args.concurrency, traffic))
            if not args.no_harness:
                for w in worker_counts:
                    harness[w].append(run_harness(root, w))
        floors = {label: harness[workers] for label, workers, _ in variants}  # pytest alone with the variant's -n
        for label, _, _ in variants:
            runs = cold[label]
            print(
                f"{label} cold: wall/ideal {_spread([r.wall / ideal for r in runs])} (goal <= 1.15); "
                f"session start {_spread([r.session for r in runs])} s; "
                f"first request {_spread([r.first for r in runs])} s after it (goal <= 0.5); "
                f"span/ideal {_spread([r.span / ideal for r in runs])}; "
                f"in flight {_spread([r.in_flight for r in runs], '{:.1f}')} of {args.concurrency}; "
                f"exit {_spread([r.tail for r in runs])} s after the last answer; "
                f"CPU {_spread([r.cpu for r in runs], '{:.1f}')} s; calls {[r.calls for r in runs]}"
            )
            again = warm[label]
            line = (
                f"{label} warm: wall/cold {_spread([w.wall / c.wall for w, c in zip(again, runs, strict=True)], '{:.3f}')} "
                f"(goal <= 0.1); wall {_spread([w.wall for w in again])} s; "
                f"CPU {_spread([w.cpu for w in again], '{:.1f}')} s; calls {[w.calls for w in again]} (goal 0)"
            )
            floor = floors[label]
            if floor:
                line += "; " + warm_against_floor(runs, again, floor)
            print(line)
        print("per call, cold runs:")
        for label, _, _ in variants:
            runs = cold[label]
            line = (
                f"  {label}: CPU {_spread([_ms_per_call(r) for r in runs], '{:.1f}')} ms per call; "
                f"wall/ideal {_spread([r.wall / ideal for r in runs])}; "
                f"context switches {_spread([float(r.switches) for r in runs], '{:.0f}')}; "
                f"peak RSS {_spread([r.peak for r in runs], '{:.0f}')} MiB (goal < 300)"
            )
            if bare:
                cpu_ratio = [_ms_per_call(r) / _ms_per_call(b) for r, b in zip(runs, bare, strict=True)]
                wall_ratio = [r.wall / b.wall for r, b in zip(runs, bare, strict=True)]
                line += f"; ours/bare: CPU {_spread(cpu_ratio)} (goal <= 1.7), wall/ideal {_spread(wall_ratio)} (goal <= 1.15)"
            print(line)
            if (split := cpu_by_part([r.parts for r in runs])) is not None:
                print(f"    {split}")
            floor = floors[label]
            if bare and floor:
                print(f"    {our_own_cpu(runs, bare, floor, args.cases)}")
        if bare:
            print(
                f"  bare client: CPU {_spread([_ms_per_call(b) for b in bare], '{:.1f}')} ms per call; "
                f"wall/ideal {_spread([b.wall / ideal for b in bare])}; "
                f"context switches {_spread([float(b.switches) for b in bare], '{:.0f}')}; "
                f"peak RSS {_spread([b.peak for b in bare], '{:.0f}')} MiB; calls {[b.calls for b in bare]}"
            )
        for w, floor in harness.items():
            if floor:
                print(f"  {harness_line(w, floor, bare, args.cases)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
