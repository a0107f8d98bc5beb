"""The one path every model and judge API call takes.

``CallLayer.call`` looks the call up in the cache, runs it at most once
across threads and workers (the cache's per-key lock), holds a run-wide
concurrency slot only while the request is in flight, retries 429, 5xx,
timeouts and connection failures with exponential backoff (honouring
``retry-after``; the SDK's own retries are turned off so there is one policy,
and no slot is held while waiting), stores the successful result, and books
its usage and cost against the current case (see :mod:`usage`).

The call itself is a function returning a JSON-able :class:`CallResult`;
adapters build their request, hand the function and a key description here,
and turn the result into artifacts or a judge reply.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import random
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt

from .cache import CallCache
from .concurrency import RunConcurrency
from .usage import Prices, current_usage

_case_repeat: contextvars.ContextVar[int] = contextvars.ContextVar("visioneval_case_repeat", default=0)

DEFAULT_BASE_URL = "https://api.openai.com/v1"  # the SDK's, when neither an option nor OPENAI_BASE_URL names one
RETRY_STATUSES = frozenset({408, 409, 429}) | frozenset(range(500, 600))
MAX_BACKOFF = 30.0
MAX_RETRY_AFTER = 120.0


@dataclass(frozen=True)
class CallResult:
    """What a call returns: its value (JSON-able, cached as is) and its usage (tokens, images)."""

    value: Any
    usage: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CallSettings:
    concurrency: int | None = None  # run-wide limit; None: one call at a time per worker, no shared limit
    max_attempts: int = 3  # first try + retries
    backoff: float = 0.5  # first backoff in seconds; doubles each retry, with jitter
    cache_dir: Path | None = None
    cache_mode: str = "off"
    slots_dir: Path | None = None  # shared by the run's workers (None: limit per process)
    prices: Prices = field(default_factory=Prices)
    # Under xdist with a concurrency: the longest wait for a case another worker is evaluating.
    wait_timeout: float = 1800.0


def endpoint_label(base_url: str) -> str:
    """The endpoint without credentials or query (a key in a URL must never reach a cache entry)."""
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


class UnreadableReply(Exception):
    """The endpoint answered (status 200) with something that is not the API's reply: a web page, broken JSON."""


_EXCERPT = 160


def _excerpt(text: str) -> str:
    flat = " ".join(str(text).split())
    return repr(flat if len(flat) <= _EXCERPT else flat[:_EXCERPT] + "...")


@contextlib.contextmanager
def readable_reply() -> Iterator[None]:
    """Around an SDK call: an answer that is not JSON becomes an :class:`UnreadableReply` that quotes it."""
    try:
        yield
    except json.JSONDecodeError as exc:
        raise UnreadableReply(f"the endpoint's answer is not JSON ({exc.msg}): {_excerpt(exc.doc)}") from None


def api_reply(response: Any, what: str, attribute: str) -> Any:
    """``response`` when it is the SDK's parsed reply (it has ``attribute``); else an :class:`UnreadableReply`."""
    if isinstance(response, (str, bytes)):
        text = response.decode("utf-8", "replace") if isinstance(response, bytes) else response
        raise UnreadableReply(f"the endpoint answered with text, not {what}: {_excerpt(text)}")
    if not hasattr(response, attribute):
        raise UnreadableReply(f"the endpoint's answer is not {what}: {_excerpt(repr(response))}")
    return response


def is_retryable(exc: BaseException) -> bool:
    import openai

    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    return isinstance(exc, openai.APIStatusError) and exc.status_code in RETRY_STATUSES


def retry_after(exc: BaseException | None) -> float | None:
    """Seconds the server asked us to wait (``retry-after-ms`` or ``retry-after`` in seconds)."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            seconds = float(raw) * scale
        except ValueError:
            continue  # an HTTP date: fall back to our own backoff
        return min(max(seconds, 0.0), MAX_RETRY_AFTER)
    return None


class CallLayer:
    def __init__(self, settings: CallSettings | None = None):
        self.settings = settings or CallSettings()
        s = self.settings
        self.cache = CallCache(s.cache_dir, s.cache_mode) if s.cache_dir is not None and s.cache_mode != "off" else None
        self.limit = RunConcurrency(s.concurrency or 1, s.slots_dir if s.concurrency else None)

    def call(
        self,
        kind: str,
        model: str,
        key_material: Mapping[str, Any],
        run: Callable[[], CallResult],
        *,
        repeat: int = 0,
        attempts: int | None = None,
        prepare: Callable[[], object] | None = None,
        slot_in_transport: bool = False,
    ) -> CallResult:
        """Run ``run`` through the cache, the concurrency limit and the retry policy.

        ``key_material`` describes the request completely (minus secrets and
        settings that do not change the output); with ``repeat`` it addresses the
        cache entry. ``prepare`` runs on a cache miss before a slot is taken: the
        slow, once-only work a request needs (making the SDK client), which must
        not hold a slot. ``slot_in_transport``: the request's HTTP client takes the
        slot itself, on the wire only (:mod:`slot_transport`), so none is taken
        here. Exceptions that are not retryable, and retryable ones on the last
        attempt, propagate to the adapter, which words the error.
        """
        usage = current_usage()
        material = {"model": model, "repeat": repeat, "case_repeat": _case_repeat.get(), "request": key_material}
        cache = self.cache
        if cache is None:
            if prepare is not None:
                prepare()
            return self._run(kind, model, run, usage, attempts, slot_in_transport)
        from .cache import cache_key

        key = cache_key(kind, material)
        hit = cache.get(kind, key)
        if hit is not None:
            usage.book(kind, model, hit.get("usage", {}), self.settings.prices, cached=True)
            return CallResult(hit["value"], hit.get("usage", {}))
        with cache.single_flight(kind, key):
            hit = cache.get(kind, key)  # another thread or worker may have made it while we waited
            if hit is not None:
                usage.book(kind, model, hit.get("usage", {}), self.settings.prices, cached=True)
                return CallResult(hit["value"], hit.get("usage", {}))
            if prepare is not None:
                prepare()
            result = self._run(kind, model, run, usage, attempts, slot_in_transport)
            cache.put(kind, key, {"value": result.value, "usage": dict(result.usage)}, {"model": model, "repeat": repeat})
            return result

    def _run(
        self,
        kind: str,
        model: str,
        run: Callable[[], CallResult],
        usage: Any,
        attempts: int | None,
        slot_in_transport: bool = False,
    ) -> CallResult:
        s = self.settings

        def wait(state: RetryCallState) -> float:
            exc = state.outcome.exception() if state.outcome else None
            asked = retry_after(exc)
            if asked is not None:
                return asked
            base = min(s.backoff * 2 ** (state.attempt_number - 1), MAX_BACKOFF)
            return base * (0.75 + random.random() / 2)  # jitter: workers retrying together spread out

        def attempt() -> CallResult:
            with contextlib.nullcontext() if slot_in_transport else self.limit.slot():
                started = time.perf_counter()
                try:
                    return run()
                except BaseException:
                    # The request was made all the same (a failed status, a timeout, a reply rejected
                    # while parsing): count it, so the usage matches what the server saw.
                    usage.failed_request(kind)
                    raise
                finally:
                    usage.add_seconds(kind, time.perf_counter() - started)

        def before_sleep(state: RetryCallState) -> None:
            usage.retried(kind)

        retrying = Retrying(
            stop=stop_after_attempt(max(1, attempts or s.max_attempts)),
            wait=wait,
            retry=retry_if_exception(is_retryable),
            before_sleep=before_sleep,
            reraise=True,
        )
        result: CallResult = retrying(attempt)
        usage.book(kind, model, result.usage, s.prices, cached=False)
        return result

    def close(self) -> None:
        self.limit.close()


@contextlib.contextmanager
def case_repeat(index: int) -> Iterator[None]:
    """Calls made inside are for repeat ``index`` of a case (``--eval-repeats``): a distinct cache entry."""
    token = _case_repeat.set(index)
    try:
        yield
    finally:
        _case_repeat.reset(token)


DIRECT = CallLayer()  # no cache, no shared limit: for adapters used outside a pytest run
