"""Full disks and read-only folders, through real runs (issue 38, points 1 and 4).

The folders are real mounts: a small tmpfs filled to the brim, or a read-only
bind mount (``chmod`` does not stop root). A machine that does not let this
process mount skips with the reason.
"""

from __future__ import annotations

import contextlib
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_visioneval.testing import FakeOpenAIServer
from tests.conftest import read_json
from tests.plugin.test_calls_end_to_end import JUDGE, MODEL, answers, suite_yaml

WARNING = "CacheWriteWarning: the call cache"


def _mount(*args: str) -> None:
    done = subprocess.run(["mount", *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount here ({' '.join(args)}): {done.stderr.strip() or done.returncode}")


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[Path]:
    """``folder`` as a read-only bind mount of itself, for the block."""
    folder.mkdir(parents=True, exist_ok=True)
    _mount("--bind", str(folder), str(folder))
    try:
        _mount("-o", "remount,ro,bind", str(folder))
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=False)


@contextlib.contextmanager
def nearly_full(folder: Path, size_kb: int, free_kb: int) -> Iterator[Path]:
    """A tmpfs of ``size_kb`` at ``folder``, filled until about ``free_kb`` are left."""
    folder.mkdir(parents=True, exist_ok=True)
    _mount("-t", "tmpfs", "-o", f"size={size_kb}k", "tmpfs", str(folder))
    try:
        (folder / ".filler").write_bytes(b"\0" * ((size_kb - free_kb) * 1024))
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=False)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-disks")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with FakeOpenAIServer(text_reply=answers) as fake:
        yield fake


def run(pytester: pytest.Pytester, server: FakeOpenAIServer, count: int, *args: str) -> pytest.RunResult:
    (pytester.path / "cases").mkdir(exist_ok=True)
    (pytester.path / "cases" / "calls.eval.yaml").write_text(suite_yaml(count))
    return pytester.runpytest(
        "cases",
        f"--model={MODEL}",
        f"--model-base-url={server.base_url}",
        f"--judge={JUDGE}",
        f"--judge-base-url={server.base_url}",
        "--eval-results=results.json",
        "-p",
        "no:randomly",
        *args,
    )


def records(pytester: pytest.Pytester) -> list[dict[str, Any]]:
    return list(read_json(pytester.path / "results.json")["cases"])


def lock_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.lock"))


@pytest.mark.parametrize("workers", [[], ["-n", "2", "--eval-concurrency=4"]], ids=["n0", "n2"])
def test_a_read_only_cache_warns_once_and_every_reply_is_used(
    pytester: pytest.Pytester, server: FakeOpenAIServer, workers: list[str]
) -> None:
    cache = pytester.path / "cache"
    warm = run(pytester, server, 2, "--eval-output-dir=out", f"--eval-cache-dir={cache}")
    assert warm.ret == 0, warm.stdout.str()[-2000:]
    server.reset()
    with read_only(cache):
        result = run(pytester, server, 6, "--eval-output-dir=out", f"--eval-cache-dir={cache}", *workers)
        assert lock_files(cache) == []  # none could be made, none is left behind
    output = result.stdout.str()
    assert result.ret == 0, output[-3000:]
    assert "internal error" not in output
    # Once per process that meets it: the single process, or each worker that made a call (one or both).
    assert output.count(WARNING) in ({1} if not workers else {1, 2}), output[-3000:]
    assert f"the call cache {cache} cannot be written" in output and "Read-only file system (EROFS)" in output
    by_uid = {r["uid"]: r for r in records(pytester)}
    assert {r["status"] for r in by_uid.values()} == {"passed"}
    # Cases 1-2 came from the cache; 3-6 were called once each (model + judge), and not thrown away.
    assert len(server.requests) == 8
    usage = read_json(pytester.path / "results.json")["usage"]["total"]
    assert (usage["calls"], usage["cached"]) == (8, 4)
    for n in range(3, 7):
        [image] = [a for a in by_uid[f"calls/c{n}"]["artifacts"] if a["name"].endswith(".png")]
        assert Path(image["path"]).is_file()  # the output is kept in the run folder


def test_a_cache_that_can_be_written_gives_no_warning(pytester: pytest.Pytester, server: FakeOpenAIServer) -> None:
    result = run(pytester, server, 2, "--eval-output-dir=out", "--eval-cache-dir=cache")
    assert result.ret == 0 and WARNING not in result.stdout.str()
    assert len([*(pytester.path / "cache").glob("model/*/*.json"), *(pytester.path / "cache").glob("judge/*/*.json")]) == 4


@pytest.mark.parametrize("workers", [[], ["-n", "2", "--eval-concurrency=8"]], ids=["n0", "n2"])
def test_a_full_output_disk_ends_every_case_promptly_as_an_error_naming_it(
    pytester: pytest.Pytester, server: FakeOpenAIServer, workers: list[str]
) -> None:
    # Issue 38: under -n 2 a worker that could not publish an outcome kept its claim, and the other worker
    # waited for it until --eval-wait-timeout (then blamed a "stuck" worker, never the disk).
    out = pytester.path / "out"
    with nearly_full(out, size_kb=1024, free_kb=48):
        started = time.monotonic()
        result = run(pytester, server, 40, f"--eval-output-dir={out}", "--eval-wait-timeout=120", *workers)
        took = time.monotonic() - started
    output = result.stdout.str()
    assert result.ret == 1, output[-3000:]
    assert took < 60, f"the run took {took:.0f} s"
    assert "WorkerStuck" not in output and "internal error" not in output
    found = records(pytester)
    assert len(found) == 40
    errors = [r for r in found if r["status"] == "error"]
    assert len(errors) >= 20, [r["status"] for r in found]  # 48 KB hold a few cases at most
    assert {r["status"] for r in found} <= {"passed", "error"}
    for record in errors:
        assert "No space left on device (ENOSPC)" in record["error"], record["error"]
        assert str(out) in record["error"], record["error"]


def test_an_output_folder_that_cannot_be_written_is_an_error_naming_it(
    pytester: pytest.Pytester, server: FakeOpenAIServer
) -> None:
    out = pytester.path / "out"
    model_folder = out / "ro-run" / "openai_img-model"  # where the model's outputs go (the run folder is writable)
    with read_only(model_folder):
        result = run(pytester, server, 2, f"--eval-output-dir={out}", "--eval-run-id=ro-run", "--eval-cache-dir=cache")
    output = result.stdout.str()
    assert result.ret == 1, output[-3000:]
    assert "internal error" not in output
    for record in records(pytester):
        assert record["status"] == "error"
        assert record["error"].startswith("DiskError: cannot write: Read-only file system (EROFS) at "), record["error"]
        assert str(model_folder) in record["error"]
    assert len(list((pytester.path / "cache" / "model").rglob("*.json"))) == 2  # the replies were kept in the cache
