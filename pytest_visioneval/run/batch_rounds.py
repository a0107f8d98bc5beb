"""``--eval-batch-wait``: evaluate, submit what was queued, wait for it, and again, until no case waits.

A case's calls depend on each other (a judge grades the image a model made),
so one batch cannot hold them all: the first round queues the generations,
the next the judgements of what came back, and so on. Each round evaluates
only the cases still waiting; everything a batch returned is in the call
cache by then, so a case is never asked twice for what it already has. The
outcomes (a case still waiting when the wait runs out is not evaluated) are
left in the session's exchange folder and handed to the pipeline, which does
not evaluate those cases again.

Under xdist one worker runs the rounds for every case of the run (a lock in
the session's exchange folder); the others wait for it, then take the
outcomes of the cases pytest gives them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ..artifacts import exclusive_lock, write_atomic
from ..calls.layer import CallLayer
from ..calls.usage import merge_round_usage
from ..cases.spec import CaseSpec
from ..errors import BatchError
from .environment import Environment
from .evaluation import evaluate_case

MAX_ROUNDS = 50  # far above any chain of dependent calls (generation, page, judge, judge asked again)


def evaluate_in_rounds(
    jobs: Sequence[tuple[str, CaseSpec, Environment]],
    layer: CallLayer,
    threads: int,
    say: Callable[[str], None] = lambda _: None,
) -> dict[str, dict[str, Any]]:
    """Every case's outcome by node id, once no case waits on a batch or the wait has run out.

    A case evaluated in several rounds keeps what each round spent (a batch's
    reply is booked in the round that took it from the book).
    """
    book, wait = layer.batches, layer.settings.batch_wait
    if book is None or wait is None:
        return {}
    deadline = time.monotonic() + wait
    outcomes: dict[str, dict[str, Any]] = {}
    todo = list(jobs)
    with ThreadPoolExecutor(max_workers=max(1, threads), thread_name_prefix="visioneval-batch-round") as pool:
        for round_number in range(1, MAX_ROUNDS + 1):
            made = list(pool.map(lambda job: evaluate_case(job[1], job[2]), todo))
            waiting = []
            for job, outcome in zip(todo, made, strict=True):
                earlier = outcomes.get(job[0])
                if earlier is not None:
                    outcome["usage"] = merge_round_usage(earlier.get("usage", {}), outcome.get("usage", {}))
                outcomes[job[0]] = outcome
                if (outcome.get("not_evaluated") or {}).get("reason") == "batch":
                    waiting.append(job)
            if not waiting:
                break
            try:
                submitted = book.submit_queue()
            except BatchError as exc:
                say(f"batch round {round_number}: {exc}")
                break
            say(
                f"batch round {round_number}: {len(waiting)} case(s) wait; submitted "
                + (", ".join(f"{b['id']} ({b['requests']} request(s))" for b in submitted) or "nothing new")
            )
            if not book.wait(deadline, layer.settings.batch_poll):
                say(f"batch round {round_number}: --eval-batch-wait ran out with batches still open")
                break
            todo = waiting
    return outcomes


def publish(outcomes: dict[str, dict[str, Any]], folder: Path) -> None:
    """Leave the outcomes where every worker of the run finds them (named by a hash of the node id)."""
    for nodeid, outcome in outcomes.items():
        write_atomic(folder / "batch-outcomes" / f"{_name(nodeid)}.json", json.dumps(outcome).encode("utf-8"))


def published(nodeids: Sequence[str], folder: Path) -> dict[str, dict[str, Any]]:
    """The outcomes the rounds left for these cases (a case missing is evaluated as usual)."""
    found = {}
    for nodeid in nodeids:
        try:
            found[nodeid] = json.loads((folder / "batch-outcomes" / f"{_name(nodeid)}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
    return found


def _name(nodeid: str) -> str:
    return hashlib.sha256(nodeid.encode("utf-8")).hexdigest()[:32]


@contextlib.contextmanager
def one_worker_at_a_time(folder: Path) -> Iterator[bool]:
    """Hold the run's rounds lock; yields whether this process should run the rounds (no one has yet)."""
    with exclusive_lock(folder / "batch-rounds.lock"):
        done = folder / "batch-rounds.done"
        first = not done.exists()
        yield first
        if first:
            done.touch()
