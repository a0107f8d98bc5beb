"""An HTTP client for the SDK whose requests take their concurrency slot on the wire only.

The call layer could hold a slot around the whole SDK call, but the SDK builds
the request and parses the reply in Python (tens of milliseconds under load),
and a slot held meanwhile is a request the server is not serving. This
transport takes the slot when the request is sent and gives it back once the
reply's body has been read, so ``--eval-concurrency`` counts requests on the
wire, which is what a provider's rate limit counts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .concurrency import RunConcurrency

if TYPE_CHECKING:
    import httpx2


def client_with_slots(limit: RunConcurrency, timeout: float) -> httpx2.Client:
    """The SDK's default HTTP client, its requests limited by ``limit``."""
    import httpx2
    import openai

    class SlotTransport(httpx2.BaseTransport):
        def __init__(self) -> None:
            # No pool limit of its own: the slots are the limit (a pool smaller than them would queue
            # requests that already hold a slot).
            self._inner = httpx2.HTTPTransport(limits=httpx2.Limits(max_connections=None, max_keepalive_connections=None))

        def handle_request(self, request: httpx2.Request) -> httpx2.Response:
            with limit.slot():
                response = self._inner.handle_request(request)
                try:
                    response.read()
                except BaseException:
                    response.close()
                    raise
                return response

        def close(self) -> None:
            self._inner.close()

    client: Any = openai.DefaultHttpxClient(transport=SlotTransport(), timeout=timeout)
    return client  # type: ignore[no-any-return]
