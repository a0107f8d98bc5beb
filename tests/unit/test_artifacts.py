"""artifacts.py: artifacts, the store and its provenance record."""

from __future__ import annotations

import dataclasses
import errno
import hashlib
import json
import subprocess
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from pytest_visioneval import __version__
from pytest_visioneval.artifacts import (
    PROVENANCE_FILE,
    Artifact,
    ArtifactStore,
    ModelOutput,
    describe_os_error,
    disk_error_message,
    is_disk_error,
    kind_for,
    mime_for,
    slug,
    write_atomic,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("openai:gpt-image-1", "openai_gpt-image-1"),
        ("replay:/tmp/out dir", "replay_tmp_out_dir"),
        ("reference", "reference"),
        ("a/../b", "a_.._b"),
        ("..", "model"),
        (":::", "model"),
        ("", "model"),
        (".hidden.", "hidden"),
    ],
)
def test_slug(text: str, expected: str) -> None:
    assert slug(text) == expected


def test_slug_never_contains_a_separator() -> None:
    assert "/" not in slug("x/y\\z") and "\\" not in slug("x/y\\z")


@pytest.mark.parametrize(
    ("name", "mime", "kind"),
    [
        ("image-0.png", "image/png", "image"),
        ("photo.JPG", "image/jpeg", "image"),
        ("page.html", "text/html", "html"),
        ("reply.md", "text/markdown", "text"),
        ("data.bin", "application/octet-stream", "text"),
    ],
)
def test_mime_and_kind(name: str, mime: str, kind: str) -> None:
    assert mime_for(name) == mime
    assert kind_for(mime) == kind
    artifact = Artifact(name, b"x")
    assert (artifact.mime, artifact.kind) == (mime, kind)


def test_explicit_mime_wins() -> None:
    artifact = Artifact("output", b"x", "image/webp")
    assert artifact.kind == "image"


def test_sha256() -> None:
    assert Artifact("a.txt", b"abc").sha256 == hashlib.sha256(b"abc").hexdigest()


def test_an_artifact_on_disk_reads_its_bytes_when_first_used(tmp_path: Path) -> None:
    path = tmp_path / "image-0.png"
    artifact = Artifact.on_disk("image-0.png", path)  # not there yet: nothing is read now
    assert (artifact.name, artifact.mime, artifact.kind, artifact.path) == ("image-0.png", "image/png", "image", path)
    path.write_bytes(b"first")
    assert artifact.data == b"first"
    path.write_bytes(b"second")
    assert artifact.data == b"first"  # read once, then kept
    assert artifact == Artifact("image-0.png", b"first", "image/png", path)
    assert artifact.sha256 == hashlib.sha256(b"first").hexdigest()
    assert dataclasses.replace(artifact, name="b.png").data == b"first"


def test_an_artifact_on_disk_that_is_gone_says_so_when_used(tmp_path: Path) -> None:
    artifact = Artifact.on_disk("reply.md", tmp_path / "reply.md", "text/markdown")
    with pytest.raises(FileNotFoundError, match="reply.md"):
        _ = artifact.data
    with pytest.raises(AttributeError):
        _ = artifact.other  # type: ignore[attr-defined]  # only data is read late


def test_store_writes_files_and_provenance(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path / "out", "run-7")
    output = ModelOutput(
        artifacts=(Artifact("image-0.png", b"first"), Artifact("reply.md", b"# second")),
        params={"size": "64x64", "n": 2},
        usage={"total_tokens": 5},
    )
    saved = store.save("openai:gpt-image-1", "ui", "login", output)

    folder = tmp_path / "out" / "run-7" / "openai_gpt-image-1" / "ui" / "login"
    assert store.case_dir("openai:gpt-image-1", "ui", "login") == folder
    assert [a.path for a in saved] == [folder / "image-0.png", folder / "reply.md"]
    assert [(a.name, a.data, a.mime) for a in saved] == [(a.name, a.data, a.mime) for a in output.artifacts]
    assert (folder / "image-0.png").read_bytes() == b"first"
    assert (folder / "reply.md").read_bytes() == b"# second"
    assert sorted(p.name for p in folder.iterdir()) == ["image-0.png", PROVENANCE_FILE, "reply.md"]

    provenance = json.loads((folder / PROVENANCE_FILE).read_text())
    assert provenance["case"] == "ui/login"
    assert provenance["model"] == "openai:gpt-image-1"
    assert provenance["params"] == {"size": "64x64", "n": 2}
    assert provenance["usage"] == {"total_tokens": 5}
    assert provenance["plugin_version"] == __version__
    assert datetime.fromisoformat(provenance["created"]).tzinfo is not None
    entries = provenance["artifacts"]
    assert [e["name"] for e in entries] == ["image-0.png", "reply.md"]
    for entry in entries:
        on_disk = (folder / entry["name"]).read_bytes()
        assert entry["sha256"] == hashlib.sha256(on_disk).hexdigest()
        assert entry["bytes"] == len(on_disk)
    assert entries[1]["mime"] == "text/markdown"


def test_provenance_keeps_non_json_params_as_text(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path, "r")
    store.save("m", "s", "c", ModelOutput((Artifact("a.txt", b"x"),), params={"path": Path("/x/y")}))
    provenance = json.loads((store.case_dir("m", "s", "c") / PROVENANCE_FILE).read_text())
    assert provenance["params"] == {"path": "/x/y"}


def test_saving_twice_overwrites(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path, "r")
    store.save("m", "s", "c", ModelOutput((Artifact("a.png", b"old"),)))
    saved = store.save("m", "s", "c", ModelOutput((Artifact("a.png", b"new"),)))
    assert saved[0].path is not None and saved[0].path.read_bytes() == b"new"
    assert sorted(p.name for p in store.case_dir("m", "s", "c").iterdir()) == ["a.png", PROVENANCE_FILE]


def test_write_atomic_creates_parents_and_leaves_no_temp_files(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "er" / "file.bin"
    write_atomic(target, b"payload")
    assert target.read_bytes() == b"payload"
    write_atomic(target, b"replaced")
    assert target.read_bytes() == b"replaced"
    assert list(target.parent.iterdir()) == [target]


def test_write_atomic_failure_keeps_the_old_file_and_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "file.txt"
    target.write_bytes(b"old")
    with pytest.raises(TypeError):
        write_atomic(target, "not bytes")  # type: ignore[arg-type]
    assert target.read_bytes() == b"old"
    assert list(tmp_path.iterdir()) == [target]


@pytest.mark.parametrize("name", ["../escape.png", "sub/dir.png", ".hidden.png", "provenance.json", "a" * 300 + ".png"])
def test_store_refuses_unsafe_artifact_names(tmp_path: Path, name: str) -> None:
    from pytest_visioneval.errors import ModelError

    store = ArtifactStore(tmp_path / "out", "run")
    with pytest.raises(ModelError, match="unsafe file name"):
        store.save("m", "s", "c", ModelOutput((Artifact(name, b"data"),)))
    assert not (tmp_path / "escape.png").exists()


def test_outputs_are_readable_by_others_as_the_umask_allows(tmp_path: Path) -> None:
    import os
    import stat

    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "f.bin", b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "f.bin").stat().st_mode) == 0o644


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KB tmpfs with 4 KB left (a real mount: root ignores permissions)."""
    folder = tmp_path / "small"
    folder.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        (folder / "filler").write_bytes(b"\0" * 60 * 1024)
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=False)


def test_a_write_the_full_disk_refuses_names_its_folder_and_leaves_no_temp(full_disk: Path) -> None:
    target = full_disk / "case" / "image-0.png"
    with pytest.raises(OSError) as refused:
        write_atomic(target, b"x" * 32 * 1024)
    assert refused.value.errno == errno.ENOSPC and is_disk_error(refused.value)
    assert disk_error_message(refused.value) == f"DiskError: cannot write: No space left on device (ENOSPC) at {target.parent}"
    assert sorted(p.name for p in target.parent.iterdir()) == []


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (
            OSError(errno.EROFS, "Read-only file system", "/out/run/m/s/c/.image.png.1.2.tmp"),
            "Read-only file system (EROFS) at /out/run/m/s/c",
        ),
        (OSError(errno.EACCES, "Permission denied", "/out/run"), "Permission denied (EACCES) at /out/run"),
        (OSError(errno.ENOSPC, "No space left on device"), "No space left on device (ENOSPC)"),
        (OSError("disk full"), "disk full"),
    ],
    ids=["temp-file", "folder", "no-file", "no-errno"],
)
def test_describe_os_error(error: OSError, expected: str) -> None:
    assert describe_os_error(error) == expected


def test_only_the_disk_s_refusals_are_disk_errors() -> None:
    assert is_disk_error(OSError(errno.EDQUOT, "Disk quota exceeded"))
    assert not is_disk_error(OSError(errno.ENOENT, "No such file or directory"))  # a bug or a race: a traceback
    assert not is_disk_error(ValueError("x"))


def test_the_store_makes_each_case_folder_once_and_writes_straight_into_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    store = ArtifactStore(tmp_path, "run-1")
    made: list[Path] = []
    missing: list[str] = []
    real_mkdir, real_open = Path.mkdir, os.open

    def mkdir(path: Path, *args: object, **kwargs: object) -> None:
        made.append(path)
        real_mkdir(path, *args, **kwargs)  # type: ignore[arg-type]

    def open_(path: str, flags: int, *args: int) -> int:
        try:
            return real_open(path, flags, *args)
        except FileNotFoundError:
            missing.append(os.path.basename(path))
            raise

    monkeypatch.setattr(Path, "mkdir", mkdir)
    monkeypatch.setattr(os, "open", open_)
    output = ModelOutput((Artifact("image-0.png", b"png"), Artifact("image-1.png", b"png")))
    folder = tmp_path / "run-1" / "openai_m" / "suite"
    store.save("openai:m", "suite", "c1", output)
    assert folder / "c1" in made
    made.clear()
    store.save_derived("openai:m", "suite", "c1", (Artifact("page.png", b"shot"),), "rendered")
    store.save("openai:m", "suite", "c1", output)
    assert made == [], f"a folder the store had made was made again: {made}"
    store.save("openai:m", "suite", "c2", output)
    assert made == [folder / "c2"], made  # a new case folder below existing ones: one mkdir
    assert missing == [], f"writes tried a folder that was not made yet: {missing}"
    assert sorted(p.name for p in (folder / "c1").iterdir()) == ["image-0.png", "image-1.png", "page.png", PROVENANCE_FILE]


def test_a_case_folder_removed_during_the_run_is_made_again(tmp_path: Path) -> None:
    import shutil

    store = ArtifactStore(tmp_path, "run-1")
    output = ModelOutput((Artifact("image-0.png", b"png"),))
    [first] = store.save("openai:m", "suite", "c1", output)
    assert first.path is not None
    shutil.rmtree(first.path.parent)
    [again] = store.save("openai:m", "suite", "c1", output)
    assert again.path is not None and again.path.read_bytes() == b"png"


def test_write_atomic_finishes_a_write_the_kernel_took_in_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    real_write = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: real_write(fd, bytes(data[:3])))  # at most 3 bytes a call
    write_atomic(tmp_path / "out.json", b'{"a": 1, "b": 2}')
    assert (tmp_path / "out.json").read_bytes() == b'{"a": 1, "b": 2}'


def test_write_atomic_that_writes_nothing_is_a_full_disk_not_a_hang(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    monkeypatch.setattr(os, "write", lambda fd, data: 0)
    with pytest.raises(OSError) as raised:
        write_atomic(tmp_path / "out.json", b"data")
    assert raised.value.errno == errno.ENOSPC and raised.value.filename.startswith(str(tmp_path / ".out.json."))
    assert list(tmp_path.iterdir()) == []  # no temporary file left behind
