"""Split a run deterministically across CI jobs: ``--eval-shard K/N``.

An item belongs to shard ``hash(node id) mod N``: every job computes the same
split with no coordination, and adding a case moves no other case. (Hash
splitting balances by count on average, not exactly; merge the shards'
results with ``python -m pytest_visioneval merge``.)
"""

from __future__ import annotations

import hashlib


def shard_of(nodeid: str, shards: int) -> int:
    """0-based shard of a node id; stable across machines and Python runs."""
    digest = hashlib.sha256(nodeid.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % shards


def in_shard(nodeid: str, k: int, n: int) -> bool:
    """Whether the item is in shard ``k`` (1-based) of ``n``."""
    return shard_of(nodeid, n) == k - 1
