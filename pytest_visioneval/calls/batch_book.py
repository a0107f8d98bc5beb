"""The batch book: requests queued for provider batches, batches submitted, and what they returned.

Everything lives in files under one folder (``--eval-batch-dir``, default
``<eval-output-dir>/batches``), so it outlives the run that submitted it and
is shared by xdist workers; every change is made under one ``flock``:

* ``queue/<key>.json``   a request waiting to be submitted (``key``: its call-cache key);
* ``batches/<id>.json``  a submitted batch: where, which requests, its last known status;
* ``results/<key>.json`` a successful reply, until the call layer moves it into the cache;
* ``failed/<key>.json``  a request the batch did not answer with a reply.

The call layer asks :meth:`BatchBook.lookup` on a cache miss; a later run with
the same cases finds the replies of batches that have ended (:meth:`refresh`
reads them), so batched calls become ordinary cached calls and grading,
reports and baselines need nothing new. The custom id of a batch line is the
call's cache key.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..artifacts import exclusive_lock, write_atomic
from ..errors import BatchError
from .batch_provider import BatchProvider, OpenAIBatches
from .batch_request import Endpoint

# OpenAI's limit per batch file is 50,000 requests; a smaller default keeps files and retries small.
DEFAULT_MAX_REQUESTS = 5000


@dataclass(frozen=True)
class Found:
    """What the book knows of a request: ``state`` is result, failed, pending or queued."""

    state: str
    data: Mapping[str, Any]


class BatchBook:
    def __init__(
        self,
        root: Path,
        provider_for: Callable[[Endpoint], BatchProvider] = OpenAIBatches,
        max_requests: int = DEFAULT_MAX_REQUESTS,
    ):
        self.root = Path(root)
        self._provider_for = provider_for
        self._providers: dict[Endpoint, BatchProvider] = {}
        self.max_requests = max_requests
        self._refreshed = False
        self._thread_lock = threading.RLock()
        self._pending: dict[str, str] = {}  # key -> id of the open batch holding it
        self.problems: list[str] = []  # provider errors met while refreshing or submitting

    # -- the call layer's side ------------------------------------------------
    def lookup(self, key: str) -> Found | None:
        """Where the request ``key`` stands, reading ended batches first (once per process)."""
        self.ensure_fresh()
        for state in ("results", "failed", "queue"):
            data = _read(self.root / state / f"{key}.json")
            if data is not None:
                return Found({"results": "result", "failed": "failed", "queue": "queued"}[state], data)
        with self._thread_lock:
            batch_id = self._pending.get(key)
        if batch_id is not None:
            record = _read(self.root / "batches" / f"{batch_id}.json") or {}
            return Found("pending", {"batch": batch_id, "status": record.get("status", "unknown"), **_counts(record)})
        return None

    def enqueue(
        self,
        key: str,
        kind: str,
        model: str,
        endpoint: Endpoint,
        path: str,
        body: Mapping[str, Any],
        attempt: int,
        hold: str | None = None,
    ) -> None:
        """Queue a request; ``hold`` names its budget hold, which travels with it to its result or failure."""
        entry = {
            "key": key,
            "kind": kind,
            "model": model,
            "endpoint": {"base_url": endpoint.base_url, "api_key_env": endpoint.api_key_env},
            "path": path,
            "body": dict(body),
            "attempt": attempt,
            "queued": _now(),
            **({"hold": hold} if hold else {}),
        }
        write_atomic(self.root / "queue" / f"{key}.json", json.dumps(entry, separators=(",", ":")).encode("utf-8"))

    def mark_rejected(self, key: str) -> None:
        """The reply arrived but failed its checks: kept, so later runs see the same reply, and counted once."""
        path = self.root / "results" / f"{key}.json"
        data = _read(path)
        if data is not None:
            write_atomic(path, json.dumps({**data, "rejected": True}).encode("utf-8"))

    def forget(self, key: str, state: str) -> None:
        """Drop a result once it is in the cache, or a failure once it has been acted on."""
        folder = {"result": "results", "failed": "failed"}[state]
        (self.root / folder / f"{key}.json").unlink(missing_ok=True)

    # -- submitting -----------------------------------------------------------
    def submit_queue(self) -> list[dict[str, Any]]:
        """Submit every queued request, one batch per endpoint and path (split at ``max_requests``).

        A group that cannot be submitted stays queued, and the problem is kept in
        :attr:`problems` (and raised as :class:`BatchError` once the rest is submitted).
        """
        submitted: list[dict[str, Any]] = []
        failures: list[str] = []
        with self._locked():
            groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
            for file in sorted((self.root / "queue").glob("*.json")):
                entry = _read(file)
                if entry is None:
                    continue
                where = entry["endpoint"]
                groups.setdefault((where["base_url"], where["api_key_env"], entry["path"]), []).append(entry)
            for (base_url, key_env, path), entries in sorted(groups.items()):
                endpoint = Endpoint(base_url, key_env)
                for start in range(0, len(entries), self.max_requests):
                    chunk = entries[start : start + self.max_requests]
                    lines = [{"custom_id": e["key"], "method": "POST", "url": path, "body": e["body"]} for e in chunk]
                    try:
                        batch_id = self._provider(endpoint).submit(path, lines)
                    except Exception as exc:  # noqa: BLE001 - the SDK's or the network's: kept queued, reported
                        failures.append(f"{len(chunk)} request(s) to {base_url}{path} not submitted: {_short(exc)}")
                        continue
                    record: dict[str, Any] = {
                        "id": batch_id,
                        "endpoint": {"base_url": base_url, "api_key_env": key_env},
                        "path": path,
                        "submitted": _now(),
                        "status": "submitted",
                        "counts": {"total": len(chunk)},
                        "closed": False,
                        "requests": {e["key"]: _request_note(e) for e in chunk},
                    }
                    write_atomic(self.root / "batches" / f"{batch_id}.json", json.dumps(record, indent=1).encode("utf-8"))
                    for e in chunk:
                        (self.root / "queue" / f"{e['key']}.json").unlink(missing_ok=True)
                    with self._thread_lock:
                        self._pending.update(dict.fromkeys(record["requests"], batch_id))
                    submitted.append(_summary(record))
        if failures:
            self.problems += failures
            raise BatchError("; ".join(failures))
        return submitted

    # -- collecting -----------------------------------------------------------
    def ensure_fresh(self) -> None:
        with self._thread_lock:
            if self._refreshed:
                return
            self._refreshed = True
        self.refresh()

    def refresh(self) -> None:
        """Ask the provider about every open batch; read the results of those that ended."""
        with self._locked():
            pending: dict[str, str] = {}
            for file in sorted((self.root / "batches").glob("*.json")):
                record = _read(file)
                if record is None or record.get("closed"):
                    continue
                try:
                    self._update(record)
                except Exception as exc:  # noqa: BLE001 - a provider that cannot be reached now: ask again later
                    record["last_error"] = _short(exc)
                    self.problems.append(f"batch {record['id']}: cannot read its status: {_short(exc)}")
                write_atomic(file, json.dumps(record, indent=1).encode("utf-8"))
                if not record.get("closed"):
                    pending.update(dict.fromkeys(record["requests"], record["id"]))
            with self._thread_lock:
                self._pending = pending

    def _update(self, record: dict[str, Any]) -> None:
        provider = self._provider(Endpoint(**record["endpoint"]))
        status = provider.status(record["id"])
        record["status"], record["counts"] = status.status, {**record.get("counts", {}), **dict(status.counts)}
        record.pop("last_error", None)
        if not status.ended:
            return
        requests: dict[str, Any] = record["requests"]
        answered: set[str] = set()
        for line in provider.results(status):
            if line.custom_id not in requests or line.custom_id in answered:
                continue  # not ours, or said twice
            answered.add(line.custom_id)
            note = requests[line.custom_id]
            if line.succeeded:
                data = {"batch": record["id"], "status_code": 200, "body": line.body, **_carried(note)}
                write_atomic(self.root / "results" / f"{line.custom_id}.json", json.dumps(data).encode("utf-8"))
            else:
                self._fail(line.custom_id, record["id"], line.status_code, line.error or "no reply", note)
        why = "; ".join(status.errors) or f"the batch ended {status.status} without a reply to it"
        for key in requests.keys() - answered:
            self._fail(key, record["id"], None, why, requests[key])
        record["closed"] = True
        record["ended"] = _now()

    def _fail(self, key: str, batch_id: str, status_code: int | None, error: str, note: Mapping[str, Any]) -> None:
        data = {"batch": batch_id, "status_code": status_code, "error": error, **_carried(note)}
        write_atomic(self.root / "failed" / f"{key}.json", json.dumps(data).encode("utf-8"))

    def wait(self, deadline: float, poll: float, sleep: Callable[[float], None] = time.sleep) -> bool:
        """Refresh until no batch is open or ``deadline`` (``time.monotonic()``) passes; True when none is open."""
        while True:
            self.refresh()
            if not self.open_batches():
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            sleep(min(poll, left))

    # -- reporting ------------------------------------------------------------
    def open_batches(self) -> list[dict[str, Any]]:
        return [_summary(r) for r in self._records() if not r.get("closed")]

    def overview(self) -> dict[str, Any]:
        """Open batches, batches that ended, and requests still queued (for the results and the summary)."""
        records = self._records()
        return {
            "dir": str(self.root),
            "open": [_summary(r) for r in records if not r.get("closed")],
            "ended": [_summary(r) for r in records if r.get("closed")],
            "queued": len(list((self.root / "queue").glob("*.json"))),
            "problems": list(dict.fromkeys(self.problems)),
        }

    def _records(self) -> list[dict[str, Any]]:
        found = [_read(f) for f in sorted((self.root / "batches").glob("*.json"))]
        return sorted((r for r in found if r is not None), key=lambda r: (r.get("submitted", ""), r["id"]))

    # -- plumbing -------------------------------------------------------------
    def _provider(self, endpoint: Endpoint) -> BatchProvider:
        with self._thread_lock:
            if endpoint not in self._providers:
                self._providers[endpoint] = self._provider_for(endpoint)
            return self._providers[endpoint]

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """One process and one thread at a time changes the book."""
        with self._thread_lock, exclusive_lock(self.root / ".lock"):
            yield


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _request_note(entry: Mapping[str, Any]) -> dict[str, Any]:
    """What a batch record keeps of a queued request."""
    note = {"kind": entry["kind"], "model": entry["model"], "attempt": entry["attempt"]}
    return {**note, "hold": entry["hold"]} if entry.get("hold") else note


def _carried(note: Mapping[str, Any]) -> dict[str, Any]:
    """What a request's result or failure carries over from its note: its attempt, and its budget hold if any."""
    carried: dict[str, Any] = {"attempt": note.get("attempt", 1)}
    return {**carried, "hold": note["hold"]} if note.get("hold") else carried


def endpoint_url(base_url: str, path: str) -> str:
    """Where a batch's requests went: ``path`` against ``base_url`` without saying a shared prefix twice.

    The lines name the API's full path (``/v1/images/edits``) while the base URL often ends in that
    version already (``https://api.openai.com/v1``); the SDK resolves them to the same place.
    """
    base = base_url.rstrip("/")
    prefix = urlsplit(base).path
    if prefix and (path == prefix or path.startswith(prefix + "/")):
        base = base[: len(base) - len(prefix)]
    return base + path


def _counts(record: Mapping[str, Any]) -> dict[str, Any]:
    counts = record.get("counts") or {}
    return {"done": int(counts.get("completed", 0)) + int(counts.get("failed", 0)), "total": int(counts.get("total", 0))}


def _summary(record: Mapping[str, Any]) -> dict[str, Any]:
    kinds = sorted({r["kind"] for r in record.get("requests", {}).values()})
    return {
        "id": record["id"],
        "endpoint": endpoint_url(record["endpoint"]["base_url"], record["path"]),
        "kinds": kinds,
        "status": record.get("status"),
        "requests": len(record.get("requests", {})),
        "counts": dict(record.get("counts") or {}),
        "submitted": record.get("submitted"),
        **({"ended": record["ended"]} if record.get("ended") else {}),
        **({"last_error": record["last_error"]} if record.get("last_error") else {}),
    }


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _short(exc: BaseException, limit: int = 300) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= limit else text[:limit] + "..."
