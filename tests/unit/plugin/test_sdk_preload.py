"""The SDK is imported in the background only where a run will surely call it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pytest_visioneval.plugin.sdk_preload import calls_surely_made


def test_an_openai_model_or_judge_with_an_empty_or_missing_cache_will_call(tmp_path: Path) -> None:
    assert calls_surely_made(["openai:gpt-image-1"], "on", tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    assert calls_surely_made(["reference", "openai:judge"], "on", tmp_path / "empty")


@pytest.mark.parametrize("mode", ["off", "write"])
def test_a_cache_that_is_never_read_cannot_answer(tmp_path: Path, mode: str) -> None:
    (tmp_path / "model").mkdir()
    assert calls_surely_made(["openai:m"], mode, tmp_path)


@pytest.mark.parametrize("mode", ["on", "read"])
def test_a_filled_cache_may_answer_every_call(tmp_path: Path, mode: str) -> None:
    (tmp_path / "model").mkdir()
    assert not calls_surely_made(["openai:m"], mode, tmp_path)


def test_no_openai_model_or_judge_never_needs_the_sdk(tmp_path: Path) -> None:
    assert not calls_surely_made(["reference", "replay:runs/a", "openaish:x"], "off", tmp_path)


def test_the_preload_makes_the_tls_context_the_clients_then_share(tmp_path: Path) -> None:
    probe = (
        "import pathlib\n"
        "from pytest_visioneval.plugin import sdk_preload\n"
        "from pytest_visioneval.calls import slot_transport\n"
        "from pytest_visioneval.calls.concurrency import RunConcurrency\n"
        f"thread = sdk_preload.start(['openai:m'], 'on', pathlib.Path({str(tmp_path / 'no-cache')!r}))\n"
        "thread.join(60)\n"
        "assert slot_transport.shared_ssl_context.made, 'the preload made no context'\n"
        "limit = RunConcurrency(2, None)\n"
        "first, second = slot_transport.client_with_slots(limit, 5.0), slot_transport.client_with_slots(limit, 5.0)\n"
        "assert slot_transport.shared_ssl_context.makes == 1\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stdout + done.stderr
