"""What a model produced, and where it is kept on disk.

Every artifact is written under ``<output_dir>/<run_id>/<model>/<suite>/<case>/``
next to a ``provenance.json`` that records who made it, with which params,
when, and the sha256 of each file, so an output can be traced and replayed.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import hashlib
import json
import os
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from . import __version__
from .errors import ModelError

T = TypeVar("T")

PROVENANCE_FILE = "provenance.json"
# A plain file name: no folders, no "..", not hidden, not our own provenance record.
_SAFE_NAME = re.compile(r"^(?!provenance\.json$)[A-Za-z0-9_][A-Za-z0-9_.-]{0,200}$")

_MIME_BY_SUFFIX = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".webp": "image/webp",
    ".gif": "image/gif",
    ".svg": "image/svg+xml",
    ".html": "text/html",
    ".htm": "text/html",
    ".txt": "text/plain",
    ".md": "text/markdown",
    ".json": "application/json",
}


def mime_for(name: str) -> str:
    return _MIME_BY_SUFFIX.get(Path(name).suffix.lower(), "application/octet-stream")


def kind_for(mime: str) -> str:
    """The coarse kind graders select on: ``image`` (raster), ``svg``, ``html`` or ``text``."""
    if mime == "image/svg+xml":
        return "svg"  # vector: it has to be rendered before pixel graders can look at it
    if mime.startswith("image/"):
        return "image"
    if mime == "text/html":
        return "html"
    return "text"


@dataclass(frozen=True)
class Artifact:
    """One output of a model: raw bytes plus what they are."""

    name: str  # file name inside the case folder, e.g. "image-0.png"
    data: bytes
    mime: str = ""
    path: Path | None = None  # set once the store has written it

    def __post_init__(self) -> None:
        if not self.mime:
            object.__setattr__(self, "mime", mime_for(self.name))

    @property
    def kind(self) -> str:
        return kind_for(self.mime)

    @functools.cached_property
    def sha256(self) -> str:
        # Asked for by the provenance file, the outcome's entries, the judges and the grade memo: hashed once.
        return hashlib.sha256(self.data).hexdigest()

    @classmethod
    def on_disk(cls, name: str, path: Path, mime: str = "") -> Artifact:
        """An artifact already written at ``path``; its bytes are read when first used, not now.

        pytest's thread hands each case its evaluation; reading every output back there, for a test that
        seldom opens it, cost that thread a file open, stat, read and close per case, and after each of
        those it waits behind the case threads for the interpreter lock: with 64 cases in flight pytest's
        loop already falls behind the calls (docs/throughput-log.md, tenth sitting).
        """
        artifact = object.__new__(cls)
        object.__setattr__(artifact, "name", name)
        object.__setattr__(artifact, "mime", mime)
        object.__setattr__(artifact, "path", path)
        artifact.__post_init__()
        return artifact

    if not TYPE_CHECKING:  # hidden from type checkers, which would otherwise accept any attribute name

        def __getattr__(self, attribute: str) -> Any:
            # Reached only for an attribute that is not set: ``data`` of an artifact from on_disk, until read.
            path = self.__dict__.get("path")
            if attribute != "data" or path is None:
                raise AttributeError(attribute)
            data = path.read_bytes()
            object.__setattr__(self, "data", data)
            return data


@dataclass(frozen=True)
class ModelOutput:
    """All a model returned for one case, with the params it was called with."""

    artifacts: tuple[Artifact, ...]
    params: Mapping[str, Any] = field(default_factory=dict)
    usage: Mapping[str, Any] = field(default_factory=dict)


def slug(text: str) -> str:
    """A folder-safe form of a model name (``openai:gpt-image-1`` -> ``openai_gpt-image-1``)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("._") or "model"


@contextlib.contextmanager
def exclusive_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` (made if missing) for the block: one process at a time.

    The file is opened afresh each time, so two threads of one process exclude each other too; the
    kernel drops the lock if the process dies.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # drops the lock


# What a write fails with when the disk, not the program, is at fault: full, over quota, too big a file,
# mounted read-only, or not ours to write.
DISK_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EACCES, errno.EPERM})


def is_disk_error(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno in DISK_ERRNOS


def describe_os_error(exc: OSError) -> str:
    """``No space left on device (ENOSPC) at /out/run/m/s/c``: the error, its errno name, and the folder it hit."""
    name = errno.errorcode.get(exc.errno or 0, "")
    text = f"{exc.strerror or exc}" + (f" ({name})" if name else "")
    if exc.filename is None:
        return text
    # Our writes go through a temporary file beside the target: the folder is what the user can act on.
    where = Path(os.fsdecode(exc.filename))
    return f"{text} at {where.parent if where.name.startswith('.') else where}"


def disk_error_message(exc: OSError) -> str:
    """An outcome's error for a write the disk refused (see :data:`DISK_ERRNOS`)."""
    return f"DiskError: cannot write: {describe_os_error(exc)}"


def making_folder(path: Path | str, make: Callable[[], T]) -> T:
    """``make()`` (which creates ``path`` or a file beside it), making ``path``'s folder only if it is missing.

    Tried first and the folder made on ``FileNotFoundError``: a ``mkdir`` on every write would cost
    more than the write itself when a run writes thousands of small files.
    """
    try:
        return make()
    except FileNotFoundError:
        os.makedirs(os.path.dirname(os.fspath(path)), exist_ok=True)
        return make()


def write_atomic(path: Path | str, data: bytes) -> None:
    """Write via a temporary file and rename, so readers never see half a file.

    The temporary name is this process's and thread's own (a thread writes one file at a time), and
    the file is made with the permissions a plain ``open()`` gives, and the folder only when missing.
    (``tempfile.mkstemp`` and ``chmod`` on every write cost more than the write itself.) The bytes go
    straight to the descriptor: a Python file object around it would add an ``fstat`` and an ``lseek``.
    """
    target = os.fspath(path)
    folder, name = os.path.split(target)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.{threading.get_native_id()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC
    fd = making_folder(target, lambda: os.open(tmp, flags, 0o666))
    try:
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if exc.filename is None and exc.errno is not None:  # a failed write names no file: name it (which folder is full)
            raise OSError(exc.errno, exc.strerror, tmp) from exc
        raise
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd`` (a write may take only part of a large buffer)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if not written:  # never for a regular file with room; no endless loop if a device says so
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view = view[written:]


class ArtifactStore:
    """Writes the outputs of one run below ``root/run_id``."""

    def __init__(self, root: Path, run_id: str):
        self.root = Path(root)
        self.run_id = run_id
        self._made: set[Path] = set()  # case folders this store made: each is made once, not tried at every write

    def _folder(self, folder: Path) -> Path:
        """``folder``, made if this store has not made it yet (its files then go straight in)."""
        if folder not in self._made:
            folder.mkdir(parents=True, exist_ok=True)
            self._made.add(folder)
        return folder

    def case_dir(self, model: str, suite: str, case_id: str) -> Path:
        return self.root / self.run_id / slug(model) / suite / case_id

    def _write(self, folder: Path, artifacts: tuple[Artifact, ...], producer: str) -> tuple[Artifact, ...]:
        saved = []
        for artifact in artifacts:
            if not _SAFE_NAME.match(artifact.name):
                raise ModelError(f"{producer} returned an artifact with an unsafe file name: {artifact.name!r}")
            target = self._folder(folder) / artifact.name
            write_atomic(target, artifact.data)
            saved.append(Artifact(artifact.name, artifact.data, artifact.mime, target))
        return tuple(saved)

    def save_derived(
        self, model: str, suite: str, case_id: str, artifacts: tuple[Artifact, ...], how: str
    ) -> tuple[Artifact, ...]:
        """Write files made from the model's output (extracted page, screenshots), noting how in the provenance."""
        folder = self.case_dir(model, suite, case_id)
        saved = self._write(folder, artifacts, how)
        record_path = folder / PROVENANCE_FILE
        provenance = json.loads(record_path.read_text(encoding="utf-8")) if record_path.is_file() else {}
        provenance.setdefault("derived", []).extend(
            {"name": a.name, "mime": a.mime, "bytes": len(a.data), "sha256": a.sha256, "how": how} for a in saved
        )
        write_atomic(record_path, json.dumps(provenance, indent=2, default=str).encode())
        return saved

    def save(self, model: str, suite: str, case_id: str, output: ModelOutput) -> tuple[Artifact, ...]:
        """Write every artifact and the provenance record; return them with paths."""
        folder = self.case_dir(model, suite, case_id)
        saved = self._write(folder, output.artifacts, model)
        provenance = {
            "case": f"{suite}/{case_id}",
            "model": model,
            "params": dict(output.params),
            "usage": dict(output.usage),
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "plugin_version": __version__,
            "artifacts": [{"name": a.name, "mime": a.mime, "bytes": len(a.data), "sha256": a.sha256} for a in saved],
        }
        write_atomic(self._folder(folder) / PROVENANCE_FILE, json.dumps(provenance, indent=2, default=str).encode())
        return tuple(saved)
