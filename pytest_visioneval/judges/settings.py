"""How the judges are reached: endpoint, key, retries, reply format, image limits.

Apart from the client (``client.py``) so that building a run's settings (every
pytest process with the plugin, an xdist controller too) does not load the
client, its call plumbing and its reply readers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .content import DEFAULT_MAX_IMAGES, DEFAULT_MAX_SIDE

if TYPE_CHECKING:
    from ..calls.layer import CallLayer

RESPONSE_FORMATS = ("json_schema", "json_object", "none")


@dataclass(frozen=True)
class JudgeSettings:
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 120.0
    max_retries: int = 2  # API-level retries (the SDK's)
    reply_retries: int = 2  # asking again after a reply that does not parse
    response_format: str = "json_schema"
    max_side: int = DEFAULT_MAX_SIDE
    max_images: int = DEFAULT_MAX_IMAGES
    temperature: float | None = 0.0
    seed: int | None = None  # sent as seed + the judge repeat's index
    calls: CallLayer | None = field(default=None, compare=False)  # the run's call layer
