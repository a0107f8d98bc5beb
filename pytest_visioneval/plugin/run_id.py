"""One id per run, chosen on the controller and handed to xdist workers."""

from __future__ import annotations

import secrets
from datetime import datetime, timezone

import pytest

run_id_key = pytest.StashKey[str]()
WORKERINPUT_KEY = "visioneval_run_id"


def new_run_id() -> str:
    """Sortable by time, unique by a random suffix: ``20261122-113045-3fa2``."""
    return datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(2)


def resolve_run_id(config: pytest.Config, requested: str | None) -> str:
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and WORKERINPUT_KEY in workerinput:
        return str(workerinput[WORKERINPUT_KEY])
    return requested or new_run_id()
