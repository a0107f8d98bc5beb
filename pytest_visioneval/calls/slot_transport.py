"""An HTTP client for the SDK whose requests take their concurrency slot on the wire only.

The call layer could hold a slot around the whole SDK call, but the SDK builds
the request and parses the reply in Python (tens of milliseconds under load),
and a slot held meanwhile is a request the server is not serving. This
transport takes the slot when the request is sent and gives it back once the
reply's body has been read, so ``--eval-concurrency`` counts requests on the
wire, which is what a provider's rate limit counts.

Each slot index has its own connection pool (one kept-alive connection per
endpoint): a request never shares a pool with another request in flight. One
pool for all the slots looks through every connection it holds to place each
request and to drop expired ones, so at 128 slots every request walked 128
connections: a third of the client's CPU in a profile at that limit
(docs/throughput-log.md, sixth sitting).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from .concurrency import RunConcurrency
from .once import once
from .turn import turn_released

if TYPE_CHECKING:
    import ssl

    import httpx2


@once
def shared_ssl_context() -> ssl.SSLContext:
    """The TLS context every slot's pool of every client in this process uses.

    Made once (:func:`once`: not once per case thread that asks while the first is still making it): it loads
    the trust store (30-120 ms here). The SDK preload makes it on its thread, so the first request does not
    wait for it.
    """
    import httpx2

    return httpx2.create_ssl_context()


def client_with_slots(limit: RunConcurrency, timeout: float) -> httpx2.Client:
    """The SDK's default HTTP client, its requests limited by ``limit``, one connection pool per slot."""
    import httpx2
    import openai

    ssl_context = shared_ssl_context()  # before any slot is taken

    class SlotTransport(httpx2.BaseTransport):
        def __init__(self) -> None:
            self._pools: dict[int, httpx2.HTTPTransport] = {}
            self._lock = threading.Lock()

        def _pool(self, index: int) -> httpx2.HTTPTransport:
            pool = self._pools.get(index)
            if pool is None:
                with self._lock:
                    pool = self._pools.setdefault(index, httpx2.HTTPTransport(verify=ssl_context))
            return pool

        def handle_request(self, request: httpx2.Request) -> httpx2.Response:
            # The turn is let go while the request waits for a slot and is on the wire (calls/turn.py).
            with turn_released(), limit.slot() as index:
                response = self._pool(index).handle_request(request)
                try:
                    response.read()
                except BaseException:
                    response.close()
                    raise
                return response

        def close(self) -> None:
            with self._lock:
                pools, self._pools = list(self._pools.values()), {}
            for pool in pools:
                pool.close()

    client: Any = openai.DefaultHttpxClient(transport=SlotTransport(), timeout=timeout)
    return client  # type: ignore[no-any-return]
