"""calls/cache.py: keys, the four modes, atomic entries, and the per-key lock across threads and processes."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path
from typing import Any

import pytest

from pytest_visioneval.calls import cache as cache_module
from pytest_visioneval.calls.cache import ENTRY_VERSION, LOCK_FILE, CacheWriteWarning, CallCache, cache_key, digest


def material(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "model": "openai:gpt-image-1",
        "repeat": 0,
        "case_repeat": 0,
        "request": {"endpoint": "images.edit", "prompt": "recolour", "size": "64x64", "image": [digest(b"png-1")]},
    }
    base.update(changes)
    return base


def files_below(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def wait_for(path: Path, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.01)


# -- keys ---------------------------------------------------------------------
def test_same_material_gives_the_same_key() -> None:
    key = cache_key("model", material())
    assert key == cache_key("model", material())
    assert len(key) == 64 and int(key, 16) >= 0


def test_key_ignores_dict_order() -> None:
    forward = {"model": "m", "request": {"a": 1, "b": {"x": 1, "y": [1, 2]}}, "repeat": 0}
    backward = {"repeat": 0, "request": {"b": {"y": [1, 2], "x": 1}, "a": 1}, "model": "m"}
    assert list(forward) != list(backward)
    assert cache_key("judge", forward) == cache_key("judge", backward)


@pytest.mark.parametrize(
    "changed",
    [
        material(model="openai:gpt-image-1-mini"),
        material(repeat=1),
        material(case_repeat=2),
        material(request={**material()["request"], "prompt": "recolour!"}),
        material(request={**material()["request"], "size": "32x32"}),
        material(request={**material()["request"], "image": [digest(b"png-2")]}),
        material(request={**material()["request"], "n": 1}),
    ],
    ids=["model", "repeat", "case-repeat", "prompt", "param", "image-digest", "extra-param"],
)
def test_any_change_gives_a_different_key(changed: dict[str, Any]) -> None:
    assert cache_key("model", changed) != cache_key("model", material())


def test_kind_is_part_of_the_key() -> None:
    assert cache_key("model", material()) != cache_key("judge", material())


def test_digest_names_the_bytes() -> None:
    assert digest(b"abc") == "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert digest(b"abc") != digest(b"abd")


# -- modes ----------------------------------------------------------------------
def test_on_reads_what_it_wrote(tmp_path: Path) -> None:
    cache = CallCache(tmp_path, "on")
    key = cache_key("model", material())
    assert cache.get("model", key) is None
    cache.put("model", key, {"value": [1, 2], "usage": {"images": 1}}, {"model": "m", "repeat": 0})
    assert cache.get("model", key) == {"value": [1, 2], "usage": {"images": 1}}
    entry = json.loads(cache.path("model", key).read_text())
    assert entry == {
        "version": ENTRY_VERSION,
        "key": key,
        "kind": "model",
        "about": {"model": "m", "repeat": 0},
        "value": {"value": [1, 2], "usage": {"images": 1}},
    }
    assert cache.path("model", key) == tmp_path / "model" / key[:2] / f"{key}.json"


def test_model_and_judge_entries_are_apart(tmp_path: Path) -> None:
    cache = CallCache(tmp_path, "on")
    cache.put("model", "ab" * 32, "from the model")
    assert cache.get("judge", "ab" * 32) is None
    assert cache.get("model", "ab" * 32) == "from the model"


def test_read_mode_reads_but_never_writes(tmp_path: Path) -> None:
    key = cache_key("model", material())
    CallCache(tmp_path, "on").put("model", key, "stored")
    reader = CallCache(tmp_path, "read")
    assert reader.get("model", key) == "stored"
    other = cache_key("model", material(repeat=5))
    reader.put("model", other, "new")
    assert not reader.path("model", other).exists()
    reader.put("model", key, "overwritten?")
    assert reader.get("model", key) == "stored"


def test_write_mode_writes_but_never_reads(tmp_path: Path) -> None:
    key = cache_key("model", material())
    writer = CallCache(tmp_path, "write")
    writer.put("model", key, "fresh")
    assert writer.get("model", key) is None
    assert CallCache(tmp_path, "on").get("model", key) == "fresh"
    writer.put("model", key, "refreshed")
    assert CallCache(tmp_path, "read").get("model", key) == "refreshed"


def test_off_mode_neither_reads_nor_writes(tmp_path: Path) -> None:
    key = cache_key("model", material())
    CallCache(tmp_path, "on").put("model", key, "stored")
    before = files_below(tmp_path)
    off = CallCache(tmp_path, "off")
    assert off.get("model", key) is None
    off.put("model", cache_key("model", material(repeat=9)), "new")
    with off.single_flight("model", key):
        pass
    assert files_below(tmp_path) == before


def test_bad_mode_and_kind_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cache mode must be one of on, off, read, write"):
        CallCache(tmp_path, "maybe")
    with pytest.raises(ValueError, match="unknown call kind"):
        CallCache(tmp_path).path("grader", "ab" * 32)


# -- entries on disk ----------------------------------------------------------------
def test_writes_leave_no_temporary_files(tmp_path: Path) -> None:
    cache = CallCache(tmp_path, "on")
    keys = [cache_key("model", material(repeat=i)) for i in range(5)]
    for key in keys:
        cache.put("model", key, {"i": key})
        cache.put("model", key, {"i": key, "again": True})  # overwrite in place
    assert files_below(tmp_path) == sorted(f"model/{k[:2]}/{k}.json" for k in keys)


def test_a_failed_write_leaves_neither_entry_nor_temporary_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = CallCache(tmp_path, "on")
    key = cache_key("model", material())

    def refuse(src: object, dst: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.warns(CacheWriteWarning, match="disk full"):  # the caller's reply is not lost over it
        cache.put("model", key, "value")
    monkeypatch.undo()
    assert files_below(tmp_path) == []
    assert cache.get("model", key) is None


def _read_only(monkeypatch: pytest.MonkeyPatch, root: Path) -> None:
    """Every file made under ``root`` fails as on a read-only mount (root ignores chmod: a mount is the real test)."""
    real_open = os.open

    def refuse(path: Any, flags: int, *args: Any) -> int:
        if str(path).startswith(str(root)) and flags & os.O_CREAT:
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", refuse)


def test_a_cache_that_cannot_be_written_warns_once_and_goes_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = CallCache(tmp_path / "cache", "on")
    keys = [cache_key("model", material(repeat=n)) for n in range(3)]
    _read_only(monkeypatch, tmp_path / "cache")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        for key in keys:
            with cache.single_flight("model", key):
                cache.put("model", key, {"value": key})
    assert [type(w.message) for w in seen] == [CacheWriteWarning]  # once, however many writes failed
    assert cache.problem == str(seen[0].message)
    assert cache.problem.startswith(f"the call cache {tmp_path / 'cache'} cannot be written (a lock file: ")
    assert "Read-only file system (EROFS)" in cache.problem and "a later run pays for them again" in cache.problem
    assert not (tmp_path / "cache").exists()


def test_a_cache_that_can_be_written_has_no_problem(tmp_path: Path) -> None:
    cache = CallCache(tmp_path, "on")
    key = cache_key("model", material())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning fails the test
        with cache.single_flight("model", key):
            cache.put("model", key, "value")
    assert cache.problem is None and cache.get("model", key) == "value"


def test_without_lock_files_threads_of_one_process_still_call_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = CallCache(tmp_path / "cache", "on")
    key = cache_key("model", material())
    _read_only(monkeypatch, tmp_path / "cache")
    inside: list[int] = []
    most: list[int] = []
    lock = threading.Lock()

    def call() -> None:
        with cache.single_flight("model", key):
            with lock:
                inside.append(1)
                most.append(len(inside))
            time.sleep(0.05)
            with lock:
                inside.pop()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CacheWriteWarning)
        threads = [threading.Thread(target=call) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
    assert max(most) == 1, "two threads held the key at once"


def _open_lock_files(cache: CallCache) -> list[str]:
    """Descriptors of this process that name the cache's lock file (Linux: /proc/self/fd)."""
    if not Path("/proc/self/fd").is_dir():
        pytest.skip("no /proc/self/fd here")
    target = str(cache.root / LOCK_FILE)
    found = []
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/self/fd/{fd}") == target:
                found.append(fd)
    return found


def test_single_flight_makes_one_lock_file_for_every_key_and_closes_it(tmp_path: Path) -> None:
    cache = CallCache(tmp_path, "on")
    for n in range(20):
        for kind in ("model", "judge"):
            with cache.single_flight(kind, cache_key(kind, material(repeat=n))):
                assert len(_open_lock_files(cache)) == 1
    assert files_below(tmp_path) == [LOCK_FILE], "a file was made (or left) per key"
    assert _open_lock_files(cache) == [], "the lock file stayed open with no key held"


def test_a_refused_record_lock_warns_once_and_threads_still_call_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = CallCache(tmp_path, "on")
    key = cache_key("model", material())

    def refuse(fd: int, cmd: int, *args: Any) -> None:
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(cache_module.fcntl, "lockf", refuse)
    with pytest.warns(CacheWriteWarning, match=r"\(a lock file: No locks available \(ENOLCK\)\)"):
        with cache.single_flight("model", key):
            entered = threading.Event()
            thread = threading.Thread(target=lambda: (cache.single_flight("model", key).__enter__(), entered.set()))
            thread.start()
            assert not entered.wait(0.2), "a second thread got the key while the first held it"
    assert entered.wait(5), "the key's thread lock was not let go"
    thread.join(5)
    assert _open_lock_files(cache) == []


def test_a_deadlock_refusal_is_asked_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Threads of two processes waiting for each other's bytes can be refused with EDEADLK; each holder still lets go."""
    cache = CallCache(tmp_path, "on")
    real = cache_module.fcntl.lockf
    refusals = [errno.EDEADLK, errno.EDEADLK]
    asked: list[int] = []

    def lockf(fd: int, cmd: int, *args: Any) -> Any:
        asked.append(cmd)
        if cmd == cache_module.fcntl.LOCK_EX and refusals:
            raise OSError(refusals.pop(), "Resource deadlock avoided")
        return real(fd, cmd, *args)

    monkeypatch.setattr(cache_module.fcntl, "lockf", lockf)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a deadlock refusal is no write problem
        with cache.single_flight("model", cache_key("model", material())):
            pass
    ex, un = cache_module.fcntl.LOCK_EX, cache_module.fcntl.LOCK_UN
    assert asked == [ex, ex, ex, un] and cache.problem is None


def test_the_key_is_let_go_when_the_call_raises(tmp_path: Path) -> None:
    cache = CallCache(tmp_path, "on")
    key = cache_key("model", material())
    with pytest.raises(RuntimeError, match="the call failed"):
        with cache.single_flight("model", key):
            raise RuntimeError("the call failed")
    done = threading.Event()
    thread = threading.Thread(target=lambda: (cache.single_flight("model", key).__enter__(), done.set()), daemon=True)
    thread.start()
    assert done.wait(5), "the key stayed held after its call raised"


@pytest.mark.parametrize(
    "damage",
    [
        b"{not json",
        b"",
        b"\xff\xfe\x00",
        b"[1, 2, 3]",
        b'{"version": 999, "key": "KEY", "value": "v"}',
        b'{"version": 1, "key": "someone-else", "value": "v"}',
    ],
    ids=["truncated", "empty", "binary", "not-a-mapping", "other-version", "other-key"],
)
def test_a_damaged_entry_is_a_miss_and_is_rewritten(tmp_path: Path, damage: bytes) -> None:
    cache = CallCache(tmp_path, "on")
    key = cache_key("judge", material())
    path = cache.path("judge", key)
    path.parent.mkdir(parents=True)
    path.write_bytes(damage.replace(b"KEY", key.encode()))
    assert cache.get("judge", key) is None
    cache.put("judge", key, {"score": 3})
    assert cache.get("judge", key) == {"score": 3}


# -- single flight ----------------------------------------------------------------------
def test_single_flight_makes_a_second_thread_wait(tmp_path: Path) -> None:
    cache = CallCache(tmp_path, "on")
    key = cache_key("model", material())
    entered = threading.Event()
    seen: list[Any] = []

    def second() -> None:
        with cache.single_flight("model", key):
            seen.append(cache.get("model", key))
            entered.set()

    with cache.single_flight("model", key):
        thread = threading.Thread(target=second)
        thread.start()
        assert not entered.wait(0.3), "the second thread got the lock while the first held it"
        cache.put("model", key, "made once")
    assert entered.wait(5)
    thread.join(5)
    assert seen == ["made once"]  # the waiter finds the entry the first made


def test_single_flight_of_other_keys_does_not_wait(tmp_path: Path) -> None:
    cache = CallCache(tmp_path, "on")
    entered = threading.Event()

    def other() -> None:
        with cache.single_flight("model", cache_key("model", material(repeat=1))):
            entered.set()

    with cache.single_flight("model", cache_key("model", material())):
        thread = threading.Thread(target=other)
        thread.start()
        assert entered.wait(5)
    thread.join(5)


_CHILD = """
import json, sys, time
from pathlib import Path
from pytest_visioneval.calls.cache import CallCache
root, key, out = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
cache = CallCache(root, "on")
(out.parent / "waiting").write_text("")
with cache.single_flight("model", key):
    out.write_text(json.dumps([time.monotonic(), cache.get("model", key)]))
"""


def test_single_flight_makes_a_second_process_wait(tmp_path: Path) -> None:
    cache = CallCache(tmp_path / "cache", "on")
    key = cache_key("model", material())
    out = tmp_path / "acquired"
    with cache.single_flight("model", key):
        child = subprocess.Popen([sys.executable, "-c", _CHILD, str(cache.root), key, str(out)])
        try:
            wait_for(tmp_path / "waiting")
            time.sleep(0.4)
            assert not out.exists(), "the other process got the lock while this one held it"
            cache.put("model", key, "made by the first process")
            released = time.monotonic()
        except BaseException:
            child.kill()
            raise
    assert child.wait(15) == 0
    acquired, seen = json.loads(out.read_text())
    assert acquired >= released
    assert seen == "made by the first process"


def test_single_flight_of_another_key_does_not_wait_for_another_process(tmp_path: Path) -> None:
    cache = CallCache(tmp_path / "cache", "on")
    out = tmp_path / "acquired"
    with cache.single_flight("model", cache_key("model", material())):
        child = subprocess.run(
            [sys.executable, "-c", _CHILD, str(cache.root), cache_key("model", material(repeat=1)), str(out)], timeout=30
        )
        assert child.returncode == 0 and out.exists(), "the other process waited for a key it did not ask for"


def test_single_flight_leaves_no_lock_file_and_never_admits_two_holders(tmp_path: Path) -> None:
    cache = CallCache(tmp_path, "on")
    key = cache_key("model", material())
    inside = 0
    most = 0
    counter = threading.Lock()

    def contend() -> None:
        nonlocal inside, most
        for _ in range(40):
            with cache.single_flight("model", key):
                with counter:
                    inside += 1
                    most = max(most, inside)
                time.sleep(0.0005)
                with counter:
                    inside -= 1

    threads = [threading.Thread(target=contend) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert most == 1, f"{most} threads held the same key's lock at once"
    assert files_below(tmp_path) == [LOCK_FILE]
