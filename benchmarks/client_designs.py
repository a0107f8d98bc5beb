"""CPU per API call of four ways to drive the SDK at high concurrency, with nothing of ours around them.

Run on demand (not part of the test suite; the machine is shared, so compare only figures of one run):

    .venv/bin/python benchmarks/client_designs.py [--cases 1000] [--concurrency 64] [--latency 0.3] [--turns 3]

Every design sends the same two requests per case as ``throughput_profile.py``'s bare client (an image
generation, then a judge chat completion that gets the image as a data URL) to one local server, each
in a fresh process, in turns. What differs is only how the requests are driven:

* ``async``: ``AsyncOpenAI`` on one event loop, a semaphore of ``--concurrency`` (the floor the
  throughput benchmarks compare with);
* ``threads``: the SDK's sync client, one thread per case in flight (``--concurrency`` threads plus 16
  spares, as the plugin's evaluation pool), a thread semaphore as the limit;
* ``threads+slots``: the same threads, with the plugin's HTTP transport (``calls/slot_transport.py``:
  the run-wide slot taken on the wire, one connection pool per slot);
* ``threads->loop``: the same threads hand each request to one event loop thread that sends it with
  ``AsyncOpenAI`` and wait for the reply (an asyncio engine under a synchronous pipeline).

It answers one question before anyone rewrites the engine: is the thread-per-request design, rather
than the work done per case, what costs the CPU? It prints per design the median (min-max) of CPU ms
per call (user + system of the process), context switches per call and wall / ideal, and each
design's CPU relative to ``async`` in the same turn.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytest_visioneval.testing import FakeOpenAIServer

DESIGNS = ("async", "threads", "threads+slots", "threads->loop")
JUDGE_REPLY = '{"scores": {"quality": {"reason": "clean shapes, readable", "score": 8}}}'
SCHEMA = {"type": "object", "properties": {"scores": {"type": "object"}}, "required": ["scores"]}
SPARE_THREADS = 16


def judge_request(b64: str) -> dict[str, object]:
    messages = [
        {"role": "system", "content": "Score the image for overall visual quality from 0 to 10."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "The output:"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64," + b64}},
            ],
        },
    ]
    return {
        "model": "bench-judge",
        "messages": messages,
        "temperature": 0.0,
        "response_format": {"type": "json_schema", "json_schema": {"name": "score", "schema": SCHEMA, "strict": True}},
    }


def generation_request(number: int) -> dict[str, object]:
    return {"model": "bench-image", "prompt": f"a red square number {number}", "size": "64x64"}


def run_async(base_url: str, cases: int, concurrency: int) -> None:
    import asyncio

    import openai

    async def main() -> None:
        client = openai.AsyncOpenAI(api_key="bench-key", base_url=base_url, max_retries=0)
        limit = asyncio.Semaphore(concurrency)

        async def case(number: int) -> None:
            async with limit:
                image = await client.images.generate(**generation_request(number))  # type: ignore[call-overload]
            async with limit:
                reply = await client.chat.completions.create(**judge_request(image.data[0].b64_json))  # type: ignore[call-overload]
            json.loads(reply.choices[0].message.content)

        await asyncio.gather(*(case(n) for n in range(cases)))
        await client.close()

    asyncio.run(main())


def _in_threads(cases: int, concurrency: int, client: Any, call: Callable[[Callable[[], Any]], Any]) -> None:
    """Each case on a pool thread: its generation, then its judge call, each sent through ``call``."""
    from concurrent.futures import ThreadPoolExecutor

    def case(number: int) -> None:
        image = call(lambda: client.images.generate(**generation_request(number)))
        b64 = image.data[0].b64_json
        reply = call(lambda: client.chat.completions.create(**judge_request(b64)))
        json.loads(reply.choices[0].message.content)

    with ThreadPoolExecutor(concurrency + SPARE_THREADS) as pool:
        list(pool.map(case, range(cases)))


def run_threads(base_url: str, cases: int, concurrency: int, slots: bool) -> None:
    import threading

    import httpx2
    import openai

    if slots:
        from pytest_visioneval.calls.concurrency import RunConcurrency
        from pytest_visioneval.calls.slot_transport import client_with_slots

        http_client = client_with_slots(RunConcurrency(concurrency, None), 60.0)
        limit = None
    else:
        pool = httpx2.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
        http_client = openai.DefaultHttpxClient(limits=pool)
        limit = threading.BoundedSemaphore(concurrency)
    client = openai.OpenAI(api_key="bench-key", base_url=base_url, max_retries=0, http_client=http_client)

    def call(send: object) -> object:
        if limit is None:
            return send()  # type: ignore[operator]
        with limit:
            return send()  # type: ignore[operator]

    _in_threads(cases, concurrency, client, call)


def run_threads_to_loop(base_url: str, cases: int, concurrency: int) -> None:
    import asyncio
    import threading

    import openai

    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    client = openai.AsyncOpenAI(api_key="bench-key", base_url=base_url, max_retries=0)

    async def make_limit() -> asyncio.Semaphore:
        return asyncio.Semaphore(concurrency)

    limit = asyncio.run_coroutine_threadsafe(make_limit(), loop).result()

    async def limited(send: object) -> object:
        async with limit:
            return await send()  # type: ignore[operator]

    def call(send: object) -> object:
        return asyncio.run_coroutine_threadsafe(limited(send), loop).result()

    _in_threads(cases, concurrency, client, call)


def child(design: str, base_url: str, cases: int, concurrency: int) -> None:
    if design == "async":
        run_async(base_url, cases, concurrency)
    elif design in ("threads", "threads+slots"):
        run_threads(base_url, cases, concurrency, slots=design == "threads+slots")
    elif design == "threads->loop":
        run_threads_to_loop(base_url, cases, concurrency)
    else:
        raise SystemExit(f"unknown design {design!r}; one of {', '.join(DESIGNS)}")


def _spread(values: list[float], fmt: str) -> str:
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--designs", default=",".join(DESIGNS))
    args = parser.parse_args()
    designs = args.designs.split(",")
    calls = 2 * args.cases
    ideal = calls * args.latency / args.concurrency
    print(f"{args.cases} cases, {calls} calls, latency {args.latency}s, concurrency {args.concurrency}: ideal {ideal:.2f}s")
    cpu: dict[str, list[float]] = {d: [] for d in designs}
    switches: dict[str, list[float]] = {d: [] for d in designs}
    walls: dict[str, list[float]] = {d: [] for d in designs}
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(root), os.environ.get("PYTHONPATH", "")) if p)}
    with FakeOpenAIServer(latency=args.latency) as server:
        server.text_reply = JUDGE_REPLY
        for _ in range(args.turns):
            for design in designs:
                server.reset()
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                started = time.monotonic()
                command = [sys.executable, __file__, "--child", design, server.base_url, str(args.cases), str(args.concurrency)]
                done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
                wall = time.monotonic() - started
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                if done.returncode != 0 or len(server.requests) != calls:
                    seen = len(server.requests)
                    raise SystemExit(f"{design} failed (exit {done.returncode}, {seen} calls):\n{done.stderr[-2000:]}")
                cpu[design].append(((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) / calls * 1000)
                switches[design].append(((after.ru_nvcsw - before.ru_nvcsw) + (after.ru_nivcsw - before.ru_nivcsw)) / calls)
                walls[design].append(wall / ideal)
    base = cpu.get("async")
    for design in designs:
        ratio = "" if base is None else f" ({_spread([c / b for c, b in zip(cpu[design], base, strict=True)], '{:.2f}')} x async)"
        print(
            f"{design:>14}: CPU {_spread(cpu[design], '{:.2f}')} ms/call{ratio}; "
            f"switches {_spread(switches[design], '{:.1f}')}/call; wall/ideal {_spread(walls[design], '{:.2f}')}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
