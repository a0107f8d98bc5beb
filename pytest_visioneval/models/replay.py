"""Grade outputs that were produced elsewhere, matched by case id.

``--model=replay:DIR`` looks, for case ``suite/case``, at either

* ``DIR/suite/case/`` - the model's own output files in it, in name order
  (this is the layout the artifact store writes, so a past run's
  ``<output>/<run>/<model>`` folder can be replayed as is), or
* ``DIR/suite/case.<ext>`` - a single file.

Only what a model returned is replayed; everything made from it (the page
extracted from a reply, screenshots, the DOM snapshot, render.json) is made
again by this run, so an edited reply is what gets graded and nothing is
counted twice. In a folder with a ``provenance.json`` (one the store wrote),
the files it lists under ``artifacts`` are the outputs and every other file is
ignored; without one, files named as the renderer names its captures are
ignored. Which files were left out is recorded in the case's provenance.
A symbolic link is refused: a replayed output is read from the folder itself.

``regrade:FOLDER`` (:class:`RegradeModel`, what ``--eval-regrade RUN`` makes for
each model of an earlier run, FOLDER being ``RUN/<model label>``) replays the
same way; a case that run did not store is an error saying so.
"""

from __future__ import annotations

import glob
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..artifacts import PROVENANCE_FILE, Artifact, ModelOutput
from ..cases.spec import CaseSpec
from ..errors import ModelError
from ..graders.rendered import is_capture
from .base import ModelSettings


class ReplayModel:
    waits_only_in_calls = True  # it reads files: nothing to wait for

    def __init__(self, root: Path, name: str):
        self.root = root
        self.name = name

    @classmethod
    def from_argument(cls, argument: str, settings: ModelSettings) -> ReplayModel:
        if not argument:
            raise ModelError("replay needs a folder: --model=replay:PATH")
        root = Path(argument).expanduser()
        if not root.is_dir():
            raise ModelError(f"replay folder not found: {root}")
        return cls(root.resolve(), f"replay:{argument}")

    def generate(self, case: CaseSpec, params: Mapping[str, Any]) -> ModelOutput:
        folder = self.root / case.suite / case.id
        ignored: list[str] = []
        if folder.is_dir() and not folder.is_symlink():
            files, ignored = output_files(folder)
            if not files:
                raise ModelError(f"replay folder {folder} holds no output files for {case.uid}")
        else:
            # stem == id: case "logo" must not pick up "logo.v2.png", the output of case "logo.v2".
            candidates = (self.root / case.suite).glob(f"{glob.escape(case.id)}.*")
            files = sorted(p for p in candidates if (p.is_file() or p.is_symlink()) and p.stem == case.id)
            if not files:
                raise ModelError(
                    f"no replayed output for {case.uid}: looked for {folder}/ and {self.root / case.suite / case.id}.*"
                )
        for path in files:
            if path.is_symlink():
                raise ModelError(f"replay refuses {path}: a symbolic link (copy the file into the folder instead)")
        artifacts = tuple(Artifact(p.name, p.read_bytes()) for p in files)
        replayed: dict[str, Any] = {"replayed_from": str(files[0].parent)}
        if ignored:
            replayed["ignored_derived"] = ignored
        return ModelOutput(artifacts=artifacts, params=replayed)


class RegradeModel(ReplayModel):
    """One model's folder of an earlier run, graded again (``--eval-regrade``, docs/regrade.md).

    Named as the folder (the earlier model's label, folder-safe), not ``regrade:FOLDER``: what the name
    names (the snapshot folder of a run of one model) is then the earlier run's.
    """

    @classmethod
    def from_argument(cls, argument: str, settings: ModelSettings) -> RegradeModel:
        if not argument:
            raise ModelError("regrade needs an earlier run's model folder: regrade:RUN/LABEL (made by --eval-regrade RUN)")
        root = Path(argument).expanduser()
        if not root.is_dir():
            raise ModelError(f"regrade: the earlier run's model folder {root} is not there")
        return cls(root.resolve(), root.resolve().name)

    def generate(self, case: CaseSpec, params: Mapping[str, Any]) -> ModelOutput:
        folder = self.root / case.suite / case.id
        run = self.root.parent
        if not folder.is_dir():
            raise ModelError(
                f"{case.uid} is not in the earlier run {run}: no output folder {folder}/ (that run did not store an "
                "output for it: it was not selected there, or it errored before its model returned)"
            )
        repeats = sorted(p.name for p in folder.glob("r[0-9]*") if p.is_dir() and p.name[1:].isdigit())
        if repeats and not any(p.is_file() for p in folder.iterdir()):
            raise ModelError(
                f"{case.uid} ran {len(repeats)} times in the earlier run {run} (--eval-repeats): its outputs are in "
                f"{folder}/{repeats[0]}/ ... and a regrade grades one output per case"
            )
        return super().generate(case, params)


def output_files(folder: Path) -> tuple[list[Path], list[str]]:
    """The model's own output files in ``folder`` (name order) and the names of those left out as derived."""
    candidates = sorted(p for p in folder.iterdir() if p.name != PROVENANCE_FILE and not p.name.startswith("."))
    candidates = [p for p in candidates if p.is_file() or p.is_symlink()]
    listed = _listed_outputs(folder / PROVENANCE_FILE)
    if listed is None:
        keep = [p for p in candidates if not is_capture(p.name)]
    else:
        missing = sorted(listed - {p.name for p in candidates})
        if missing:
            raise ModelError(f"replay folder {folder}: its {PROVENANCE_FILE} lists {', '.join(missing)}, which are not there")
        keep = [p for p in candidates if p.name in listed]
    return keep, [p.name for p in candidates if p not in keep]


def _listed_outputs(provenance: Path) -> set[str] | None:
    """The output names a provenance record lists, or None when there is no record (or it lists none)."""
    if not provenance.is_file():
        return None
    try:
        record = json.loads(provenance.read_text(encoding="utf-8"))
        if not isinstance(record, dict) or "artifacts" not in record:
            return None  # not a record the store wrote
        return {str(entry["name"]) for entry in record["artifacts"]}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ModelError(
            f"replay cannot read {provenance} ({type(exc).__name__}: {exc}); it says which files are the model's "
            "outputs: fix it, or remove it to replay every file but the renderer's captures"
        ) from exc
