"""Talking to a provider's batch service: submit a file of requests, ask how it is going, read its results.

:class:`BatchProvider` is what the batch book (:mod:`batch_book`) needs of a
provider; :class:`OpenAIBatches` implements it with the OpenAI files and
batches endpoints, which OpenAI-compatible servers (and the local test
server) speak too. Another provider (Anthropic's message batches, Gemini's
batch mode) would be a second implementation of the same three methods.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..errors import BatchError
from .batch_request import Endpoint

# A batch has ended when its status is one of these; its results can then be read.
TERMINAL = frozenset({"completed", "failed", "expired", "cancelled"})


@dataclass(frozen=True)
class BatchStatus:
    status: str
    counts: Mapping[str, int] = field(default_factory=dict)  # total, completed, failed
    output_file: str | None = None
    error_file: str | None = None
    errors: tuple[str, ...] = ()  # why the provider refused the batch as a whole

    @property
    def ended(self) -> bool:
        return self.status in TERMINAL


@dataclass(frozen=True)
class LineResult:
    """One request's result from an ended batch: a reply body (any status), or an error with no reply."""

    custom_id: str
    status_code: int | None
    body: Mapping[str, Any] | None
    error: str | None = None

    @property
    def succeeded(self) -> bool:
        return self.status_code == 200 and self.body is not None


class BatchProvider(Protocol):
    def submit(self, path: str, lines: Sequence[Mapping[str, Any]]) -> str:
        """Upload the lines (``custom_id``, ``method``, ``url``, ``body``) and start a batch; its id."""
        ...

    def status(self, batch_id: str) -> BatchStatus: ...

    def results(self, status: BatchStatus) -> Iterator[LineResult]:
        """Every line the ended batch answered, successful or not."""
        ...


class OpenAIBatches:
    """The files + batches endpoints of an OpenAI-compatible API, through the ``openai`` SDK."""

    def __init__(self, endpoint: Endpoint, timeout: float = 600.0):
        key = os.environ.get(endpoint.api_key_env)
        if not key:
            raise BatchError(f"no API key for batches at {endpoint.base_url}: set {endpoint.api_key_env}")
        import openai

        # Few, idempotent-enough management calls: the SDK's own retries are fine here.
        self.client = openai.OpenAI(api_key=key, base_url=endpoint.base_url, timeout=timeout, max_retries=3)

    def submit(self, path: str, lines: Sequence[Mapping[str, Any]]) -> str:
        data = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines).encode("utf-8")
        uploaded = self.client.files.create(file=("visioneval-batch.jsonl", data), purpose="batch")
        batch = self.client.batches.create(
            input_file_id=uploaded.id,
            endpoint=path,  # type: ignore[arg-type]  # any path the provider accepts
            completion_window="24h",
            metadata={"made_by": "pytest-visioneval"},
        )
        return str(batch.id)

    def status(self, batch_id: str) -> BatchStatus:
        batch = self.client.batches.retrieve(batch_id)
        counts = batch.request_counts.model_dump() if batch.request_counts is not None else {}
        errors = tuple(
            f"line {e.line}: {e.message}" if e.line is not None else str(e.message)
            for e in ((batch.errors.data or []) if batch.errors is not None else [])
        )
        return BatchStatus(batch.status, counts, batch.output_file_id, batch.error_file_id, errors)

    def results(self, status: BatchStatus) -> Iterator[LineResult]:
        for file_id in (status.output_file, status.error_file):
            if file_id:
                yield from parse_result_lines(self.client.files.content(file_id).text)


def parse_result_lines(text: str) -> Iterator[LineResult]:
    """The lines of a batch output or error file (unreadable lines are skipped: they name no request)."""
    for raw in text.splitlines():
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(line, dict) or not isinstance(line.get("custom_id"), str):
            continue
        response = line.get("response") if isinstance(line.get("response"), dict) else None
        error = line.get("error") if isinstance(line.get("error"), dict) else None
        status_code = response.get("status_code") if response else None
        body = response.get("body") if response and isinstance(response.get("body"), dict) else None
        message = None
        if error is not None:
            message = f"{error.get('code') or 'error'}: {error.get('message') or ''}".strip()
        elif response is not None and body is None:
            raw = json.dumps(response.get("body"))
            message = f"the reply body is not a JSON object: {raw[:160]}" + ("..." if len(raw) > 160 else "")
        elif body is not None and status_code != 200:
            detail = body.get("error") if isinstance(body.get("error"), dict) else {}
            message = f"HTTP {status_code}: {detail.get('message') or json.dumps(body)[:200]}"
        yield LineResult(line["custom_id"], status_code if isinstance(status_code, int) else None, body, message)
