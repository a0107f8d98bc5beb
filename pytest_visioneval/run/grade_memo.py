"""Grades of deterministic graders, kept in the call cache so a warm run does not decode and measure again.

A grader class that sets ``memoizable = True`` promises that its grade depends on nothing but its
options, the case's fields, the files the case names (input images, mask, reference) and the bytes
of the outputs (and the files its ``memo_files(case)`` lists, if it has that method); the ``image``,
``ssim``, ``similarity`` and ``locality`` graders do. Its grade is stored under a key made of all of
those (files by their path and SHA-256, outputs by name and SHA-256), the image limits of the
environment, and the code that grades: the hash of this package's version and source files and the
versions of numpy and Pillow. Any change to any of them is another key, so a stored grade is always
the grade the same code would make now.

Only grades that took :data:`MEMO_MIN_SECONDS` of CPU or more are stored: a store is one more file per case
in a cold run and a read in a warm one (about 0.1 ms each), while the ``image`` grader takes 0.5 ms
for a 64 px output and 10-17 ms for a 1024 px one. A warm run of 300 cases at 1024 px spent most of
its time grading the same outputs again (docs/throughput-log.md, sixteenth sitting).

Entries live in the call cache's ``grade`` folder and follow its modes (``--eval-cache``): ``read``
only reads, ``write`` only stores, ``off`` does neither.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..artifacts import Artifact
from ..calls.cache import CallCache, cache_key, digest
from ..calls.once import once
from ..cases.spec import CaseSpec
from ..graders import Gate, Grade, Metric

# Below this a grade is made again rather than stored and read back (see the module's docstring).
MEMO_MIN_SECONDS = 0.002
KIND = "grade"
_PACKAGE = Path(__file__).resolve().parent.parent


class GradeMemo:
    """Looks grades up in, and stores them to, a :class:`CallCache`."""

    def __init__(self, cache: CallCache):
        self.cache = cache

    def graded(
        self,
        use: str,
        options: dict[str, Any],
        case: CaseSpec,
        artifacts: Sequence[Artifact],
        make: Callable[[], Grade],
        files: Sequence[Path] = (),
    ) -> Grade:
        """The stored grade of ``use`` with ``options`` for this case and these outputs, else ``make()`` (stored if slow).

        ``files``: what the grader reads besides the files the case names (its ``memo_files``), keyed like them.
        """
        key = cache_key(KIND, {**_material(use, options, case, artifacts), "files": [_file_digest(p) for p in files]})
        stored = self.cache.get(KIND, key)
        if stored is not None:
            grade = _grade_from(stored)
            if grade is not None:
                return grade
        # This thread's CPU time, not the clock's: at c=64 a quick grade waits for the interpreter lock; timed
        # by the clock, 73 of 1000 grades of 64 px outputs looked slow and were stored (by CPU time: 2).
        started = time.thread_time()
        grade = make()
        if time.thread_time() - started >= MEMO_MIN_SECONDS:
            self.cache.put(KIND, key, _grade_entry(grade), {"grader": use, "case": case.uid})
        return grade


def _material(use: str, options: dict[str, Any], case: CaseSpec, artifacts: Sequence[Artifact]) -> dict[str, Any]:
    from ..cases.image_limits import max_case_pixels, max_image_pixels

    files = {
        "images": [_file_digest(p) for p in case.images],
        "mask": _file_digest(case.mask),
        "reference": _file_digest(case.reference),
    }
    return {
        "grader": use,
        "options": options,
        "case": {
            "uid": case.uid,
            "protocol": case.protocol,
            "task": case.task,
            "prompt": case.prompt,
            "criteria": case.criteria,
            "tags": list(case.tags),
            "params": case.params,
            "render": case.render,
            "fields": case.fields,
            **files,
        },
        "outputs": [[a.name, a.mime, a.sha256] for a in artifacts],
        "limits": [max_image_pixels(), max_case_pixels()],
        "code": code_fingerprint(),
    }


def _file_digest(path: Path | None) -> list[str] | None:
    """The file's path (a grade's reason may name it) and the hash of its content."""
    if path is None:
        return None
    try:
        return [str(path), digest(path.read_bytes())]
    except OSError as exc:  # the grader meets the same problem and says so; the key only has to differ
        return [str(path), f"unreadable: {exc.strerror}"]


@once
def code_fingerprint() -> str:
    """The hash of this package's version and Python source, with the versions of the libraries that measure pixels.

    Once per process (:func:`once`: the case threads that ask while it is made wait for it): about 8 ms for
    the package's source files.
    """
    import numpy
    import PIL

    from .. import __version__

    sha = hashlib.sha256(f"{__version__}; numpy {numpy.__version__}; Pillow {PIL.__version__}".encode())
    for source in sorted(_PACKAGE.rglob("*.py")):
        sha.update(str(source.relative_to(_PACKAGE)).encode())
        sha.update(source.read_bytes())
    return sha.hexdigest()


def _grade_entry(grade: Grade) -> dict[str, Any]:
    return {
        "gates": [[g.name, g.passed, g.reason] for g in grade.gates],
        "metrics": [[m.name, m.value, m.reason, m.higher_is_better] for m in grade.metrics],
        "skipped": grade.skipped,
    }


def _grade_from(entry: Any) -> Grade | None:
    """The grade an entry holds, or None for an entry of another shape (damaged by hand: graded again)."""
    try:
        gates = tuple(Gate(str(name), bool(passed), str(reason)) for name, passed, reason in entry["gates"])
        metrics = tuple(Metric(str(n), float(v), str(r), bool(h)) for n, v, r, h in entry["metrics"])
        skipped = entry["skipped"]
    except (KeyError, TypeError, ValueError):
        return None
    if skipped is not None and not isinstance(skipped, str):
        return None
    return Grade(gates=gates, metrics=metrics, skipped=skipped)
