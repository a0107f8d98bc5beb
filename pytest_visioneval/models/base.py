"""The model protocol: a case goes in, artifacts come out."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..artifacts import ModelOutput
from ..calls.layer import CallLayer
from ..cases.spec import CaseSpec


@dataclass(frozen=True)
class ModelSettings:
    """Connection settings shared by every model adapter of a run."""

    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 120.0
    max_retries: int = 2
    openai_api: str = "chat"  # "chat" (Chat Completions) or "responses", for text/HTML tasks
    # The run's call layer (cache, concurrency, retries, usage); None outside a run.
    calls: CallLayer | None = field(default=None, compare=False)


@runtime_checkable
class Model(Protocol):
    """What ``--model`` resolves to.

    ``name`` is the full ``--model`` string (it names the output folder and
    the snapshots). ``generate`` must raise :class:`~pytest_visioneval.errors.ModelError`
    when it cannot produce an output; anything it returns is graded.

    Optional: ``waits_only_in_calls = True`` says that every wait of
    ``generate`` is a call through the run's call layer (``settings.calls``), so
    a case whose calls are all cached is evaluated without a hand-over to a
    background thread (see :mod:`pytest_visioneval.calls.waiting`). Leave it out when
    the model waits for anything else (a subprocess, its own HTTP client).
    """

    name: str

    def generate(self, case: CaseSpec, params: Mapping[str, Any]) -> ModelOutput: ...


# A factory gets the part of ``--model`` after the first ':' (may be empty).
ModelFactory = Callable[[str, ModelSettings], Model]
