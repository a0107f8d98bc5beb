"""Token, image, time and cost accounting per case, summed on the controller.

Each case's evaluation runs inside :func:`usage_scope`; every call made for
it (by the model or a judge, in whatever thread) is booked there, and the
totals ride to the controller in the case's record under ``usage``. Cached
calls are counted apart and cost nothing, with one exception: a case taken
over from an xdist worker that died before it reported the case (see
:func:`taking_over`) counts the calls the dead worker paid for and cached as
paid, since no record of the run counts them otherwise. Costs come from a prices file
(``--eval-prices``); a model with no price is reported as unpriced, never as
free.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import os
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# batched: calls answered inside a provider batch (also in calls); batch_failed: their failures (also in failed).
_COUNTS = ("calls", "failed", "cached", "retries", "input_tokens", "output_tokens", "images", "batched", "batch_failed")
# Token counts under the names the APIs use: Chat Completions, then Responses and Images.
_INPUT_KEYS = ("prompt_tokens", "input_tokens")
_OUTPUT_KEYS = ("completion_tokens", "output_tokens")
_PRICE_KEYS = ("input_per_million", "output_per_million", "per_image", "per_call", "batch_multiplier")
# What a request answered inside a provider batch costs, as a share of its direct price (OpenAI, Anthropic
# and Gemini all sell batches at half price); a model's own ``batch_multiplier`` overrides it.
DEFAULT_BATCH_MULTIPLIER = 0.5


@dataclass(frozen=True)
class Prices:
    """USD per million input/output tokens, per image and per call, by model name (``openai:gpt-4o``).

    ``batch_multiplier`` (default 0.5) is the share of those prices a request answered inside a provider batch costs.
    """

    table: Mapping[str, Mapping[str, float]] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> Prices:
        """Read a YAML or JSON mapping ``model -> {input_per_million, output_per_million, per_image, per_call}``."""
        import yaml  # only a run given --eval-prices reads a prices file

        data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
        if not isinstance(data, dict):
            raise ValueError(f"{path}: expected a mapping of model name to prices")
        table: dict[str, dict[str, float]] = {}
        for model, prices in data.items():
            if not isinstance(prices, dict) or not set(prices) <= set(_PRICE_KEYS):
                raise ValueError(f"{path}: prices of {model!r} must be a mapping with keys among {', '.join(_PRICE_KEYS)}")
            try:
                table[str(model)] = {k: float(v) for k, v in prices.items()}
            except (TypeError, ValueError):  # e.g. an empty value (None): a ValueError, which --eval-prices reports
                raise ValueError(f"{path}: prices of {model!r} must be numbers, got {prices!r}") from None
        return cls(table)

    def cost(self, model: str, input_tokens: int, output_tokens: int, images: int, *, batched: bool = False) -> float | None:
        price = self.table.get(model)
        if price is None:
            return None
        direct = (
            input_tokens * price.get("input_per_million", 0.0) / 1e6
            + output_tokens * price.get("output_per_million", 0.0) / 1e6
            + images * price.get("per_image", 0.0)
            + price.get("per_call", 0.0)
        )
        return direct * self.batch_multiplier(model) if batched else direct

    def batch_multiplier(self, model: str) -> float:
        return float(self.table.get(model, {}).get("batch_multiplier", DEFAULT_BATCH_MULTIPLIER))


def _tokens(usage: Mapping[str, Any], keys: tuple[str, ...]) -> int:
    for key in keys:
        value = usage.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return int(value)
    return 0


def _empty() -> dict[str, Any]:
    return {**{k: 0 for k in _COUNTS}, "seconds": 0.0, "cost": 0.0, "unpriced": []}


class CaseUsage:
    """What one case spent, per kind of call (``model``, ``judge``). Thread-safe."""

    def __init__(self) -> None:
        # Processes (pids) of this run that died evaluating this case before reporting it (see taking_over).
        self.unreported_pids: frozenset[int] = _taken_over.get()
        self._lock = threading.Lock()
        self.kinds: dict[str, dict[str, Any]] = {}
        self._judges: dict[str, list[dict[str, Any]]] = {}  # judge name -> its distinct provenances

    def note_judge(self, name: str, provenance: Mapping[str, Any]) -> None:
        """Which judge answered, and how it was asked (see :func:`judge_provenance`)."""
        with self._lock:
            seen = self._judges.setdefault(name, [])
            if dict(provenance) not in seen:
                seen.append(dict(provenance))

    def judges(self) -> dict[str, list[dict[str, Any]]]:
        with self._lock:
            return {name: [dict(p) for p in seen] for name, seen in sorted(self._judges.items())}

    def paid_unreported(self, paid_by: Any) -> bool:
        """Whether a cache entry, paid for by ``paid_by`` (``{"pid": ...}``), is a call no record of this run counts."""
        return isinstance(paid_by, Mapping) and paid_by.get("pid") in self.unreported_pids

    def _kind(self, kind: str) -> dict[str, Any]:
        return self.kinds.setdefault(kind, _empty())

    def book(
        self, kind: str, model: str, usage: Mapping[str, Any], prices: Prices, *, cached: bool, batched: bool = False
    ) -> float | None:
        """Count one call; its cost (None: cached, or the model has no price)."""
        with self._lock:
            entry = self._kind(kind)
            if cached:
                entry["cached"] += 1
                return None
            inputs, outputs = _tokens(usage, _INPUT_KEYS), _tokens(usage, _OUTPUT_KEYS)
            images = int(usage.get("images", 0) or 0)
            entry["calls"] += 1
            entry["batched"] += int(batched)
            entry["input_tokens"] += inputs
            entry["output_tokens"] += outputs
            entry["images"] += images
            cost = prices.cost(model, inputs, outputs, images, batched=batched)
            if cost is None:
                if model not in entry["unpriced"]:
                    entry["unpriced"].append(model)
            else:
                entry["cost"] += cost
            return cost

    def failed_request(self, kind: str, *, batched: bool = False) -> None:
        """A request that brought no usable reply (an error status, a timeout, a rejected reply): still a call."""
        with self._lock:
            entry = self._kind(kind)
            entry["calls"] += 1
            entry["failed"] += 1
            entry["batched"] += int(batched)
            entry["batch_failed"] += int(batched)

    def retried(self, kind: str) -> None:
        with self._lock:
            self._kind(kind)["retries"] += 1

    def add_seconds(self, kind: str, seconds: float) -> None:
        with self._lock:
            self._kind(kind)["seconds"] += seconds

    def as_dict(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            return {
                kind: {**v, "seconds": round(v["seconds"], 6), "cost": round(v["cost"], 8), "unpriced": list(v["unpriced"])}
                for kind, v in sorted(self.kinds.items())
            }


_taken_over: contextvars.ContextVar[frozenset[int]] = contextvars.ContextVar("visioneval_taken_over", default=frozenset())
_UNATTRIBUTED = CaseUsage()  # calls made outside any case (e.g. from a plain Python test)
_current: contextvars.ContextVar[CaseUsage] = contextvars.ContextVar("visioneval_usage", default=_UNATTRIBUTED)


def current_usage() -> CaseUsage:
    return _current.get()


@contextlib.contextmanager
def usage_scope(usage: CaseUsage | None = None) -> Iterator[CaseUsage]:
    """Book every call made in this context (this thread) to one case."""
    book = usage or CaseUsage()
    token = _current.set(book)
    try:
        yield book
    finally:
        _current.reset(token)


@contextlib.contextmanager
def taking_over(dead_pid: int | None) -> Iterator[None]:
    """Cases evaluated inside take over from ``dead_pid``, a worker of this run that died before reporting them.

    What that worker paid for and cached is then booked as paid (:meth:`CaseUsage.paid_unreported`):
    its own usage of the case was lost with it. (Its calls still in flight when it died reached the
    server but no cache; nothing on this side can count them.)
    """
    if dead_pid is None:
        yield
        return
    token = _taken_over.set(_taken_over.get() | {dead_pid})
    try:
        yield
    finally:
        _taken_over.reset(token)


def paid_by() -> dict[str, int]:
    """Who pays for a call made now, as a cache entry records it (see :func:`taking_over`)."""
    return {"pid": os.getpid()}


def merge_usage(first: Mapping[str, Any], second: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Two case usages (``CaseUsage.as_dict()``) added up, kind by kind (a case evaluated in several rounds)."""
    merged: dict[str, dict[str, Any]] = {}
    for usage in (first, second):
        for kind, v in usage.items():
            entry = merged.setdefault(kind, _empty())
            for key in _COUNTS:
                entry[key] += int(v.get(key, 0))
            entry["seconds"] = round(entry["seconds"] + float(v.get("seconds", 0.0)), 6)
            entry["cost"] = round(math.fsum((entry["cost"], float(v.get("cost", 0.0)))), 8)
            entry["unpriced"] = sorted(set(entry["unpriced"]) | set(v.get("unpriced", ())))
    return dict(sorted(merged.items()))


def merge_round_usage(earlier: Mapping[str, Any], latest: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """A case's usage over batch rounds: ``earlier`` (the rounds so far, merged) and the ``latest`` round.

    Each round evaluates the case from the start, so its cache hits include the calls earlier rounds made
    (``calls - failed`` of them succeeded and were cached): those are not counted as cached again.
    """
    merged = merge_usage(earlier, latest)
    for kind, entry in merged.items():
        before, now = earlier.get(kind, {}), latest.get(kind, {})
        made_before = int(before.get("calls", 0)) - int(before.get("failed", 0))
        entry["cached"] = max(0, int(now.get("cached", 0)) - made_before)
    return merged


def total_usage(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Sum the ``usage`` of every case record, per kind and overall."""
    kinds: dict[str, dict[str, Any]] = {}
    for record in sorted(records, key=lambda r: (r.get("uid", ""), r.get("nodeid", ""))):
        for kind, v in (record.get("usage") or {}).items():
            entry = kinds.setdefault(kind, _empty())
            for key in _COUNTS:
                entry[key] += int(v.get(key, 0))
            entry["seconds"] = math.fsum((entry["seconds"], float(v.get("seconds", 0.0))))
            entry["cost"] = math.fsum((entry["cost"], float(v.get("cost", 0.0))))
            entry["unpriced"] = sorted(set(entry["unpriced"]) | set(v.get("unpriced", ())))
    overall = _empty()
    for v in kinds.values():
        for key in _COUNTS:
            overall[key] += v[key]
        overall["seconds"] += v["seconds"]
        overall["cost"] += v["cost"]
        overall["unpriced"] = sorted(set(overall["unpriced"]) | set(v["unpriced"]))
    return {"kinds": dict(sorted(kinds.items())), "total": overall}


def judge_provenance(records: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per judge, over the run's cases: each provenance field's distinct values (one value: the judge did not vary).

    ``served_by`` lists the model ids the API answered with; ``instructions_sha256``
    the instructions' hashes (one per grader kind that asked).
    """
    found: dict[str, dict[str, list[Any]]] = {}
    for record in records:
        for name, provenances in (record.get("judges") or {}).items():
            fields = found.setdefault(name, {})
            for provenance in provenances:
                for key, value in provenance.items():
                    values = fields.setdefault(key, [])
                    if value not in values:
                        values.append(value)
    return {
        name: {key: sorted(values, key=lambda v: (v is None, str(v))) for key, values in sorted(fields.items())}
        for name, fields in sorted(found.items())
    }
