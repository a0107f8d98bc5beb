"""benchmarks/bare_client.py: the floor sends our recorded traffic, case by case, and nothing else."""

from __future__ import annotations

import asyncio
import base64
import importlib.util
import json
from pathlib import Path
from types import ModuleType

from pytest_visioneval.testing import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[2]


def _bare_client() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bare_client", ROOT / "benchmarks" / "bare_client.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RECORDED_JUDGE = {
    "model": "bench-judge",
    "messages": [
        {"role": "system", "content": "You score an output."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Prompt given to the model:\na red square number 0 of file 0"},
                {"type": "text", "text": "[Output image 1 (image-0.png)]"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
            ],
        },
    ],
    "response_format": {"type": "json_schema", "json_schema": {"name": "scores", "schema": {"type": "object"}, "strict": True}},
    "temperature": 0.0,
}


def test_the_bare_client_replays_each_case_with_its_prompt_and_its_image() -> None:
    bare = _bare_client()
    prompts = ["a red square number 0 of file 0", "a red square number 1 of file 0"]
    traffic = {
        "generation": {"model": "bench-image", "prompt": prompts[0], "size": "16x16", "quality": "low", "vendor_option": 3},
        "judge": RECORDED_JUDGE,
        "prompt": prompts[0],
        "prompts": prompts,
    }
    with FakeOpenAIServer() as server:
        server.text_reply = '{"scores": {}}'
        sent = asyncio.run(bare.replay(traffic, server.base_url, 2))
        requests = list(server.requests)
    assert sent == 4 and len(requests) == 4
    # A key the SDK does not name (a vendor option) goes too, as extra_body.
    generations = sorted((r.json for r in requests if r.path.endswith("/images/generations")), key=json.dumps)
    assert generations == [{**traffic["generation"], "prompt": p} for p in prompts]
    judges = [r.json for r in requests if r.path.endswith("/chat/completions")]
    for prompt in prompts:
        [judge] = [j for j in judges if prompt in json.dumps(j)]
        url = judge["messages"][1]["content"][2]["image_url"]["url"]
        image = base64.b64decode(url.removeprefix("data:image/png;base64,"))
        assert image.startswith(b"\x89PNG"), "the judge was not sent the image its generation returned"
        # Everything else is the recorded body: only the prompt and the image differ.
        expected = json.loads(json.dumps(RECORDED_JUDGE).replace(prompts[0], prompt))
        expected["messages"][1]["content"][2]["image_url"]["url"] = url
        assert judge == expected
