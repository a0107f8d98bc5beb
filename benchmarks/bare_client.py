"""The floor of ``throughput.py``: a bare ``openai.AsyncOpenAI`` client sending our traffic, nothing else.

Run by ``throughput.py`` as its own process (so the parent's ``RUSAGE_CHILDREN`` gives its CPU
as it gives ours):

    python benchmarks/bare_client.py TRAFFIC.json BASE_URL CONCURRENCY

``TRAFFIC.json`` holds what one of our runs sent to the same server: the body of an image
generation and the body of the judge's chat completion that followed it, the prompt they were
made for, and the prompts of every case. Per case this client sends the generation with the
case's prompt, decodes the image it gets back, and sends the judge request with that image as a
base64 data URL in the place and form our judge puts it (the case's prompt in its text), then
reads the judge's JSON reply. One asyncio loop; a semaphore of ``CONCURRENCY`` is held for each
call on the wire, as our engine holds its slot. No cache, no files, no grading: what remains is
the SDK's cost of these requests, and the interpreter's.
"""

from __future__ import annotations

import asyncio
import base64
import inspect
import json
import os
import sys
from pathlib import Path
from typing import Any

import openai


def substituted(value: Any, prompt: str, case_prompt: str, image_url: str) -> Any:
    """``value`` (a judge body) with the recorded prompt replaced by the case's, and every image by ``image_url``."""
    if isinstance(value, dict):
        if value.get("type") == "image_url":
            return {**value, "image_url": {**value["image_url"], "url": image_url}}
        return {k: substituted(v, prompt, case_prompt, image_url) for k, v in value.items()}
    if isinstance(value, list):
        return [substituted(v, prompt, case_prompt, image_url) for v in value]
    if isinstance(value, str) and prompt in value:
        return value.replace(prompt, case_prompt)
    return value


def split_generation(body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The generation body as ``images.generate`` arguments, and the keys it does not name (sent as ``extra_body``)."""
    known = set(inspect.signature(openai.resources.images.AsyncImages.generate).parameters) - {"self"}
    return {k: v for k, v in body.items() if k in known}, {k: v for k, v in body.items() if k not in known}


async def replay(traffic: dict[str, Any], base_url: str, concurrency: int) -> int:
    client = openai.AsyncOpenAI(base_url=base_url, api_key="bench-key", max_retries=0)
    slots = asyncio.Semaphore(concurrency)
    generation, extra = split_generation(traffic["generation"])
    judge: dict[str, Any] = traffic["judge"]
    prompt: str = traffic["prompt"]

    async def case(case_prompt: str) -> None:
        async with slots:
            images = await client.images.generate(**{**generation, "prompt": case_prompt}, extra_body=extra or None)
        data = base64.b64decode(images.data[0].b64_json or "")
        url = "data:image/png;base64," + base64.b64encode(data).decode()
        body = substituted(judge, prompt, case_prompt, url)
        async with slots:
            reply = await client.chat.completions.create(**body)
        json.loads(reply.choices[0].message.content or "")

    await asyncio.gather(*(case(p) for p in traffic["prompts"]))
    await client.close()
    return 2 * len(traffic["prompts"])


def main() -> int:
    traffic_file, base_url, concurrency = sys.argv[1], sys.argv[2], int(sys.argv[3])
    traffic = json.loads(Path(traffic_file).read_text())
    asyncio.run(replay(traffic, base_url, concurrency))
    if peaks := os.environ.get("VISIONEVAL_BENCH_PEAK_RSS"):  # throughput.py's PEAK_ENV: this process's peak RSS
        with open("/proc/self/status") as status, open(peaks, "a") as out:
            out.write(next(line.split()[1] for line in status if line.startswith("VmHWM:")) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
