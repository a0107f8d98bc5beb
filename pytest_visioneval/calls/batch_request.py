"""A call described so it can travel in a provider batch file instead of being sent now.

An adapter that supports batching hands the call layer, next to its direct
``run`` function, a :class:`BatchRequest`: the endpoint path, a function
making the JSON body (called only when the request is queued: building it may
encode images), and a function turning the body of the provider's reply into
the same :class:`~pytest_visioneval.calls.layer.CallResult` the direct call
returns. Checks on the reply (no image, a judge reply that fails its schema)
run in that function, so a batched reply is judged exactly like a direct one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Endpoint:
    """Where batches for a call go: the API's base URL and the environment variable holding its key (never the key)."""

    base_url: str
    api_key_env: str


@dataclass(frozen=True)
class BatchRequest:
    endpoint: Endpoint
    path: str  # the API path a batch line names, e.g. /v1/chat/completions
    body: Callable[[], Mapping[str, Any]]
    parse: Callable[[Mapping[str, Any]], Any]  # -> the layer's CallResult (not imported: the layer imports this)


def sdk_reply(reply_type: type[T], body: Mapping[str, Any]) -> T:
    """The SDK's reply object made from a batch line's body, as leniently as the SDK makes it from an HTTP reply.

    (Strict validation would refuse replies the SDK accepts, e.g. a server that leaves out a usage detail.)
    """
    return reply_type.construct(**body)  # type: ignore[attr-defined,no-any-return]
