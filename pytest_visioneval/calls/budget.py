"""A spending ledger for ``--eval-max-cost``, shared by every process and thread of one run.

Before a priced call is made, the caller asks :meth:`BudgetLedger.estimate`
what it will probably cost, then :meth:`BudgetLedger.reserve` holds that much
of the budget. When the call ends, :meth:`BudgetLedger.settle` drops the hold
and books what the call really cost (or :meth:`BudgetLedger.release` drops it
when the call was never made). A call is only made while
``spent + held + estimate <= limit``; the first refusal stops the run's new
calls for good (see :meth:`BudgetLedger.reserve`).

Sharing. With a ``path``, the ledger lives in one JSON file that the pytest
controller and every xdist worker open. Each operation reads, changes and
rewrites the whole file while holding an exclusive ``flock`` on a lock file
beside it (``<path>.lock``), and while holding a ``threading.Lock`` so that
the threads of one process queue up before they compete for the file. The
lock file is opened afresh for each operation, so a forked child never shares
a locked file description with its parent, and the kernel drops the lock of a
process that dies. The data file is replaced by rename (:func:`write_atomic`),
so it is never seen half written. Without a ``path`` the ledger is kept in
memory and covers this process only.

A damaged file. A missing or empty file is a fresh ledger. A file that
cannot be read back (not JSON, not the expected fields and types, another
format version) is also treated as a fresh ledger, because refusing every
call of the run over a broken bookkeeping file would be worse than losing
the tally; but never quietly: the file is moved aside to ``<path>.damaged``
for inspection and a :class:`BudgetFileWarning` says so. Since the file is
only ever replaced whole, this takes a disk fault or a stray writer.

Holds that are never settled. If a process dies between ``reserve`` and
``settle``, its hold stays in the file until the run ends. The call may have
been billed before the process died, so counting the hold as spent is the
safe side to err on.
"""

from __future__ import annotations

import contextlib
import copy
import json
import math
import os
import threading
import uuid
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..artifacts import exclusive_lock, write_atomic
from .usage import Prices

# A token is about four characters of English text (OpenAI's rule of thumb); the
# count is rounded up.
CHARS_PER_TOKEN = 4
# Tokens assumed for each image sent. The large end of what the common vision
# APIs bill for one image: GPT-4o at high detail bills 85 + 170 per 512 px tile,
# 1,445 tokens for the largest (768 x 2048, eight tiles) image it keeps;
# Claude bills width * height / 750, about 1,600 tokens for the ~1.15
# megapixel image it scales big ones down to. Screenshots of pages are tall
# and large, so the top of the range is the likely case, not the worst one.
INPUT_IMAGE_TOKENS = 1600
# Output tokens assumed when the request sets no max_output_tokens: a long
# text answer (a whole HTML page, say), well above a typical short reply.
DEFAULT_OUTPUT_TOKENS = 4096
# And, on top of that, for each image asked for: gpt-image-1 bills a
# generated image as output tokens, 6,240 for a high-quality 1536 x 1024
# (or 1024 x 1536) image, its most expensive size. A model priced per image
# instead has an output price that this barely touches.
OUTPUT_IMAGE_TOKENS = 6240
# Sums of float amounts drift by a few ulps; a reservation that fits the
# limit up to a billionth of a dollar is taken to fit.
FLOAT_SLACK = 1e-9

_FORMAT_VERSION = 1


class BudgetFileWarning(RuntimeWarning):
    """The ledger file could not be read back; it was moved aside and the ledger started afresh."""


@dataclass(frozen=True)
class Reservation:
    """Budget held for one call until it is settled or released."""

    model: str
    amount: float  # USD held for this call until it is settled
    multiplier: float = 1.0  # the price multiplier the call is billed at (batch calls: a fraction)
    key: str = field(default_factory=lambda: uuid.uuid4().hex)  # names the hold in the ledger


@dataclass(frozen=True)
class CallHint:
    """What is known of a call before it is made, for a first estimate."""

    input_chars: int = 0  # size of the request's text (a token is ~CHARS_PER_TOKEN characters)
    input_images: int = 0  # images sent, INPUT_IMAGE_TOKENS each
    output_images: int = 0  # images asked for (n)
    max_output_tokens: int | None = None  # None: DEFAULT_OUTPUT_TOKENS + OUTPUT_IMAGE_TOKENS per image asked for

    def __post_init__(self) -> None:
        for name in ("input_chars", "input_images", "output_images", "max_output_tokens"):
            value = getattr(self, name)
            if value is None and name == "max_output_tokens":
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"CallHint.{name} must be a non-negative integer, got {value!r}")

    def input_tokens(self) -> int:
        return math.ceil(self.input_chars / CHARS_PER_TOKEN) + self.input_images * INPUT_IMAGE_TOKENS

    def output_tokens(self) -> int:
        if self.max_output_tokens is not None:
            return self.max_output_tokens
        return DEFAULT_OUTPUT_TOKENS + self.output_images * OUTPUT_IMAGE_TOKENS


def _amount(value: Any, what: str) -> float:
    """A sum of money: a finite, non-negative number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ValueError(f"{what} must be a finite, non-negative number of USD, got {value!r}")
    return float(value)


def _multiplier(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"the price multiplier must be a finite positive number, got {value!r}")
    return float(value)


def _multiplier_key(multiplier: float) -> str:
    return repr(float(multiplier))  # 1 -> "1.0", 0.5 -> "0.5": JSON object keys are strings


def _fresh() -> dict[str, Any]:
    return {"spent": 0.0, "holds": {}, "calls": {}, "exhausted": False, "refused": 0}


def _tally() -> dict[str, Any]:
    return {"count": 0, "cost": 0.0}


def _count(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{what} is not a count: {value!r}")
    return value


def _mapping(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{what} is not an object")
    return value


def _parse(raw: Any) -> dict[str, Any]:
    """The ledger in a file's JSON, checked field by field; ValueError names the first thing wrong."""
    raw = _mapping(raw, "the file")
    if raw.get("version") != _FORMAT_VERSION:
        raise ValueError(f"format version {raw.get('version')!r}, expected {_FORMAT_VERSION}")
    if not isinstance(raw.get("exhausted"), bool):
        raise ValueError("'exhausted' is not true or false")
    holds = {}
    for key, hold in _mapping(raw.get("holds"), "'holds'").items():
        hold = _mapping(hold, f"hold {key}")
        if not isinstance(hold.get("model"), str):
            raise ValueError(f"hold {key} names no model")
        holds[key] = {
            "model": hold["model"],
            "amount": _amount(hold.get("amount"), f"hold {key}'s amount"),
            "multiplier": _multiplier(hold.get("multiplier")),
        }
    calls = {}
    for model, entry in _mapping(raw.get("calls"), "'calls'").items():
        entry = _mapping(entry, f"calls of {model}")
        by_multiplier = {}
        for key, tally in _mapping(entry.get("by_multiplier"), f"calls of {model} by multiplier").items():
            tally = _mapping(tally, f"calls of {model} at {key}")
            by_multiplier[key] = {
                "count": _count(tally.get("count"), f"count of {model} at {key}"),
                "cost": _amount(tally.get("cost"), f"cost of {model} at {key}"),
            }
        calls[model] = {
            "count": _count(entry.get("count"), f"count of {model}"),
            "cost": _amount(entry.get("cost"), f"cost of {model}"),
            "unbilled": _count(entry.get("unbilled"), f"unbilled calls of {model}"),
            "by_multiplier": by_multiplier,
        }
    return {
        "spent": _amount(raw.get("spent"), "'spent'"),
        "holds": holds,
        "calls": calls,
        "exhausted": raw["exhausted"],
        "refused": _count(raw.get("refused"), "'refused'"),
    }


def _held(data: dict[str, Any]) -> float:
    return math.fsum(hold["amount"] for hold in data["holds"].values())


class BudgetLedger:
    """The run's spending against ``limit`` USD (see the module's docstring for how it is shared)."""

    def __init__(self, limit: float, path: Path | None):
        self.limit = _amount(limit, "the cost limit")
        self.path = Path(path) if path is not None else None
        self._thread_lock = threading.Lock()
        self._memory = _fresh()  # the ledger itself when there is no path
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._lock_path = self.path.with_name(self.path.name + ".lock")

    # -- the ledger's operations ------------------------------------------------

    def reserve(self, model: str, estimate: float, *, multiplier: float = 1.0) -> Reservation | None:
        """Hold ``estimate`` USD for one call if ``spent + held + estimate <= limit``; else None.

        Once one reservation has been refused, the ledger is exhausted for the
        whole run: every later reserve() is refused too, in every process, even
        one that would fit. New calls stop; the run does not skip the expensive
        calls and go on with cheap ones. ``multiplier`` is the price multiplier
        the call is billed at (the one given to :meth:`estimate`); the settled
        cost is averaged per model and multiplier.
        """
        amount = _amount(estimate, "the estimate")
        multiplier = _multiplier(multiplier)
        with self._locked(write=True) as data:
            total = math.fsum((data["spent"], _held(data), amount))
            if data["exhausted"] or total > self.limit + FLOAT_SLACK:
                data["exhausted"] = True
                data["refused"] += 1
                return None
            reservation = Reservation(model, amount, multiplier)
            data["holds"][reservation.key] = {"model": model, "amount": amount, "multiplier": multiplier}
            return reservation

    def settle(self, reservation: Reservation, actual: float | None) -> None:
        """The call ended: release the hold and book the actual cost.

        ``None`` or 0: the call cost nothing or failed unbilled; it is counted
        as unbilled and left out of the model's mean, which would otherwise
        drift low. A cost is booked even when the hold is no longer in the
        ledger (already settled, or lost with a damaged file): the money was
        spent either way.
        """
        cost = 0.0 if actual is None else _amount(actual, "the actual cost")
        with self._locked(write=True) as data:
            data["holds"].pop(reservation.key, None)
            entry = data["calls"].setdefault(reservation.model, {**_tally(), "unbilled": 0, "by_multiplier": {}})
            if cost == 0:
                entry["unbilled"] += 1
                return
            data["spent"] = math.fsum((data["spent"], cost))
            tally = entry["by_multiplier"].setdefault(_multiplier_key(reservation.multiplier), _tally())
            for booked in (entry, tally):
                booked["count"] += 1
                booked["cost"] = math.fsum((booked["cost"], cost))

    def release(self, reservation: Reservation) -> None:
        """The call was not made after all: drop its hold, book nothing."""
        with self._locked(write=True) as data:
            data["holds"].pop(reservation.key, None)

    def estimate(self, model: str, prices: Prices, hint: CallHint, multiplier: float = 1.0) -> float | None:
        """The expected cost in USD of the next call of ``model``, billed at ``multiplier`` times the prices.

        When this run has settled billed calls of ``model`` at the same
        multiplier (in any process), their mean actual cost: that is money
        already billed, so the multiplier is not applied again. Batched and
        direct calls of a model are averaged apart for that reason.

        Otherwise a first estimate from the prices and the hint::

            (per_call + output_images * per_image
             + input_tokens * input_per_million / 1e6
             + output_tokens * output_per_million / 1e6) * multiplier

        with ``input_tokens = ceil(input_chars / CHARS_PER_TOKEN) +
        input_images * INPUT_IMAGE_TOKENS`` and ``output_tokens =
        max_output_tokens``, or when that is not set ``DEFAULT_OUTPUT_TOKENS
        + output_images * OUTPUT_IMAGE_TOKENS``. These are deliberately
        generous: over-estimating stops a run a call early, under-estimating
        lets it spend past its limit, so the first is the side to err on. The
        mean of real calls replaces the guess as soon as one is settled.

        None when ``model`` has no price: no budget can be held for it.
        """
        multiplier = _multiplier(multiplier)
        if model not in prices.table:
            return None
        with self._locked(write=False) as data:
            tally = data["calls"].get(model, {}).get("by_multiplier", {}).get(_multiplier_key(multiplier))
            if tally and tally["count"]:
                return float(tally["cost"] / tally["count"])
        cost = prices.cost(model, hint.input_tokens(), hint.output_tokens(), hint.output_images)
        assert cost is not None  # the model is in the table
        return cost * multiplier

    def state(self) -> dict[str, Any]:
        """``{"limit", "spent", "held", "open", "calls", "exhausted", "refused"}``.

        ``open`` is the number of holds not yet settled or released; ``calls``
        maps each model to ``{"count", "cost", "unbilled", "by_multiplier"}``,
        where ``count`` and ``cost`` cover billed calls, ``unbilled`` counts
        those settled at no cost, and ``by_multiplier`` splits the billed ones
        by price multiplier (``"1.0"``, ``"0.5"``).
        """
        with self._locked(write=False) as data:
            return {
                "limit": self.limit,
                "spent": data["spent"],
                "held": _held(data),
                "open": len(data["holds"]),
                "calls": copy.deepcopy(data["calls"]),
                "exhausted": data["exhausted"],
                "refused": data["refused"],
            }

    # -- storage ---------------------------------------------------------------

    @contextlib.contextmanager
    def _locked(self, *, write: bool) -> Iterator[dict[str, Any]]:
        """The ledger's data, exclusively: changes made to it are saved when the block ends normally."""
        with self._thread_lock:
            if self.path is None:
                yield self._memory
                return
            with exclusive_lock(self._lock_path):
                data, repaired = self._read(self.path)
                yield data
                if write or repaired:
                    self._write(self.path, data)

    def _read(self, path: Path) -> tuple[dict[str, Any], bool]:
        """The file's ledger, and whether it had to be set aside as damaged (the caller then saves a fresh one)."""
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return _fresh(), False
        if not raw.strip():
            return _fresh(), False
        try:
            return _parse(json.loads(raw)), False
        except (ValueError, RecursionError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
            aside = path.with_name(path.name + ".damaged")
            os.replace(path, aside)
            warnings.warn(
                BudgetFileWarning(
                    f"the cost ledger {path} could not be read ({exc}); it was moved to {aside.name} and "
                    "the run's spending is counted afresh from here, so this run may spend more than --eval-max-cost"
                ),
                stacklevel=5,  # _read, _locked, contextlib, the ledger operation, its caller
            )
            return _fresh(), True

    def _write(self, path: Path, data: dict[str, Any]) -> None:
        document = {
            "version": _FORMAT_VERSION,
            "limit": self.limit,  # for a reader's benefit; each process keeps its own
            "spent": data["spent"],
            "held": _held(data),  # likewise: recomputed from the holds on reading
            "holds": data["holds"],
            "calls": data["calls"],
            "exhausted": data["exhausted"],
            "refused": data["refused"],
        }
        write_atomic(path, json.dumps(document, indent=1, sort_keys=True).encode("utf-8"))
