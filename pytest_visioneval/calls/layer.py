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
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from ..errors import BatchError, ConfigError
from .budget import BudgetLedger, CallHint, Reservation
from .cache import CallCache
from .concurrency import RunConcurrency
from .deferred import CallDeferred
from .interrupt import CallsStopped
from .turn import turn_released
from .usage import CaseUsage, Prices, current_usage, paid_by
from .waiting import may_wait

if TYPE_CHECKING:
    from tenacity import RetryCallState

    from .batch_book import BatchBook
    from .batch_request import BatchRequest

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
    slots_server: str | None = None  # the controller's slot server (xdist workers): preferred over slots_dir
    prices: Prices = field(default_factory=Prices)
    # Under xdist with a concurrency: the longest wait for a case another worker is evaluating.
    wait_timeout: float = 1800.0
    batch_kinds: frozenset[str] = frozenset()  # --eval-batch: the kinds of call sent in provider batches
    batch_dir: Path | None = None
    batch_retry: str = "batch"  # a request that failed inside a batch is retried in the next batch, or directly
    batch_wait: float | None = None  # --eval-batch-wait: seconds this run waits for its batches (None: it does not)
    batch_poll: float = 30.0
    max_cost: float | None = None  # --eval-max-cost: USD the run may spend on calls
    budget_path: Path | None = None  # the run's ledger, shared by its workers (None: per process)


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
        raise _text_answer(response, what)
    if not hasattr(response, attribute):
        raise UnreadableReply(f"the endpoint's answer is not {what}: {_excerpt(repr(response))}")
    return response


def json_reply(body: Any, what: str, key: str) -> dict[str, Any]:
    """``body`` (an SDK call's reply read with ``cast_to=object``) when it is a JSON object holding ``key``.

    A body the SDK left as text because its content type was not JSON is read as JSON all the same (as the SDK
    does for its typed replies); anything else is an :class:`UnreadableReply` that quotes it.
    """
    if isinstance(body, (str, bytes)):
        try:
            body = json.loads(body)
        except ValueError:
            raise _text_answer(body, what) from None
    if not isinstance(body, dict) or key not in body:
        raise UnreadableReply(f"the endpoint's answer is not {what}: {_excerpt(json.dumps(body, default=str))}")
    return body


def reply_shape_error(body: Any, what: str, problem: str) -> UnreadableReply:
    """A JSON reply that has the right key but not the right shape: says what is wrong and quotes it."""
    return UnreadableReply(f"the endpoint's answer is not {what} ({problem}): {_excerpt(json.dumps(body, default=str))}")


def _text_answer(text: str | bytes, what: str) -> UnreadableReply:
    decoded = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    return UnreadableReply(f"the endpoint answered with text, not {what}: {_excerpt(decoded)}")


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
        self.limit = RunConcurrency(
            s.concurrency or 1, s.slots_dir if s.concurrency else None, s.slots_server if s.concurrency else None
        )
        self.batches: BatchBook | None = None
        if s.batch_kinds and s.batch_dir is not None:
            from .batch_book import BatchBook  # only with --eval-batch: a run without batches does not load them

            self.batches = BatchBook(s.batch_dir)
        self.budget = BudgetLedger(s.max_cost, s.budget_path) if s.max_cost is not None else None

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
        batch: BatchRequest | None = None,
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

        ``batch``: how the call travels in a provider batch. When its kind is
        batched (``--eval-batch``) a miss is not sent: it is queued, or found
        waiting, and :class:`CallDeferred` is raised; a reply the batch returned
        is booked at the batch price and cached like any other (:meth:`_batched`).
        """
        usage = current_usage()
        material = {"model": model, "repeat": repeat, "case_repeat": _case_repeat.get(), "request": key_material}
        cache = self.cache
        if cache is None:
            may_wait(f"a {kind} call (no cache)")
            if prepare is not None:
                prepare()
            return self._run(kind, model, run, usage, attempts, slot_in_transport, material)
        from .cache import cache_key

        key = cache_key(kind, material)
        hit = cache.get(kind, key)
        if hit is not None:
            return self._hit(kind, model, hit, usage)
        may_wait(f"a {kind} call the cache does not hold")
        with cache.single_flight(kind, key):
            hit = cache.get(kind, key)  # another thread or worker may have made it while we waited
            if hit is not None:
                return self._hit(kind, model, hit, usage)
            if batch is not None and self.batches is not None and kind in self.settings.batch_kinds:
                return self._batched(kind, model, key, material, batch, run, usage, attempts, prepare, slot_in_transport)
            if prepare is not None:
                prepare()
            result = self._run(kind, model, run, usage, attempts, slot_in_transport, material)
            cache.put(
                kind,
                key,
                {"value": result.value, "usage": dict(result.usage), "paid_by": paid_by()},
                {"model": model, "repeat": repeat},
            )
            return result

    def _hit(self, kind: str, model: str, hit: Mapping[str, Any], usage: CaseUsage) -> CallResult:
        """A call the cache holds: free, unless a dead worker of this run paid for it and never reported it."""
        paid = usage.paid_unreported(hit.get("paid_by"))
        usage.book(kind, model, hit.get("usage", {}), self.settings.prices, cached=not paid)
        return CallResult(hit["value"], hit.get("usage", {}))

    def _batched(
        self,
        kind: str,
        model: str,
        key: str,
        material: Mapping[str, Any],
        batch: BatchRequest,
        run: Callable[[], CallResult],
        usage: CaseUsage,
        attempts: int | None,
        prepare: Callable[[], object] | None,
        slot_in_transport: bool,
    ) -> CallResult:
        """A cache miss of a batched kind: take the batch's reply, retry its failure, or queue the request.

        Runs under the key's single-flight lock, so one thread or worker acts on a reply or a failure.
        """
        assert self.batches is not None and self.cache is not None
        book, cache = self.batches, self.cache
        repeat = material["repeat"]
        found = book.lookup(key)
        attempt = 1
        if found is not None and found.state == "result":
            try:
                result = batch.parse(found.data["body"])
            except BaseException:
                self._drop_batch_hold(model, found.data, None)
                # Judged like a direct reply that fails its checks: counted (once) and not cached. It is kept
                # in the book, so the next run meets the same rejection again and goes on to what followed it
                # (a judge asked again is a new request, in the next batch), as a direct run would at once.
                if not found.data.get("rejected"):
                    usage.failed_request(kind, batched=True)
                    book.mark_rejected(key)
                raise
            cost = usage.book(kind, model, result.usage, self.settings.prices, cached=False, batched=True)
            self._drop_batch_hold(model, found.data, cost)
            cache.put(
                kind,
                key,
                {"value": result.value, "usage": dict(result.usage), "paid_by": paid_by()},
                {"model": model, "repeat": repeat, "batch": found.data["batch"]},
            )
            book.forget(key, "result")
            return result
        if found is not None and found.state == "failed":
            usage.failed_request(kind, batched=True)
            self._drop_batch_hold(model, found.data, None)
            book.forget(key, "failed")
            data = found.data
            status, made = data.get("status_code"), int(data.get("attempt", 1))
            what = f"request failed inside batch {data['batch']} ({data['error']})"
            if status is not None and status not in RETRY_STATUSES:
                raise BatchError(what)
            if made >= max(1, attempts or self.settings.max_attempts):
                raise BatchError(f"{what} after {made} attempt(s)")
            usage.retried(kind)
            if self.settings.batch_retry == "direct":
                if prepare is not None:
                    prepare()
                result = self._run(kind, model, run, usage, attempts, slot_in_transport, material)
                cache.put(
                    kind,
                    key,
                    {"value": result.value, "usage": dict(result.usage), "paid_by": paid_by()},
                    {"model": model, "repeat": repeat},
                )
                return result
            attempt = made + 1
        elif found is not None and found.state == "pending":
            data = found.data
            raise CallDeferred(
                "batch", f"waiting in batch {data['batch']} ({data['status']}, {data['done']}/{data['total']} done)"
            )
        elif found is not None:
            raise CallDeferred("batch", "queued for the next provider batch")
        # Held until the batch's reply or failure is collected (_drop_batch_hold): money committed to the provider.
        reservation = self._reserve(model, material, batched=True)
        try:
            if prepare is not None:
                prepare()
            body = batch.body()
            book.enqueue(key, kind, model, batch.endpoint, batch.path, body, attempt, reservation.key if reservation else None)
        except BaseException:
            if reservation is not None:  # never queued: nothing was committed
                self.budget.release(reservation)  # type: ignore[union-attr]
            raise
        again = f" (attempt {attempt})" if attempt > 1 else ""
        raise CallDeferred("batch", f"queued for a provider batch{again}; submitted when this run ends")

    def _drop_batch_hold(self, model: str, data: Mapping[str, Any], cost: float | None) -> None:
        """A batched request's reply (``cost``) or failure (None: unbilled) was collected: settle its hold.

        The hold's key travelled with the request through the batch book. A reply collected by a later run
        settles a key that run's ledger never held: only the cost is booked, where the reply lands.
        """
        if self.budget is None:
            return
        multiplier = self.settings.prices.batch_multiplier(model)
        hold = data.get("hold")
        named = {"key": hold} if isinstance(hold, str) else {}  # a reply queued before holds were recorded: none
        reservation = Reservation(model, 0.0, multiplier, **named)
        if cost is None:
            self.budget.release(reservation)
        else:
            self.budget.settle(reservation, cost)

    def _run(
        self,
        kind: str,
        model: str,
        run: Callable[[], CallResult],
        usage: Any,
        attempts: int | None,
        slot_in_transport: bool = False,
        material: Mapping[str, Any] | None = None,
    ) -> CallResult:
        from tenacity import Retrying, retry_if_exception, stop_after_attempt  # on a miss: a warm run never retries

        s = self.settings
        reservation = self._reserve(model, material or {}, batched=False)

        def wait(state: RetryCallState) -> float:
            exc = state.outcome.exception() if state.outcome else None
            asked = retry_after(exc)
            if asked is not None:
                return asked
            base = min(s.backoff * 2 ** (state.attempt_number - 1), MAX_BACKOFF)
            return base * (0.75 + random.random() / 2)  # jitter: workers retrying together spread out

        def attempt() -> CallResult:
            with contextlib.ExitStack() as waits:
                if not slot_in_transport:
                    # Its client takes no slot on the wire (the slot transport also lets the turn go there):
                    # the attempt is all waiting, for the slot and the reply (calls/turn.py).
                    waits.enter_context(turn_released())
                    waits.enter_context(self.limit.slot())
                started = time.perf_counter()
                try:
                    return run()
                except CallsStopped:
                    raise  # refused before it was sent (Ctrl-C): no request was made
                except BaseException:
                    # The request was made all the same (a failed status, a timeout, a reply rejected
                    # while parsing): count it, so the usage matches what the server saw.
                    usage.failed_request(kind)
                    raise
                finally:
                    usage.add_seconds(kind, time.perf_counter() - started)

        def before_sleep(state: RetryCallState) -> None:
            usage.retried(kind)

        def sleep(seconds: float) -> None:
            with turn_released():
                time.sleep(seconds)

        retrying = Retrying(
            stop=stop_after_attempt(max(1, attempts or s.max_attempts)),
            wait=wait,
            sleep=sleep,
            retry=retry_if_exception(is_retryable),
            before_sleep=before_sleep,
            reraise=True,
        )
        try:
            result: CallResult = retrying(attempt)
        except BaseException:
            if reservation is not None:  # failed requests are not billed: give the hold back
                self.budget.release(reservation)  # type: ignore[union-attr]
            raise
        cost = usage.book(kind, model, result.usage, s.prices, cached=False)
        if reservation is not None:
            self.budget.settle(reservation, cost)  # type: ignore[union-attr]
        return result

    def _reserve(self, model: str, material: Mapping[str, Any], *, batched: bool) -> Reservation | None:
        """Hold the call's estimated cost against --eval-max-cost; :class:`CallDeferred` when it does not fit."""
        if self.budget is None:
            return None
        prices = self.settings.prices
        multiplier = prices.batch_multiplier(model) if batched else 1.0
        estimate = self.budget.estimate(model, prices, call_hint(material), multiplier)
        if estimate is None:
            raise ConfigError(f"--eval-max-cost: {model} has no price in --eval-prices, so no budget can be held for its calls")
        reservation = self.budget.reserve(model, estimate, multiplier=multiplier)
        if reservation is None:
            state = self.budget.state()
            raise CallDeferred(
                "budget",
                f"--eval-max-cost ${self.budget.limit:g} reached: ${state['spent']:.4f} spent, ${state['held']:.4f} held, "
                f"next call of {model} ~${estimate:.4f}",
            )
        return reservation

    def close(self) -> None:
        self.limit.close()


_OUTPUT_TOKEN_KEYS = ("max_tokens", "max_completion_tokens", "max_output_tokens")


def call_hint(material: Mapping[str, Any]) -> CallHint:
    """What a call's key material tells of its size before it is made (for a first cost estimate).

    Images in key material are named by their ``sha256:`` digest, so they are
    counted, not measured as text; an images endpoint asks for ``n`` images (1 by default).
    """
    request = material.get("request", material)
    images = 0

    def text_size(value: Any) -> int:
        nonlocal images
        if isinstance(value, str):
            if value.startswith("sha256:"):
                images += 1
                return 0
            return len(value)
        if isinstance(value, Mapping):
            return sum(len(str(k)) + text_size(v) for k, v in value.items())
        if isinstance(value, (list, tuple)):
            return sum(text_size(v) for v in value)
        return len(str(value))

    chars = text_size(request)
    params = request.get("params") if isinstance(request.get("params"), Mapping) else {}
    settings = {**request, **params}
    wanted = settings.get("n", 1) if str(request.get("endpoint", "")).startswith("images.") else 0
    limit = next((settings[k] for k in _OUTPUT_TOKEN_KEYS if isinstance(settings.get(k), int)), None)
    return CallHint(chars, images, int(wanted) if isinstance(wanted, int) else 1, limit)


@contextlib.contextmanager
def case_repeat(index: int) -> Iterator[None]:
    """Calls made inside are for repeat ``index`` of a case (``--eval-repeats``): a distinct cache entry."""
    token = _case_repeat.set(index)
    try:
        yield
    finally:
        _case_repeat.reset(token)


DIRECT = CallLayer()  # no cache, no shared limit: for adapters used outside a pytest run
