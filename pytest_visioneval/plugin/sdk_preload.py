"""Import the OpenAI SDK on a background thread while a cold run starts up.

The SDK's import takes about half a second of CPU, and a case run needs it
before its first request. Left to the first call, it starts only once
collection is over and, under xdist, once every worker has collected and the
controller has sent the first items: a worker that finished collecting early
sits idle in between. Started from ``pytest_configure`` on a thread, the
import overlaps collection and that wait.

Only where calls will surely be made (the hooks call it only in a process that
runs cases): an OpenAI model or judge is named, and the cache
cannot answer (off, write-only, or an empty folder). A run with a filled
cache may never need the SDK, and keeps importing it on first need.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable
from pathlib import Path

import pytest

THREAD_NAME = "visioneval-sdk-import"
preload_key = pytest.StashKey[threading.Thread]()  # the import's thread, where one was started
_SDK_PROVIDER = "openai"
_CACHE_MODES_THAT_READ = ("on", "read")


def calls_surely_made(specs: Iterable[str], cache_mode: str, cache_dir: Path | None) -> bool:
    """Whether a run of these model/judge specs will call the SDK: one of them is OpenAI's and the cache cannot answer."""
    if not any(spec.partition(":")[0] == _SDK_PROVIDER for spec in specs):
        return False
    if cache_mode not in _CACHE_MODES_THAT_READ or cache_dir is None:
        return True
    try:
        return next(cache_dir.iterdir(), None) is None
    except OSError:  # no cache folder yet
        return True


def start(specs: Iterable[str], cache_mode: str, cache_dir: Path | None) -> threading.Thread | None:
    """Start the import when a process that runs cases will surely call the SDK; the thread, or None."""
    if not calls_surely_made(specs, cache_mode, cache_dir):
        return None
    thread = threading.Thread(target=_import_sdk, name=THREAD_NAME, daemon=True)
    thread.start()
    return thread


def _import_sdk() -> None:
    # A failed import is reported by the first call that needs the SDK, with the case it belongs to.
    with contextlib.suppress(Exception):
        import openai  # noqa: F401
        import openai.resources.chat  # noqa: F401  (loaded by the first client.chat / client.images)
        import openai.resources.images  # noqa: F401
        import tenacity  # noqa: F401  (the call layer's retries, loaded on the first call the cache lacks)

        from ..calls.slot_transport import shared_ssl_context

        shared_ssl_context()  # loads the trust store, which the first client would otherwise wait for
