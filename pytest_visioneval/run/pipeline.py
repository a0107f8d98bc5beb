"""Evaluate cases ahead of pytest's order, so API calls for many cases overlap.

Without ``--eval-concurrency`` each case is evaluated when pytest reaches it.
With it, every worker keeps up to N evaluations running in background
threads, walking the session's case items in collection order, while pytest
consumes the outcomes in its own order. The calls themselves stay within the
run-wide limit (:mod:`concurrency`), so more threads never means more than N
requests in flight.

Under xdist every worker knows every item but runs only those the controller
sends it, so workers share the work through a folder of the run: a worker
*claims* a case (``<hash>.claim``, made visible already locked) before
evaluating it and publishes the outcome as ``<hash>.json``; a worker asked to
run a case another worker claimed waits for that file. A case xdist has sent
to the worker that evaluated it is not published: only that worker runs it. If
that worker dies first (or ``--dist worksteal`` moves the case), the claim is
let go with no outcome, and the worker that runs the case takes it over as
from a dead claimer (its calls come from the cache, counted as paid by it).
The claimer holds an exclusive ``flock`` on its claim until the outcome is
published; the kernel drops it when the process dies - also while the dead
process is a zombie, which a pid check would still call alive - so a waiter
that can take the lock knows the claimer is gone and takes the case over.
Outcomes are plain JSON (see :mod:`evaluation`).

A case that would wait for nothing (its calls all in the cache: a warm run) is
evaluated on the thread that starts it, never handed to the pool: each start
first tries :func:`evaluation.evaluate_without_waiting`, and only a case that
reaches a point that waits (see :mod:`calls.waiting`) goes to a background thread.

Under xdist a worker first starts the cases xdist has already sent it (``upcoming``: its
queue, in the order it will run them). Then it walks the cases after the last one it was sent
(xdist hands cases out from the front of the collection, so those before it that it was not
sent went to another worker), and last the ones it skipped, which helps a worker that fell
behind. Walking every case from the first, as each worker once did, had both workers racing
over the same cases: 52% of the cases a worker ran had been evaluated by the other (1000
cases, c=64, ``-n 2``; 35% in this order), each one handed over through the exchange
folder while pytest's thread polled for it.

A claimer that is alive but does not move (stopped, frozen, deadlocked) holds
its lock forever, so waiting is bounded twice: the claimer's process touches
its claims every second (a heartbeat thread), and a waiter whose claim has
not been touched for ``stale_after`` seconds, or that has waited
``wait_timeout`` seconds in all, ends the case as an error naming the claimer
instead of waiting on.
"""

from __future__ import annotations

import collections
import contextlib
import fcntl
import hashlib
import json
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ..artifacts import describe_os_error, write_atomic
from ..calls.redact import redact_data
from ..calls.turn import holding_turn, turn_released
from ..calls.usage import taking_over
from ..cases.spec import CaseSpec
from .evaluation import Environment, evaluate_case, evaluate_without_waiting

_POLL = 0.01
# Threads beyond the slots of --eval-concurrency, at most: a case's local work (decoding, grading, OCR)
# runs between its calls, and a thread busy with it holds no slot, so spare threads keep the slots in use.
# Up to 16 slots each gets a spare; above that the process is short of CPU, not of threads, and more
# threads only hand the interpreter lock around more often: 1000 cases at c=64 and c=128 took about a
# tenth less CPU, and mostly less wall time, with 16 spares than with a spare for every slot
# (docs/throughput-log.md, tenth sitting).
SPARE_THREADS = 16
# Evaluations started ahead per thread: a thread that finishes one starts the next without waiting for a refill.
AHEAD_PER_THREAD = 1.5
HEARTBEAT_SECONDS = 1.0
# Far above a heartbeat delayed by a loaded machine; far below a user giving up on the run.
STALE_AFTER_SECONDS = 60.0
WAIT_TIMEOUT_SECONDS = 1800.0
# A claim starts with its holder's pid padded to this many bytes: room the disk gave while it had some, which a
# claimer that cannot publish (a full disk) overwrites with FAILURE_MARK and a short error outcome.
CLAIM_ROOM = 2048
FAILURE_MARK = b"!failed\n"
NOTE_ERROR_CHARS = 1200


def threads_for(slots: int) -> int:
    """How many pool threads a worker keeps for ``slots`` of the concurrency limit."""
    return slots + min(slots, SPARE_THREADS)


def _pid_in(claim: bytes) -> int | None:
    """The pid a claim names (its holder), or None when it names none."""
    text = claim.decode("ascii", "replace").strip()
    return int(text) if text.isdigit() else None


class CasePipeline:
    def __init__(
        self,
        env: Environment,
        cases: Sequence[tuple[str, CaseSpec]],
        concurrency: int | None,
        exchange: Path | None = None,
        *,
        stale_after: float = STALE_AFTER_SECONDS,
        wait_timeout: float = WAIT_TIMEOUT_SECONDS,
        environments: Mapping[str, Environment] | None = None,
        ready: Mapping[str, dict[str, Any]] | None = None,
        workers: int = 1,
        upcoming: Callable[[], Sequence[str]] | None = None,
    ):
        """``cases``: (nodeid, case) of the session's items, in collection order, that may be run ahead.

        ``environments``: nodeid -> the environment of that item, where it is not ``env`` (a run of
        several models: each item is evaluated with its own model);

        ``ready``: nodeid -> an outcome already made (by the batch rounds), handed out as is;

        ``workers``: how many processes share ``concurrency`` (xdist workers): each keeps threads for its
        share of the slots, so N workers do not start N times the threads the whole run can use;

        ``upcoming``: the node ids xdist has queued for this worker since the previous call (a node id it
        returns again is taken once), in the order it will run them, started before any other case;
        None: the session's order alone;

        ``stale_after``: seconds without a heartbeat after which a live claimer counts as stuck;
        ``wait_timeout``: the longest wait for another worker's outcome.
        """
        self.env = env
        self._environments = dict(environments or {})
        self.stale_after = stale_after
        self.wait_timeout = wait_timeout
        self.concurrency = concurrency
        self.exchange = exchange
        self._cases = dict(cases)
        self._ready = dict(ready or {})
        self._order = [nodeid for nodeid, _ in cases]
        self._next = 0
        self._upcoming = upcoming
        self._position = {nodeid: index for index, nodeid in enumerate(self._order)} if upcoming is not None else {}
        self._frontier = -1  # the position of the last case xdist sent this worker
        self._skipped = 0  # the second pass over the cases the first walked past (behind the frontier)
        # This worker's queue as read so far: read anew on every refill, a whole queue of 500 cases cost each
        # refill the walk of it; now only what xdist added since the last read is read and kept here.
        self._queued: collections.deque[str] = collections.deque()  # queued for this worker, not tried yet
        self._queued_ever: set[str] = set()
        self._tried: set[str] = set()  # cases this worker tried to start (claimed, or found claimed): not tried again
        self._lock = threading.Lock()
        self._futures: dict[str, Future[dict[str, Any]]] = {}
        self._running = 0  # started and not yet done (kept as a count: a refill must not rescan every case)
        # Made on a starting thread and not yet taken by pytest: they count against the cases run ahead
        # like running ones, so a warm run does not evaluate the whole session at its first case.
        self._made_here: set[str] = set()
        self._inline = concurrency is not None and not env.mutants  # the self-test's many variants: always a thread
        self._started: set[str] = set()  # without an exchange: the cases this worker has started (its claims)
        self._held: dict[str, int] = {}  # with an exchange: nodeid -> fd holding the lock of our claim
        self._held_lock = threading.Lock()  # the heartbeat never touches an fd closed (and reused) meanwhile
        self._notes: dict[str, dict[str, Any]] = {}  # failure notes read from claims (see _note_failure)
        self._dead: dict[str, int | None] = {}  # nodeid -> pid of the claimer that died without publishing it
        self._pool: ThreadPoolExecutor | None = None
        self._closed = False
        self._stop_heartbeat = threading.Event()
        self._heartbeat: threading.Thread | None = None
        if concurrency is not None:
            threads = threads_for(-(-concurrency // max(1, workers)))  # for its share, rounded up
            self._ahead = int(AHEAD_PER_THREAD * threads)
            self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="visioneval-case")
            if exchange is not None:
                exchange.mkdir(parents=True, exist_ok=True)
                self._heartbeat = threading.Thread(target=self._beat, name="visioneval-heartbeat", daemon=True)
                self._heartbeat.start()
            self._fill()

    # -- consuming ------------------------------------------------------------
    def outcome_for(self, nodeid: str, case: CaseSpec) -> dict[str, Any]:
        """The case's outcome: made ahead by this worker or another, or made now."""
        with self._lock:
            made = self._ready.pop(nodeid, None)
        if made is not None:
            return made
        if self._pool is None:
            return evaluate_case(case, self._env(nodeid))
        with self._lock:
            future = self._futures.get(nodeid)
            start_now = future is None and self.exchange is None  # every case is ours: start it now (_fill refills)
            if start_now:
                self._started.add(nodeid)
                future = self._begin(nodeid)
        if future is not None and start_now:
            self._run(nodeid, case, future)
        # pytest's thread runs a case's test in turn (plugin/hooks.py) and lets it go while it waits here.
        with turn_released():
            if future is None:
                future = self._claimed_elsewhere(nodeid, case)
            outcome = future.result()
        with self._lock:
            self._futures.pop(nodeid, None)
            self._made_here.discard(nodeid)
        self._fill()
        return outcome

    def _claimed_elsewhere(self, nodeid: str, case: CaseSpec) -> Future[dict[str, Any]]:
        """Wait for another worker's outcome, or take the case over (unclaimed, or its claimer died).

        Ends with an error outcome when the claimer stops beating or the wait runs past its deadline.
        """
        started = time.monotonic()
        while True:
            if self._claim(nodeid):
                return self._submit(nodeid, case)
            assert self.exchange is not None  # without xdist every claim is ours
            published = self._read_outcome(nodeid)
            if published is None and not self._claimer_alive(nodeid):
                continue  # its claim is gone: claim it ourselves
            if published is None:
                problem = self._stuck(nodeid, time.monotonic() - started)
                if problem is not None:
                    published = self._wait_error(nodeid, case, problem)
            if published is not None:
                done: Future[dict[str, Any]] = Future()
                done.set_result(published)
                return done
            time.sleep(_POLL)

    def _stuck(self, nodeid: str, waited: float) -> str | None:
        """Why waiting on the claimer of ``nodeid`` should stop, or ``None`` to wait on."""
        claim = self._path(nodeid, ".claim")
        try:
            silent = time.time() - os.stat(claim).st_mtime  # one stat per poll; the pid is read only to report
        except OSError:
            return None  # being replaced: the next turn sees the new claim
        if silent <= self.stale_after and waited <= self.wait_timeout:
            return None
        try:
            holder = claim.read_text(encoding="utf-8").strip() or "?"
        except OSError:
            holder = "?"
        if silent > self.stale_after:
            return (
                f"the worker evaluating it (pid {holder}) holds the case but stopped responding: "
                f"no heartbeat for {silent:.0f} s (limit {self.stale_after:g} s)"
            )
        return (
            f"waited {waited:.0f} s for the worker evaluating it (pid {holder}) to finish "
            f"(limit {self.wait_timeout:g} s); it is alive but has not published an outcome"
        )

    def _wait_error(self, nodeid: str, case: CaseSpec, problem: str) -> dict[str, Any]:
        model = self._env(nodeid).model_label
        return {"uid": case.uid, "model": model, "artifacts": [], "error": f"WorkerStuck: {problem}", "usage": {}}

    def _env(self, nodeid: str) -> Environment:
        return self._environments.get(nodeid, self.env)

    def _beat(self) -> None:
        """Touch every claim this process holds, so waiters can tell a live claimer from a stuck one."""
        while not self._stop_heartbeat.wait(HEARTBEAT_SECONDS):
            with self._held_lock:
                for fd in self._held.values():
                    with contextlib.suppress(OSError):
                        os.utime(fd)

    # -- producing ------------------------------------------------------------
    def _fill(self) -> None:
        """Keep every thread busy with an upcoming case, and some queued behind them.

        This worker's own queue comes first (``upcoming``); then the session's cases in collection order.
        """
        assert self.concurrency is not None
        fresh = self._newly_queued()
        while True:
            with self._lock:
                self._take_queued(fresh)
                fresh = []
                if self._closed or self._running + len(self._made_here) >= self._ahead:
                    return
                nodeid = self._next_candidate()
                if nodeid is None:
                    return
                self._tried.add(nodeid)
                if nodeid in self._futures or nodeid in self._ready or not self._claim(nodeid):
                    continue
                # Picked and registered under one lock: outcome_for never starts the same case meanwhile.
                future = self._begin(nodeid)
            self._run(nodeid, self._cases[nodeid], future)

    def _newly_queued(self) -> list[str]:
        """The cases xdist has queued for this worker since the last read (read outside the pipeline's lock)."""
        if self._upcoming is None:
            return []
        try:
            return list(self._upcoming())
        except Exception:  # xdist's queue could not be read (another version): the session's order alone
            self._upcoming = None
            return []

    def _take_queued(self, fresh: list[str]) -> None:
        """Keep the newly queued cases (hold ``self._lock``); the furthest of them moves the frontier."""
        for nodeid in fresh:
            if nodeid in self._cases and nodeid not in self._queued_ever:
                self._queued_ever.add(nodeid)
                self._queued.append(nodeid)
                self._frontier = max(self._frontier, self._position[nodeid])

    def _next_candidate(self) -> str | None:
        """The next case to try (hold ``self._lock``).

        From this worker's queue first; then in collection order after the frontier (cases no worker was
        sent yet); then, once those are all tried, the cases walked past.
        """
        while self._queued:
            nodeid = self._queued.popleft()
            if nodeid not in self._tried:
                return nodeid
        self._next = max(self._next, self._frontier + 1)
        while self._next < len(self._order):
            nodeid = self._order[self._next]
            self._next += 1
            if nodeid not in self._tried:
                return nodeid
        while self._skipped < len(self._order):
            nodeid = self._order[self._skipped]
            self._skipped += 1
            if nodeid not in self._tried:
                return nodeid
        return None

    def _submit(self, nodeid: str, case: CaseSpec) -> Future[dict[str, Any]]:
        with self._lock:
            future = self._begin(nodeid)
        self._run(nodeid, case, future)
        return future

    def _begin(self, nodeid: str) -> Future[dict[str, Any]]:
        """Register the case as started (hold ``self._lock``); :meth:`_run` then makes its outcome."""
        future: Future[dict[str, Any]] = Future()
        self._futures[nodeid] = future
        self._running += 1
        return future

    def _run(self, nodeid: str, case: CaseSpec, future: Future[dict[str, Any]]) -> None:
        """Make the outcome here if the case waits for nothing, else hand the case to a pool thread."""
        if self._inline:
            try:
                with taking_over(self._dead.get(nodeid)):
                    outcome = evaluate_without_waiting(case, self._env(nodeid))
                if outcome is not None:
                    self._publish(nodeid, outcome)
            except BaseException as exc:
                self._release(nodeid)  # no outcome to wait for: a waiter takes the case over
                self._ended(nodeid)
                future.set_exception(exc)
                if not isinstance(exc, Exception):
                    raise
                return
            if outcome is not None:
                self._ended(nodeid, made_here=True)  # before the result: outcome_for must find it to discard
                future.set_result(outcome)
                return
        assert self._pool is not None
        with self._lock:
            if self._closed:  # the pool is shut down (or about to be): the case is never started
                self._running -= 1
                future.cancel()
                return
            job = self._pool.submit(self._job, nodeid, case)
        # Outside the lock: a job already done runs the callback at once, and the callback refills.
        job.add_done_callback(lambda done: self._settle(future, done))

    def _job(self, nodeid: str, case: CaseSpec) -> dict[str, Any]:
        try:
            # In turn with the other case threads (calls/turn.py); its dead claimer's cached calls are its to count.
            with holding_turn(), taking_over(self._dead.get(nodeid)):
                outcome = evaluate_case(case, self._env(nodeid))
            self._publish(nodeid, outcome)
            return outcome
        except BaseException:
            self._release(nodeid)  # no outcome (an interrupt): let a waiter take the case over, not wait for ever
            raise
        finally:
            self._ended(nodeid)

    def _publish(self, nodeid: str, outcome: dict[str, Any]) -> None:
        """Hand the outcome to the other workers (under xdist) and let go of the claim.

        A disk that refuses the outcome (full, read-only) must not leave the case claimed and unpublished:
        a waiter would wait for it until ``wait_timeout``. This worker keeps its outcome in memory; the
        others get the disk's error, as a small outcome file or, when not even that fits, as a note in
        the claim itself (:meth:`_note_failure`); the claim is let go either way.
        """
        if self.exchange is None:
            return
        with self._lock:
            ours = nodeid in self._queued_ever
        if ours:  # xdist sent it here: no other worker will ask for it, unless this one dies (see the docstring)
            self._release(nodeid)
            return
        try:
            write_atomic(self._path(nodeid, ".json"), json.dumps(redact_data(outcome)).encode("utf-8"))
        except OSError as exc:
            self._hand_over_failure(nodeid, outcome, exc)
        finally:
            self._release(nodeid)

    def _hand_over_failure(self, nodeid: str, outcome: dict[str, Any], exc: OSError) -> None:
        error = outcome.get("error") or (
            f"DiskError: the worker that evaluated this case (pid {os.getpid()}) could not hand its outcome over: "
            f"{describe_os_error(exc)}"
        )
        failed = {"uid": outcome.get("uid"), "model": outcome.get("model"), "artifacts": [], "error": error}
        failed["usage"] = outcome.get("usage", {})  # the calls were made: the run's totals still count them
        try:
            write_atomic(self._path(nodeid, ".json"), json.dumps(redact_data(failed)).encode("utf-8"))
        except OSError:
            self._note_failure(nodeid, {**failed, "usage": {}})

    def _note_failure(self, nodeid: str, failed: dict[str, Any]) -> None:
        """Write ``failed`` over the pid in our claim: the space the claim already has, so a full disk still takes it."""
        error = str(failed["error"])
        failed = {**failed, "error": error if len(error) <= NOTE_ERROR_CHARS else error[:NOTE_ERROR_CHARS] + "..."}
        note = FAILURE_MARK + json.dumps(redact_data(failed), ensure_ascii=True).encode("ascii")
        if len(note) > CLAIM_ROOM:  # uid and model names too long to fit: the waiter takes the case over instead
            return
        with self._held_lock:
            fd = self._held.get(nodeid)
            if fd is None:
                return
            with contextlib.suppress(OSError):  # if even that fails, a waiter takes the case over and meets the disk
                os.pwrite(fd, note, 0)
                os.ftruncate(fd, len(note))

    def _ended(self, nodeid: str, *, made_here: bool = False) -> None:
        with self._lock:  # never held by the thread that calls this: no deadlock with a starter
            self._running -= 1
            if made_here:
                self._made_here.add(nodeid)

    def _settle(self, future: Future[dict[str, Any]], job: Future[dict[str, Any]]) -> None:
        """Pass a pool job's end on to the case's future, then refill."""
        if job.cancelled():
            future.cancel()
        elif (error := job.exception()) is not None:
            future.set_exception(error)
        else:
            future.set_result(job.result())
        self._fill()

    # -- claims (xdist) -----------------------------------------------------------
    def _path(self, nodeid: str, suffix: str) -> Path:
        assert self.exchange is not None
        return self.exchange / (hashlib.sha256(nodeid.encode("utf-8")).hexdigest()[:32] + suffix)

    def _claim(self, nodeid: str) -> bool:
        if self.exchange is None:  # called under self._lock
            if nodeid in self._started:
                return False
            self._started.add(nodeid)
            return True
        # Locked before it is visible: a waiter can never see our claim unlocked and think us dead.
        claim = self._path(nodeid, ".claim")
        if os.path.exists(claim):
            # Taken: every worker walks every case ahead, so most claims a worker tries are another's; a stat
            # spares making and removing a draft file for each. (A claim made after this look still makes
            # the link below fail, as before.)
            return False
        draft = claim.with_name(f".{claim.name}.{os.getpid()}.{threading.get_ident()}")
        fd = os.open(draft, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            # The pid only names the holder in reports; padded, it reserves room for a failure note
            # (_note_failure) while the disk still has some. A full disk takes an empty claim all the same.
            with contextlib.suppress(OSError):
                os.write(fd, str(os.getpid()).encode().ljust(CLAIM_ROOM))
            os.link(draft, claim)
        except FileExistsError:
            os.close(fd)
            return False
        except BaseException:
            os.close(fd)
            raise
        finally:
            draft.unlink(missing_ok=True)
        with self._held_lock:
            self._held[nodeid] = fd
        return True

    def _release(self, nodeid: str) -> None:
        with self._held_lock:
            fd = self._held.pop(nodeid, None)
            if fd is not None:
                os.close(fd)

    def _claimer_alive(self, nodeid: str) -> bool:
        """Whether a process still holds the claim's lock (the kernel releases it when the process dies)."""
        claim = self._path(nodeid, ".claim")
        try:
            fd = os.open(claim, os.O_RDONLY)
        except FileNotFoundError:
            return True  # released or being replaced: claim again on the next turn
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        else:
            if self._path(nodeid, ".json").exists():
                return True  # it published, then let go: the next turn reads the outcome
            note = b""
            with contextlib.suppress(OSError, ValueError):
                note = os.pread(fd, CLAIM_ROOM, 0)
                if note.startswith(FAILURE_MARK):  # it could not publish: its note is the outcome (_read_outcome)
                    self._notes[nodeid] = json.loads(note[len(FAILURE_MARK) :])
                    return True
            # Nobody holds it and nothing was published: the claimer died. Remove this claim
            # (and not a fresh one another waiter made meanwhile).
            with contextlib.suppress(FileNotFoundError):
                if os.stat(claim).st_ino == os.fstat(fd).st_ino:
                    claim.unlink()
                    self._dead[nodeid] = _pid_in(note)
            return False
        finally:
            os.close(fd)

    def _read_outcome(self, nodeid: str) -> dict[str, Any] | None:
        try:
            return json.loads(self._path(nodeid, ".json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]
        except (OSError, ValueError):
            return self._notes.pop(nodeid, None)

    # -- the end ----------------------------------------------------------------
    def close(self) -> None:
        """Stop claiming; let running evaluations finish (other workers may wait for them; their calls are paid)."""
        with self._lock:
            self._closed = True
        if self._pool is None:
            return
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._stop_heartbeat.set()
        if self.exchange is not None:
            for nodeid, future in list(self._futures.items()):
                if future.cancelled():  # never started: let another worker take it at once
                    with contextlib.suppress(FileNotFoundError):
                        self._path(nodeid, ".claim").unlink()
                self._release(nodeid)
