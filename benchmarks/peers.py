"""The peers on the throughput workload: promptfoo and DeepEval beside the bare SDK client, in turns.

Run on demand (not part of the test suite or CI; this machine is shared and noisy):

    .venv/bin/python benchmarks/peers.py [--cases 200] [--latency 0.3] [--concurrency 16] [--repeats 3]
        [--size 64x64] [--promptfoo PATH] [--deepeval-python PATH] [--deepeval-metric geval|text-to-image]
        [--deepeval-write-cache] [--ours]

The peers live outside the repository, never among the project's dependencies; one that is
not installed is skipped with a line saying how to install it:

    npm install --prefix /tmp/peers/promptfoo promptfoo
    python3 -m venv /tmp/peers/deepeval && /tmp/peers/deepeval/bin/pip install deepeval openai

(``--promptfoo`` defaults to /tmp/peers/promptfoo/node_modules/.bin/promptfoo, ``--deepeval-python``
to /tmp/peers/deepeval/bin/python.)

The workload is throughput.py's: N cases, each one image generation (the model under test) and
one judge call that is given the image, against one local OpenAI-compatible server
(``FakeOpenAIServer``: a fixed latency per call, an image of its own per case). Each tool runs it
the way its users would write it:

* promptfoo: ``promptfoo eval -j C --no-table --no-progress-bar --no-share`` on a generated config:
  N tests, the ``openai:image`` provider at the server (asking for base64, which the server
  sends), and an ``llm-rubric`` assertion graded by an ``openai:chat`` model at the server, to
  which promptfoo attaches the generated image. Its defaults otherwise: the disk cache is on (an
  empty one per run, so every call reaches the server and is written to the cache) and the eval
  is saved to its local database (one for the whole benchmark, made by an untimed first run).
* DeepEval: one Python process generates the N images with the openai SDK (our generation
  request, C at a time), then ``evaluate()`` scores them with ``AsyncConfig(max_concurrent=C)``:
  by default a ``GEval`` metric given its evaluation steps (so it makes no call to write them:
  one judge call per case, carrying the image); ``--deepeval-metric text-to-image`` takes
  DeepEval's own ``TextToImageMetric`` (two judge calls per case). Its cache is not written
  (``CacheConfig(write_cache=False)``): by default ``evaluate()`` rewrites and syncs its cache and
  test-run files after every test case, a cost that grows with the square of N (at 200 cases, c16,
  it added 40% to DeepEval's CPU and half to its wall time); ``--deepeval-write-cache`` measures
  that default. Each run has a working folder of its own (DeepEval writes its ``.deepeval`` there).
* the bare client (``bare_client.py``, as in throughput.py) sends exactly our traffic, recorded
  from one untimed run of ours; ``--ours`` also times ours (``-n 0``, cold) in every turn.

Nothing may leave the machine: telemetry and update checks are off (``PROMPTFOO_DISABLE_TELEMETRY``,
``PROMPTFOO_DISABLE_UPDATE``, ``DEEPEVAL_TELEMETRY_OPT_OUT``, DeepEval reads no dotenv file), and
promptfoo, which still posts a "telemetry disabled" event, runs behind a proxy that is a closed
local port (``NO_PROXY`` keeps the server direct), so that post fails at once, whatever DNS does.
promptfoo keeps its database and logs in the temporary folder (``PROMPTFOO_CONFIG_DIR``).

Every tool has one untimed run first (10 cases; the bare client all of them). For each it prints
the median (min-max) over ``--repeats`` of: wall / ideal (ideal = 2N x latency / C, the workload's
calls), the calls the server saw, the requests in flight (the mean from the first request to the
last answer, and the most at once), the CPU seconds of the tool's processes (user + system of the
children, as throughput.py's ``timed()``), the CPU milliseconds per call the server saw, and that
over the bare client's in the same turn. Before them, how each tool's traffic in the first turn
differs from ours (calls per path, fields of the requests, judge calls that carry the image).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from throughput import JUDGE_REPLY, PROBE, image_of_its_prompt, make_suite, record_traffic, run, run_bare, timed

from pytest_visioneval.testing import FakeOpenAIServer
from pytest_visioneval.testing.openai_server import RecordedRequest

PROMPTFOO = "/tmp/peers/promptfoo/node_modules/.bin/promptfoo"
DEEPEVAL_PYTHON = "/tmp/peers/deepeval/bin/python"
INSTALL = {
    "promptfoo": "npm install --prefix /tmp/peers/promptfoo promptfoo",
    "DeepEval": "python3 -m venv /tmp/peers/deepeval && /tmp/peers/deepeval/bin/pip install deepeval openai",
}
# What each judge expects back (the server answers every chat call of a turn with it).
PROMPTFOO_REPLY = '{"reason": "clean shapes, readable", "pass": true, "score": 0.8}'
DEEPEVAL_REPLIES = {
    "geval": '{"reason": "clean shapes, readable", "score": 8}',
    "text-to-image": '{"reasoning": "clean shapes, readable", "score": [8, 8]}',
}
DATA_URL = re.compile(r"data:image/png;base64,([A-Za-z0-9+/=]+)")
CLOSED_PROXY = "http://127.0.0.1:9"  # the discard port: nothing listens, so a request that would leave fails at once
PROMPTFOO_QUIET = {
    "PROMPTFOO_DISABLE_TELEMETRY": "1", "PROMPTFOO_DISABLE_UPDATE": "1", "PROMPTFOO_DISABLE_REMOTE_GENERATION": "true",
    "HTTPS_PROXY": CLOSED_PROXY, "HTTP_PROXY": CLOSED_PROXY, "https_proxy": CLOSED_PROXY, "http_proxy": CLOSED_PROXY,
    "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
}  # fmt: skip
# No proxy for DeepEval: traced, it sent nothing off the machine, and a proxy setting more than doubled its CPU
# (it makes a TLS context for every judge call, and a proxy adds more).
DEEPEVAL_QUIET = {"DEEPEVAL_TELEMETRY_OPT_OUT": "1", "DEEPEVAL_DISABLE_DOTENV": "1"}

# DeepEval's side, run by the DeepEval virtual environment's Python:
#   deepeval_run.py TRAFFIC.json BASE_URL CONCURRENCY METRIC WRITE_CACHE(0/1) COUNT
DEEPEVAL_RUN = r"""
import asyncio, json, sys

from deepeval import evaluate
from deepeval.evaluate import AsyncConfig, CacheConfig
from deepeval.metrics import GEval, TextToImageMetric
from deepeval.models import OpenAIModel
from deepeval.test_case import LLMTestCase, MLLMImage, SingleTurnParams
from openai import AsyncOpenAI

traffic, base_url, concurrency, metric_name = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
write_cache, count = sys.argv[5] == "1", int(sys.argv[6])
recorded = json.loads(open(traffic).read())
prompts = recorded["prompts"][:count]


async def generate():
    client = AsyncOpenAI(base_url=base_url, api_key="bench-key", max_retries=0)
    slots = asyncio.Semaphore(concurrency)

    async def one(prompt):
        async with slots:
            images = await client.images.generate(**{**recorded["generation"], "prompt": prompt})
        return images.data[0].b64_json

    images = await asyncio.gather(*(one(p) for p in prompts))
    await client.close()
    return images


images = asyncio.run(generate())
cases = [
    LLMTestCase(input=p, actual_output=f"{MLLMImage(dataBase64=b, mimeType='image/png')}") for p, b in zip(prompts, images)
]
# DeepEval takes only the OpenAI model names it knows to see images; the server ignores the name.
judge = OpenAIModel(model="gpt-4.1", base_url=base_url, api_key="bench-key")
if metric_name == "geval":
    steps = ["Score the overall visual quality of the image in the actual output."]
    params = [SingleTurnParams.INPUT, SingleTurnParams.ACTUAL_OUTPUT]
    metric = GEval(name="quality", evaluation_steps=steps, evaluation_params=params, model=judge)
else:
    metric = TextToImageMetric(model=judge)
configs = {"async_config": AsyncConfig(max_concurrent=concurrency), "cache_config": CacheConfig(write_cache=write_cache)}
result = evaluate(cases, [metric], **configs)
failed = [r.name for r in result.test_results if not r.success]
if failed or len(result.test_results) != len(prompts):
    sys.exit(f"{len(failed)} of {len(result.test_results)} test cases failed (of {len(prompts)})")
"""


@dataclass(frozen=True)
class Turn:
    wall: float  # the tool's process, start to exit
    calls: int  # requests the server saw
    cpu: float  # CPU seconds (user + system) of the tool's processes
    in_flight: float  # requests being served, on average from the first request to the last answer
    most: int  # the most requests being served at once


@dataclass(frozen=True)
class Tool:
    label: str
    command: list[str]  # "{count}" in it stands for the number of cases to run
    env: dict[str, str]
    reply: str  # what the server answers the tool's judge calls
    cache: str = ""  # the environment variable that names the tool's cache folder (a fresh one per run), if any


def served(server: FakeOpenAIServer, wall: float, cpu: float) -> Turn:
    requests = list(server.requests)
    first = min((r.received for r in requests), default=0.0)
    last = max((r.answered or r.received for r in requests), default=0.0)
    serving = sum((r.answered or r.received) - r.received for r in requests)
    in_flight = serving / (last - first) if last > first else 0.0
    return Turn(wall, len(requests), cpu, in_flight, server.max_in_flight)


def run_tool(tool: Tool, server: FakeOpenAIServer, count: int, folder: Path, limit: float) -> Turn:
    """One run of a peer over the first ``count`` cases, in ``folder`` (made fresh), stopped after ``limit`` seconds."""
    server.reset()
    server.text_reply = tool.reply
    folder.mkdir(parents=True)
    env = {**tool.env, tool.cache: str(folder / "cache")} if tool.cache else tool.env
    command = ["timeout", str(int(limit)), *(part.replace("{count}", str(count)) for part in tool.command)]
    done, wall, cpu, *_ = timed(command, folder, env)
    if done.returncode != 0:
        why = "timed out" if done.returncode == 124 else f"exit {done.returncode}"
        raise SystemExit(f"{tool.label} failed ({why}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return served(server, wall, cpu)


def promptfoo_config(path: Path, base_url: str, prompts: list[str], size: str) -> None:
    """N tests: an image generation at the server, graded by an llm-rubric whose grader is a chat model there."""
    server = json.dumps(base_url)
    lines = [
        "description: the visioneval throughput workload",
        "prompts: ['{{prompt}}']",
        "providers:",
        "  - id: openai:image:bench-image",
        # Without response_format promptfoo asks this model name for a URL; ours (and the server) use base64.
        f"    config: {{apiBaseUrl: {server}, size: {json.dumps(size)}, response_format: b64_json}}",
        "defaultTest:",
        "  assert:",
        "    - type: llm-rubric",
        "      value: overall visual quality",
        f"      provider: {{id: 'openai:chat:bench-judge', config: {{apiBaseUrl: {server}}}}}",
        "tests:",
    ]
    lines += [f"  - vars: {{prompt: {json.dumps(prompt)}}}" for prompt in prompts]
    path.write_text("\n".join(lines) + "\n")


def version_of(command: list[str], env: dict[str, str]) -> str | None:
    """The first word ``command`` prints, or None when it cannot run."""
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, check=False)
    except OSError:
        return None
    words = done.stdout.split()
    return words[0] if done.returncode == 0 and words else None


def differences(label: str, requests: list[RecordedRequest], ours: dict[str, Any], cases: int) -> list[str]:
    """How a run's traffic differs from ours: the calls per path, the fields of the requests, the image in the judge's."""
    notes: list[str] = []
    paths = Counter(f"{r.method} {r.path}" for r in requests)
    expected = Counter({"POST /v1/images/generations": cases, "POST /v1/chat/completions": cases})
    if paths != expected:
        notes.append(f"calls {dict(paths)} where ours makes {dict(expected)}")
    generations = [r for r in requests if r.path.endswith("/images/generations") and r.json is not None]
    made = {base64.b64encode(image_of_its_prompt(r)).decode() for r in generations}  # what the server answered
    for name, suffix in (("generation", "/images/generations"), ("judge", "/chat/completions")):
        theirs = [r.json for r in requests if r.path.endswith(suffix) and r.json is not None]
        if not theirs:
            continue
        added = sorted(set(theirs[0]) - set(ours[name]))
        missing = sorted(set(ours[name]) - set(theirs[0]))
        if added or missing:
            notes.append(f"{name} request: adds {added or 'nothing'}, lacks {missing or 'nothing'}")
        if name == "judge":
            size = statistics.mean(len(json.dumps(body)) for body in theirs)
            notes.append(f"judge request {size:.0f} bytes on average, ours {len(json.dumps(ours['judge']))}")
            seeing = sum(bool(made & set(DATA_URL.findall(json.dumps(body)))) for body in theirs)
            notes.append(f"{seeing} of {len(theirs)} judge calls carry an image the server generated")
            models = sorted({str(body.get("model")) for body in theirs})
            if models != [ours["judge"]["model"]]:
                notes.append(f"judge model named {models}")
    return [f"{label}: {note}" for note in notes]


def _spread(values: list[float], fmt: str = "{:.2f}") -> str:
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def _ms_per_call(t: Turn) -> float:
    return 1000 * t.cpu / t.calls if t.calls else float("nan")


def peers(args: argparse.Namespace, root: Path, base_url: str, env: dict[str, str]) -> tuple[list[Tool], list[str]]:
    """The peers that can run here, and a line for each: its version and set-up, or how to install it."""
    tools: list[Tool] = []
    lines: list[str] = []
    quiet = {**env, **PROMPTFOO_QUIET, "PROMPTFOO_CONFIG_DIR": str(root / "promptfoo-home")}  # its database, logs
    promptfoo = version_of([args.promptfoo, "--version"], quiet) if Path(args.promptfoo).exists() else None
    if promptfoo is None:
        lines.append(f"promptfoo: skipped, cannot run {args.promptfoo} (install: {INSTALL['promptfoo']})")
    else:
        node = version_of(["node", "--version"], quiet)
        lines.append(
            f"promptfoo {promptfoo} (Node {node}): eval -j {args.concurrency}, openai:image and an llm-rubric graded by "
            "openai:chat; its cache on (empty per run), its evals saved to its database"
        )
        command = [args.promptfoo, "eval", "-c", str(root / "promptfooconfig.yaml"), "-j", str(args.concurrency)]
        command += ["--filter-first-n", "{count}", "--no-table", "--no-progress-bar", "--no-share"]
        tools.append(Tool("promptfoo", command, quiet, PROMPTFOO_REPLY, "PROMPTFOO_CACHE_PATH"))
    quiet = {**env, **DEEPEVAL_QUIET}
    probe = "import importlib.metadata as m; print(m.version('deepeval'), m.version('openai'))"
    versions = None
    if Path(args.deepeval_python).exists():
        versions = subprocess.run([args.deepeval_python, "-c", probe], env=quiet, capture_output=True, text=True, check=False)
    if versions is None or versions.returncode != 0:
        lines.append(f"DeepEval: skipped, no deepeval for {args.deepeval_python} (install: {INSTALL['DeepEval']})")
    else:
        deepeval, sdk = versions.stdout.split()
        cache = "written (its default)" if args.deepeval_write_cache else "not written (write_cache=False)"
        lines.append(
            f"DeepEval {deepeval} (openai {sdk}): the images generated first (openai SDK, {args.concurrency} at a time), "
            f"then evaluate() with {args.deepeval_metric}, max_concurrent {args.concurrency}; its test-run cache {cache}"
        )
        command = [args.deepeval_python, str(root / "deepeval_run.py"), str(root / "traffic.json"), base_url]
        command += [str(args.concurrency), args.deepeval_metric, str(int(args.deepeval_write_cache)), "{count}"]
        tools.append(Tool(f"DeepEval {args.deepeval_metric}", command, quiet, DEEPEVAL_REPLIES[args.deepeval_metric]))
    return tools, lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=3, help="turns of every tool (median reported)")
    parser.add_argument("--size", default="64x64", help="the size the cases ask for (WxH; the server's images have it)")
    parser.add_argument("--promptfoo", default=PROMPTFOO, help="the promptfoo command")
    parser.add_argument("--deepeval-python", default=DEEPEVAL_PYTHON, help="a Python that has deepeval and openai")
    parser.add_argument("--deepeval-metric", choices=sorted(DEEPEVAL_REPLIES), default="geval")
    parser.add_argument(
        "--deepeval-write-cache", action="store_true",
        help="let evaluate() write its cache, as it does by default (it rewrites its files after every test case)",
    )  # fmt: skip
    parser.add_argument("--ours", action="store_true", help="also time ours (-n 0, cold) in every turn")
    args = parser.parse_args()
    import openai

    calls = 2 * args.cases
    ideal = calls * args.latency / args.concurrency
    limit = 120 + 20 * ideal
    with tempfile.TemporaryDirectory(prefix="visioneval-peers-") as tmp, FakeOpenAIServer(latency=args.latency) as server:
        server.image_factory = image_of_its_prompt
        root = Path(tmp)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["OPENAI_API_KEY"] = "bench-key"
        tools, lines = peers(args, root, server.base_url, env)
        prompts = make_suite(root, args.cases, size=args.size)
        (root / "bench_probe.py").write_text(PROBE)
        (root / "deepeval_run.py").write_text(DEEPEVAL_RUN)
        promptfoo_config(root / "promptfooconfig.yaml", server.base_url, prompts, args.size)
        traffic = root / "traffic.json"
        server.text_reply = JUDGE_REPLY
        run(root, server, 0, args.concurrency, root / "cache-untimed")  # untimed: our traffic, and our bytecode caches
        record_traffic(server, prompts, traffic)
        ours = json.loads(traffic.read_text())
        for number, tool in enumerate(list(tools)):  # untimed too: promptfoo makes its database; each loads its modules
            try:
                run_tool(tool, server, min(args.cases, 10), root / f"untimed-{number}", limit)
            except SystemExit as failed:
                tools.remove(tool)
                lines.append(f"{tool.label}: skipped, its first (untimed) run failed: {str(failed.code).strip()[-1500:]}")
        server.text_reply = JUDGE_REPLY
        run_bare(root, server, args.concurrency, traffic)
        labels = (["ours -n 0"] if args.ours else []) + [t.label for t in tools] + ["bare client"]
        print(f"Python {sys.version.split()[0]}, openai {openai.__version__} (ours and the bare client), "
              f"{os.cpu_count()} CPUs; turns per repeat: {', '.join(labels)}")  # fmt: skip
        print("\n".join(lines))
        print(f"{args.cases} cases x (1 generation + 1 judge call) = {calls} calls, latency {args.latency}s, "
              f"concurrency {args.concurrency}: ideal {ideal:.2f}s; median (min-max) of {args.repeats}")  # fmt: skip
        results: dict[str, list[Turn]] = {label: [] for label in labels}
        notes: list[str] = []
        for index in range(args.repeats):
            server.text_reply = JUDGE_REPLY
            if args.ours:
                r = run(root, server, 0, args.concurrency, root / f"cache-ours-{index}")
                results["ours -n 0"].append(served(server, r.wall, r.cpu))
            for number, tool in enumerate(tools):
                results[tool.label].append(run_tool(tool, server, args.cases, root / f"run-{number}-{index}", limit))
                if index == 0:
                    notes += differences(tool.label, list(server.requests), ours, args.cases)
            server.text_reply = JUDGE_REPLY
            b = run_bare(root, server, args.concurrency, traffic)
            results["bare client"].append(served(server, b.wall, b.cpu))
    print("traffic against ours (the first turn):")
    print("\n".join(f"  {note}" for note in notes) or "  (no peer ran)")
    bare = results["bare client"]
    for label in labels:
        turns = results[label]
        line = (
            f"  {label}: wall/ideal {_spread([t.wall / ideal for t in turns])}; calls {[t.calls for t in turns]}; "
            f"in flight {_spread([t.in_flight for t in turns], '{:.1f}')} on average, at most {[t.most for t in turns]} "
            f"(limit {args.concurrency}); CPU {_spread([t.cpu for t in turns], '{:.1f}')} s, "
            f"{_spread([_ms_per_call(t) for t in turns], '{:.1f}')} ms per call"
        )
        if label != "bare client":
            ratio = [_ms_per_call(t) / _ms_per_call(b) for t, b in zip(turns, bare, strict=True)]
            line += f", {_spread(ratio)} x the bare client's"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
