"""CPU per API call of a case run against a bare async SDK client sending the same requests, in turns.

Run on demand (not part of the test suite; the machine is shared, so compare only figures of one run):

    .venv/bin/python benchmarks/throughput_profile.py [--cases 1000] [--concurrency 64] [--latency 0.3]
        [--turns 3] [--workers 0,2] [--warm]

Each case is one image generation and one judge call that gets the image (a ``score``
grader). The bare client (``AsyncOpenAI``, one event loop, a semaphore of the same
size) makes exactly those two requests per case. Every turn runs the bare client,
then ours with each ``-n``, each in a fresh process, against one local server; per
process it measures the CPU seconds (user + system, from ``getrusage`` of the
children), the context switches (voluntary + involuntary), the wall time and the peak
resident memory of its largest process (as each reports it when it ends). It
prints, per contender, the median (min-max) over the turns of CPU ms per call,
context switches per call and wall / ideal, and the ratio of our CPU per call to the
bare client's in the same turn (the goal of issue 39: <= 1.7).

``--base DIR`` also runs, in each turn, the plugin found in ``DIR`` (put first on
``PYTHONPATH``: another checkout, or a copy of the package before a change) with each
``-n``, listed as ``base -n W``: a before/after comparison within one run.

``--spy DIR`` runs ours once more under ``py-spy record`` (raw, idle threads
included; ``PY_SPY_ACTIVE=1`` leaves them out) per ``-n``, for a profile of the
same workload. ``PY_SPY`` names the py-spy binary.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from throughput import PROCESS_RECORD, cpu_by_part, timed

from pytest_visioneval.testing import FakeOpenAIServer

# Loaded with -p by every pytest process of ours: its peak resident memory and CPU, as it ends (see throughput.py).
PEAK_PROBE = f"""
{PROCESS_RECORD}
def pytest_unconfigure(config):
    _visioneval_bench_record()
"""

JUDGE_REPLY = '{"scores": {"quality": {"reason": "clean shapes, readable", "score": 8}}}'

# The bare client: the same two requests per case as a case run makes, on one loop, a semaphore as the limit.
BARE = r"""
import asyncio, base64, json, os, sys

import openai

base_url, cases, concurrency = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
SCHEMA = {"type": "object", "properties": {"scores": {"type": "object"}}, "required": ["scores"]}


async def case(client, limit, number):
    async with limit:
        image = await client.images.generate(model="bench-image", prompt=f"a red square number {number}", size="64x64")
    url = "data:image/png;base64," + image.data[0].b64_json
    messages = [
        {"role": "system", "content": "Score the image for overall visual quality from 0 to 10."},
        {"role": "user", "content": [{"type": "text", "text": "The output:"}, {"type": "image_url", "image_url": {"url": url}}]},
    ]
    async with limit:
        reply = await client.chat.completions.create(
            model="bench-judge", messages=messages, temperature=0.0,
            response_format={"type": "json_schema", "json_schema": {"name": "score", "schema": SCHEMA, "strict": True}},
        )
    json.loads(reply.choices[0].message.content)


async def main():
    client = openai.AsyncOpenAI(api_key="bench-key", base_url=base_url, max_retries=0)
    limit = asyncio.Semaphore(concurrency)
    await asyncio.gather(*(case(client, limit, n) for n in range(cases)))
    await client.close()
    with open("/proc/self/status") as status, open(os.environ["VISIONEVAL_BENCH_PEAK_RSS"], "a") as out:
        out.write(next(line.split()[1] for line in status if line.startswith("VmHWM:")) + "\n")


asyncio.run(main())
"""


def make_suite(root: Path, cases: int, per_file: int = 50) -> None:
    folder = root / "cases"
    folder.mkdir(parents=True)
    for f in range(-(-cases // per_file)):
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
class Measured:
    wall: float
    cpu: float  # user + system seconds of the process and its children
    switches: int  # voluntary + involuntary context switches
    calls: int  # requests the server saw
    peak: float  # MiB: the peak resident memory of the largest of those processes
    parts: dict[str, float]  # CPU seconds by process: "main" (the controller under xdist), "gw0", ...


def measure(command: list[str], cwd: Path, env: dict[str, str], server: FakeOpenAIServer) -> Measured:
    server.reset()
    done, wall, cpu, switches, peak, parts = timed(command, cwd, env)
    if done.returncode != 0:
        name = " ".join(command[:4])
        raise SystemExit(f"{name} failed (exit {done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}")
    return Measured(wall, cpu, switches, len(server.requests), peak, parts)


def ours(server: FakeOpenAIServer, workers: int, concurrency: int, cache: Path) -> list[str]:
    command = [
        sys.executable, "-m", "pytest", "cases", "-q", "-p", "no:cacheprovider", "-p", "bench_peak",
        "--model=openai:bench-image", f"--model-base-url={server.base_url}",
        "--judge=openai:bench-judge", f"--judge-base-url={server.base_url}",
        f"--eval-concurrency={concurrency}", f"--eval-cache-dir={cache}", "--eval-cache=on",
    ]  # fmt: skip
    # A temporary folder of its own, next to its cache (why: throughput.py's run()).
    command.append(f"--basetemp={cache.parent / 'basetemp'}")
    return command + (["-n", str(workers)] if workers else [])


def _spread(values: list[float], fmt: str) -> str:
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--workers", default="0,2", help="xdist worker counts (0: no xdist)")
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--warm", action="store_true", help="also re-run each cold run on its filled cache")
    parser.add_argument("--base", type=Path, default=None, help="also measure the plugin in this folder (before/after)")
    parser.add_argument("--spy", type=Path, default=None, help="after the turns, profile ours once per -n into this folder")
    args = parser.parse_args()
    calls = 2 * args.cases
    ideal = calls * args.latency / args.concurrency
    workers = [int(w) for w in args.workers.split(",")]
    print(f"{args.cases} cases, {calls} calls, latency {args.latency}s, concurrency {args.concurrency}: ideal {ideal:.2f}s")
    results: dict[str, list[Measured]] = {}
    warm: dict[str, list[Measured]] = {}
    with tempfile.TemporaryDirectory(prefix="visioneval-cpu-") as tmp, FakeOpenAIServer(latency=args.latency) as server:
        server.text_reply = JUDGE_REPLY
        root = Path(tmp)
        make_suite(root, args.cases)
        (root / "bare.py").write_text(BARE)
        (root / "bench_peak.py").write_text(PEAK_PROBE)
        env = {**os.environ, "OPENAI_API_KEY": "bench-key"}
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(root), env.get("PYTHONPATH", "")) if p)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        bare = [sys.executable, "bare.py", server.base_url, str(args.cases), str(args.concurrency)]
        measure(ours(server, 0, args.concurrency, root / "untimed"), root, env, server)  # bytecode caches
        based = {**env, "PYTHONPATH": os.pathsep.join(p for p in (str(args.base), env["PYTHONPATH"]) if p)}
        for turn in range(args.turns):
            results.setdefault("bare", []).append(measure(bare, root, env, server))
            for w in workers:
                if args.base is not None:
                    command = ours(server, w, args.concurrency, root / f"cache-base-{turn}-n{w}")
                    results.setdefault(f"base -n {w}", []).append(measure(command, root, based, server))
                cache = root / f"cache-{turn}-n{w}"
                results.setdefault(f"-n {w}", []).append(measure(ours(server, w, args.concurrency, cache), root, env, server))
                if args.warm:
                    warm.setdefault(f"-n {w}", []).append(measure(ours(server, w, args.concurrency, cache), root, env, server))
        if args.spy is not None:
            args.spy.mkdir(parents=True, exist_ok=True)
            spy = os.environ.get("PY_SPY", "py-spy")
            for w in workers:
                out = args.spy / f"ours-n{w}.txt"
                idle = [] if os.environ.get("PY_SPY_ACTIVE") else ["--idle"]
                record = [spy, "record", *idle, "--threads", "--subprocesses", "--format", "raw", "-o", str(out), "--"]
                measure(record + ours(server, w, args.concurrency, root / f"cache-spy-n{w}"), root, env, server)
                print(f"profile of -n {w}: {out}")
    bare_cpu = [m.cpu / calls * 1000 for m in results["bare"]]
    for name, runs in results.items():
        cpu = [m.cpu / calls * 1000 for m in runs]
        ratio = [c / b for c, b in zip(cpu, bare_cpu, strict=True)]
        print(
            f"{name:>10}: CPU {_spread(cpu, '{:.2f}')} ms/call ({_spread(ratio, '{:.2f}')} x bare, goal <= 1.7); "
            f"switches {_spread([m.switches / calls for m in runs], '{:.1f}')}/call; "
            f"wall/ideal {_spread([m.wall / ideal for m in runs], '{:.2f}')}; "
            f"peak RSS {_spread([m.peak for m in runs], '{:.0f}')} MiB; calls {[m.calls for m in runs]}"
        )
        if (split := cpu_by_part([m.parts for m in runs])) is not None:
            print(f"{'':>10}  {split}")
    for name, runs in warm.items():
        cold = results[name]
        print(
            f"{name:>10} warm: wall/cold {_spread([w.wall / c.wall for w, c in zip(runs, cold, strict=True)], '{:.3f}')}; "
            f"calls {[m.calls for m in runs]}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
