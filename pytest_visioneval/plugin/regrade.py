"""``--eval-regrade RUN``: grade an earlier run's stored outputs again, never calling the model under test.

RUN is an earlier run's folder (``<eval-output-dir>/<run-id>``, one folder per
model label) or its results JSON (which names that folder and the labels).
Each of its models becomes a model of this run under the SAME label, with the
spec ``regrade:<RUN>/<label folder>`` (models/replay.py, ``RegradeModel``),
so item ids, records, per-model sections, ``compare`` and baselines line up
with the earlier run while the graders and judges are this run's.

``--model LABEL`` (repeatable) picks some of the earlier run's models by
label; anything else given to ``--model`` is refused, and the ini's
``visioneval_model`` is not read. See docs/regrade.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import chain, islice
from pathlib import Path
from typing import Any

import pytest

from ..artifacts import PROVENANCE_FILE, slug
from ..errors import ConfigError
from ..report.results_json import SCHEMA_NAME
from .model_choices import ModelChoice
from .option_values import option_path, option_value

OPTION = "visioneval_regrade"
PROVIDER = "regrade"
_OUTPUTS = "one folder per model label, each holding <suite>/<case>/provenance.json as a run writes them"


@dataclass(frozen=True)
class EarlierRun:
    """An earlier run as a regrade sees it: its folder and its models' labels, in the run's order."""

    folder: Path
    labels: tuple[str, ...]
    source: Path  # what --eval-regrade named: the folder, or the results JSON

    def model_folder(self, label: str) -> Path:
        return self.folder / slug(label)  # as the artifact store names it


def add_regrade_option(parser: pytest.Parser) -> None:
    group = parser.getgroup("visioneval")
    help_text = (
        "grade the stored outputs of an earlier run (its folder <eval-output-dir>/<run-id>, or its results JSON) "
        "with this run's graders and judges, under the same model labels, never calling the model; --model LABEL "
        "picks some of its models (docs/regrade.md)"
    )
    group.addoption("--eval-regrade", dest=OPTION, metavar="RUN", help=f"{help_text} [ini: {OPTION}]")
    parser.addini(OPTION, help_text, default=None)


def regrade_models(config: pytest.Config) -> tuple[ModelChoice, ...]:
    """This run's models when it regrades an earlier run (``()`` when it does not); raises :class:`ConfigError`."""
    run = option_path(config, OPTION, config.rootpath)
    if run is None:
        return ()
    earlier = read_earlier_run(run)
    choices = regrade_choices(earlier, [str(v) for v in config.getoption("visioneval_model", None) or []])
    run_id = option_value(config, "visioneval_run_id")
    output_dir = option_path(config, "visioneval_output_dir", config.rootpath) or config.rootpath / ".visioneval"
    if run_id is not None and (output_dir / str(run_id)).resolve() == earlier.folder.resolve():
        raise ConfigError(
            f"--eval-regrade {run}: --eval-run-id {run_id} would write this run's outputs into the run it grades; "
            "give another run id (or none)"
        )
    return choices


def regrade_choices(earlier: EarlierRun, picked: Sequence[str] = ()) -> tuple[ModelChoice, ...]:
    """A model choice per earlier label (or per label in ``picked``), each replaying its folder under its label."""
    labels = earlier.labels
    if picked:
        by_name = {**{slug(label): label for label in labels}, **{label: label for label in labels}}
        chosen: list[str] = []
        for value in (v.strip() for v in picked):
            label = by_name.get(value)
            if label is None:
                raise ConfigError(
                    f"--eval-regrade grades the models of the earlier run {earlier.source} ({', '.join(labels)}) and "
                    f"never calls one: --model may only pick some of them by label, not {value!r}"
                )
            if label in chosen:
                raise ConfigError(f"--eval-regrade: --model picks {label!r} twice")
            chosen.append(label)
        labels = tuple(chosen)
    return tuple(ModelChoice(label, f"{PROVIDER}:{earlier.model_folder(label)}") for label in labels)


def read_earlier_run(path: Path) -> EarlierRun:
    """The run a results JSON names, or the run in a folder; :class:`ConfigError` when there are no outputs."""
    if path.is_file():
        earlier = _from_results(path)
        if not any(model_label(earlier.model_folder(label)) for label in earlier.labels):
            names = ", ".join(slug(label) for label in earlier.labels)
            raise ConfigError(f"--eval-regrade {path}: its run folder {earlier.folder} holds no model outputs (of {names})")
        return earlier
    if path.is_dir():
        return _from_folder(path)
    raise ConfigError(f"--eval-regrade {path}: no such run folder or results JSON")


def _from_folder(folder: Path) -> EarlierRun:
    folder = folder.resolve()
    labels = []
    for child in sorted(folder.iterdir()):
        if child.name.startswith(".") or child.is_symlink() or not child.is_dir():
            continue  # .exchange, .slots, the run lock: the run's own, not a model's
        label = model_label(child)
        if label is not None:
            labels.append(label)
    if not labels:
        hint = ""
        if model_label(folder) is not None:
            hint = f"; it looks like one model's folder: give its run folder, {folder.parent}"
        raise ConfigError(f"--eval-regrade {folder}: holds no model outputs ({_OUTPUTS}){hint}")
    return EarlierRun(folder, tuple(labels), folder)


def _from_results(path: Path) -> EarlierRun:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"--eval-regrade {path}: not a readable results JSON ({exc})") from None
    run = document.get("run") if isinstance(document, dict) else None
    if not isinstance(run, dict) or document.get("schema") != SCHEMA_NAME:
        raise ConfigError(f"--eval-regrade {path}: not a results JSON of pytest-visioneval (no {SCHEMA_NAME!r} schema)")
    specs, models = run.get("model_specs"), run.get("models")
    # Several models: every --model of the run, in its order; one model: the label its cases record.
    named = [*(specs if isinstance(specs, dict) else ()), *(models if isinstance(models, list) else ())]
    named += [case.get("model") for case in document.get("cases") or () if isinstance(case, dict)]
    labels = tuple(dict.fromkeys(label for label in named if isinstance(label, str) and label))
    if not labels and isinstance(run.get("model"), str) and run["model"]:
        labels = (run["model"],)
    if not labels:
        raise ConfigError(f"--eval-regrade {path}: the results name no model")
    folder = _run_folder(run, path)
    return EarlierRun(folder, labels, path.resolve())


def _run_folder(run: dict[str, Any], results: Path) -> Path:
    """The folder a results JSON names, or where it is now: beside the JSON, as the HTML report finds moved outputs."""
    base = results.resolve().parent
    recorded = Path(str(run.get("output_dir") or ""))
    run_id = str(run.get("id") or "")
    candidates = [recorded if recorded.is_absolute() else base / recorded] if str(recorded) not in ("", ".") else []
    if run_id:
        candidates += [base / run_id, base / recorded.parent.name / run_id]
    for candidate in candidates:
        if candidate.is_dir():
            return candidate.resolve()
    where = ", ".join(str(c) for c in dict.fromkeys(candidates)) or "(it names none)"
    raise ConfigError(f"--eval-regrade {results}: the run folder it names is not there: looked at {where}")


def model_label(folder: Path) -> str | None:
    """The label of the model whose outputs ``folder`` holds (None: not a model's folder of a run).

    A model's folder holds ``<suite>/<case>/provenance.json`` (``<case>/r1/`` with repeats, ``<case>/mutants/<name>/``
    in a mutation self-test), whose ``case`` is that path and whose ``model`` is the label the folder is named after.
    """
    for provenance in islice(_provenances(folder), 3):
        try:
            record = json.loads(provenance.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        if not isinstance(record, dict) or record.get("case") != provenance.parent.relative_to(folder).as_posix():
            continue
        label = record.get("model")
        return label if isinstance(label, str) and label and slug(label) == folder.name else folder.name
    return None


def _provenances(folder: Path) -> Iterator[Path]:
    patterns = ("*/*/", "*/*/*/", "*/*/*/*/")  # a case, a repeat, a mutant
    return chain.from_iterable(folder.glob(pattern + PROVENANCE_FILE) for pattern in patterns)
