"""Regression baselines for cases, stored with syrupy (``--eval-snapshot``).

Two single-file extensions, one file per case and kind, in a folder per model::

    <case file dir>/__eval_snapshots__/<case file stem>/<model slug>/<case id>.scores.json
    <case file dir>/__eval_snapshots__/<case file stem>/<model slug>/<case id>.image-<n>.png

* :class:`ScoresSnapshotExtension` stores gates as ``{name: passed}`` and
  metrics as ``{name: value}`` (rounded), plus the absolute ``tolerance`` the
  metrics are compared with. Gates must be equal; a metric may move by at
  most the stored tolerance.
* :class:`PNGSnapshotExtension` stores each raster output as PNG; a case
  matches when every image has the same size and pixels.

Why this layout. ``--snapshot-update`` deletes snapshot files it considers
unused: syrupy scans a test file's ``__snapshots__`` folder with every
extension in use (the default amber one too, recursively, treating any file
it does not own as an unknown leftover) and removes what no assertion of the
run touched. For case files that would remove a case's baseline whenever the
case errors before comparing, and every other model's baselines. So:

1. the baselines live in ``__eval_snapshots__``, a folder syrupy's own
   extensions never scan;
2. our extensions' ``discover_snapshots`` only offers syrupy the baselines of
   the current model whose case is no longer defined in the case file. A case
   that errors, is skipped or deselected, and any other model's folder, are
   never candidates for deletion.
"""

from __future__ import annotations

import io
import json
import math
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pytest
from PIL import Image, UnidentifiedImageError
from syrupy.data import SnapshotCollections
from syrupy.extensions.image import PNGImageSnapshotExtension
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode
from syrupy.location import PyTestLocation

from ..artifacts import Artifact, slug
from ..graders.outcome import CaseEvaluation
from .options import settings_key

if TYPE_CHECKING:
    from syrupy.assertion import SnapshotAssertion
    from syrupy.types import PropertyFilter, PropertyMatcher, SerializableData, SerializedData, SnapshotIndex

SNAPSHOT_DIRNAME = "__eval_snapshots__"
# The model whose folder this run reads and writes; set by check_snapshots.
_model_key = pytest.StashKey[str]()


def _model_slug(item: Any) -> str:
    config = getattr(item, "config", None)
    if config is None:
        return "model"
    # One of several models: the item's own; else the run's model (its label, when --model LABEL=SPEC named it).
    name = getattr(item, "model_label", None) or config.stash.get(_model_key, None) or config.stash[settings_key].model
    return slug(name)


class _CaseSnapshotExtension(SingleFileSnapshotExtension):
    """File layout and unused-snapshot discovery shared by both extensions."""

    # How the snapshot name (after "<case id>.") of this kind looks, e.g. "scores".
    name_pattern: ClassVar[str] = ""

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        case_file = Path(test_location.filepath)
        return str(case_file.parent / SNAPSHOT_DIRNAME / case_file.stem / _model_slug(test_location.item))

    @classmethod
    def discovery_dirname(cls, *, test_location: PyTestLocation) -> str:
        return cls.dirname(test_location=test_location)

    @classmethod
    def get_snapshot_name(cls, *, test_location: PyTestLocation, index: SnapshotIndex = 0) -> str:
        # All cases of a file share one module, so the name starts with the case id
        # (case ids are already file-name safe; the uid has a slash).
        case = getattr(test_location.item, "case", None)
        base = case.id if case is not None else cls._sanitize_filename(test_location.snapshot_name)
        return f"{base}.{index}" if index not in (0, "") else base

    @classmethod
    def matches_test_location(cls, *, test_location: PyTestLocation, snapshot_location: str) -> bool:
        folder = Path(snapshot_location).parent.parent  # .../__eval_snapshots__/<stem>
        case_file = Path(test_location.filepath)
        return folder == case_file.parent / SNAPSHOT_DIRNAME / case_file.stem

    @classmethod
    def case_id_of(cls, filename: str) -> str | None:
        match = re.fullmatch(rf"(.+)\.{cls.name_pattern}\.{re.escape(cls.file_extension)}", filename)
        return match[1] if match else None

    def discover_snapshots(
        self, *, test_location: PyTestLocation, ignore_extensions: list[str] | None = None
    ) -> SnapshotCollections:
        """Only this model's baselines of cases the case file no longer defines (see the module docstring)."""
        found = SnapshotCollections()
        suite = getattr(test_location.item, "suite", None)
        folder = Path(self.dirname(test_location=test_location))
        if suite is None or not folder.is_dir():
            return found
        defined = {case.id for case in suite.cases}
        for path in sorted(folder.iterdir()):
            case_id = self.case_id_of(path.name)
            if case_id is not None and case_id not in defined:
                found.add(self.read_snapshot_collection(snapshot_location=str(path)))
        return found


class ScoresSnapshotExtension(_CaseSnapshotExtension):
    """A case's gates (exact) and metrics (within the stored absolute tolerance), as JSON."""

    file_extension = "json"
    _write_mode = WriteMode.TEXT
    name_pattern = "scores"
    default_tolerance: ClassVar[float] = 1e-6
    digits: ClassVar[int] = 10  # metrics are stored rounded to this many decimals
    # Metrics that measure the run rather than the output (timings) are left out.
    unstable_metrics: ClassVar[frozenset[str]] = frozenset({"render.seconds"})

    @classmethod
    def scores(cls, evaluation: CaseEvaluation, tolerance: float | None = None) -> dict[str, Any]:
        return {
            "case": evaluation.case.uid,
            "gates": {g.gate.name: g.gate.passed for g in evaluation.gates},
            # "+ 0.0" turns -0.0 into 0.0, so a sign flip of nothing shows no diff.
            "metrics": {
                m.name: round(m.value, cls.digits) + 0.0 for m in evaluation.metrics if m.name not in cls.unstable_metrics
            },
            "tolerance": cls.default_tolerance if tolerance is None else tolerance,
        }

    def serialize(
        self,
        data: SerializableData,
        *,
        exclude: PropertyFilter | None = None,
        include: PropertyFilter | None = None,
        matcher: PropertyMatcher | None = None,
    ) -> SerializedData:
        scores = self.scores(data) if isinstance(data, CaseEvaluation) else data
        return json.dumps(scores, indent=2, sort_keys=True) + "\n"

    def matches(self, *, serialized_data: SerializableData, snapshot_data: SerializableData) -> bool:
        return not self.differences(snapshot_data, serialized_data)

    def diff_lines(self, serialized_data: SerializedData, snapshot_data: SerializedData) -> Iterator[str]:
        yield from self.differences(snapshot_data, serialized_data)

    def differences(self, stored_text: Any, received_text: Any) -> list[str]:
        """What changed from the stored baseline to this run, one line each."""
        try:
            stored, received = json.loads(stored_text), json.loads(received_text)
            tolerance = float(stored.get("tolerance", self.default_tolerance))
            old_gates, new_gates = dict(stored["gates"]), dict(received["gates"])
            old_metrics = {k: float(v) for k, v in stored["metrics"].items()}
            new_metrics = {k: float(v) for k, v in received["metrics"].items()}
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            return [f"the stored scores are not readable ({type(exc).__name__}: {exc})"]
        if not (math.isfinite(tolerance) and tolerance >= 0):
            return [f"the stored tolerance must be a number >= 0, got {stored.get('tolerance')!r}"]
        lines = []
        for name in sorted(old_gates.keys() | new_gates.keys()):
            old, new = old_gates.get(name), new_gates.get(name)
            if old is None or new is None:
                lines.append(f"gate {name}: " + (f"new ({_verdict(new)})" if old is None else f"gone (was {_verdict(old)})"))
            elif old != new:
                lines.append(f"gate {name} flipped: {_verdict(old)} -> {_verdict(new)}")
        for name in sorted(old_metrics.keys() | new_metrics.keys()):
            if name not in old_metrics:
                lines.append(f"metric {name}: new ({new_metrics[name]:.6g})")
            elif name not in new_metrics:
                lines.append(f"metric {name}: gone (was {old_metrics[name]:.6g})")
            elif abs(new_metrics[name] - old_metrics[name]) > tolerance:
                before, after = old_metrics[name], new_metrics[name]
                lines.append(
                    f"metric {name} moved by {after - before:+.6g} ({before:.6g} -> {after:.6g}), tolerance {tolerance:g}"
                )
        return lines


def _verdict(passed: bool | None) -> str:
    return "passed" if passed else "failed"


class PNGSnapshotExtension(_CaseSnapshotExtension, PNGImageSnapshotExtension):
    """One raster output of a case as PNG; equal when size and pixels are equal."""

    name_pattern = r"image-\d+"

    def serialize(self, data: SerializableData, **kwargs: Any) -> bytes:
        if isinstance(data, Artifact):
            data = data.data if data.mime == "image/png" else _to_png(data.data)
        return bytes(data)

    def matches(self, *, serialized_data: SerializableData, snapshot_data: SerializableData) -> bool:
        return serialized_data == snapshot_data or not image_differences(snapshot_data, serialized_data)

    def diff_lines(self, serialized_data: SerializedData, snapshot_data: SerializedData) -> Iterator[str]:
        yield from image_differences(snapshot_data, serialized_data)


def _to_png(data: bytes) -> bytes:
    buffer = io.BytesIO()
    with Image.open(io.BytesIO(data)) as img:
        img.save(buffer, format="PNG")
    return buffer.getvalue()


def _pixels(data: Any) -> np.ndarray:
    with Image.open(io.BytesIO(bytes(data))) as img:
        return np.asarray(img.convert("RGBA"), dtype=np.int16)


def image_differences(stored: Any, received: Any) -> list[str]:
    try:
        old, new = _pixels(stored), _pixels(received)
    except (UnidentifiedImageError, OSError, TypeError) as exc:
        return [f"cannot compare the images ({type(exc).__name__}: {exc})"]
    if old.shape != new.shape:
        return [f"size changed: {old.shape[1]}x{old.shape[0]} -> {new.shape[1]}x{new.shape[0]}"]
    delta = np.abs(old - new)
    changed = int(np.count_nonzero(delta.max(axis=-1)))
    if not changed:
        return []
    return [f"{changed} of {old.shape[0] * old.shape[1]} pixels differ (largest channel difference {int(delta.max())})"]


def check_snapshots(
    request: pytest.FixtureRequest,
    evaluation: CaseEvaluation,
    model_name: str,
    kinds: frozenset[str] | set[str],
) -> list[str]:
    """Compare the case with its baselines under ``model_name``'s folder; return what differs.

    ``kinds`` holds "scores" and/or "png". With ``--snapshot-update`` the
    baselines are (re)written instead and nothing is returned.
    """
    request.config.stash[_model_key] = model_name
    snapshot: SnapshotAssertion = request.getfixturevalue("snapshot")
    problems: list[str] = []
    if "scores" in kinds:
        scores = snapshot.use_extension(ScoresSnapshotExtension)
        location = Path(ScoresSnapshotExtension.get_location(test_location=scores.test_location, index="scores"))
        data = ScoresSnapshotExtension.scores(evaluation, _stored_tolerance(location))
        problems += _compare(scores, "scores", data, request.config)
    if "png" in kinds:
        images = snapshot.use_extension(PNGSnapshotExtension)
        produced = [a for a in evaluation.artifacts if a.kind == "image"]
        for n, artifact in enumerate(produced):
            problems += _compare(images, f"image-{n}", artifact, request.config, f" ({artifact.name})")
        problems += _extra_image_baselines(images, len(produced), request.config)
    return problems


def _stored_tolerance(location: Path) -> float | None:
    """The tolerance of an existing baseline, so an update keeps a hand-set one."""
    try:
        value = json.loads(location.read_text(encoding="utf-8")).get("tolerance")
    except (OSError, ValueError, AttributeError):
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (math.isfinite(value) and value >= 0):
        return None
    return float(value)


def _compare(assertion: SnapshotAssertion, name: str, data: Any, config: pytest.Config, what: str = "") -> list[str]:
    with warnings.catch_warnings():
        # syrupy cannot relate our per-case names to the test function's name; that is expected.
        warnings.filterwarnings("ignore", message=r"\s*Can not relate snapshot")
        if assertion(name=name) == data:
            return []
    result = assertion.executions[assertion.num_executions - 1]
    where = _relative(result.snapshot_location, config) + what
    if result.exception is not None:
        return [f"snapshot {where}: {type(result.exception).__name__}: {result.exception}"]
    if result.recalled_data is None:
        return [f"snapshot {where} does not exist yet; create it with --snapshot-update"]
    lines = assertion.extension.diff_lines(result.asserted_data or "", result.recalled_data)
    return [f"snapshot {where} differs:"] + [f"  - {line}" for line in lines]


def _extra_image_baselines(assertion: SnapshotAssertion, produced: int, config: pytest.Config) -> list[str]:
    """Baseline images beyond the ones this run produced: removed on update, reported otherwise."""
    folder = Path(PNGSnapshotExtension.dirname(test_location=assertion.test_location))
    case_name = PNGSnapshotExtension.get_snapshot_name(test_location=assertion.test_location)
    pattern = re.compile(rf"{re.escape(case_name)}\.image-(\d+)\.png")
    extra = sorted(p for p in folder.glob("*.png") if (m := pattern.fullmatch(p.name)) and int(m[1]) >= produced)
    if config.option.update_snapshots:
        for path in extra:
            path.unlink()
        return []
    return [f"snapshot {_relative(str(p), config)} has no image to compare: the case produced {produced}" for p in extra]


def _relative(location: str, config: pytest.Config) -> str:
    try:
        return str(Path(location).relative_to(config.rootpath))
    except ValueError:
        return location
