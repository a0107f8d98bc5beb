"""gebench: the released data folder (or JSONL rows) -> one case file per task type, language and platform.

Two inputs are read (docs/protocols/gebench.md describes both):

* the release folder, laid out as the official harness reads it:
  ``<NN_task>/<lang_device>/<sample>/meta_data.json`` under SOURCE (or SOURCE
  is one ``<NN_task>`` folder), with ``NN_task`` one of ``01_single_step``,
  ``02_multi_step``, ``03_trajectory_text_fictionalapp``,
  ``04_trajectory_text_realapp``, ``05_grounding_data`` and ``lang_device``
  naming the language and platform (e.g. ``zh_phone``, ``en_computer``).
  ``meta_data.json`` gives the text (``instruction``, ``caption`` or
  ``question``), the reference screenshot (``image``, relative to the task
  folder or the sample folder) and, for grounding, ``grounding`` (the point or
  box) and ``grounding_explanation`` (the expected effect, for the judge).
* a ``.jsonl`` / ``.json`` file of rows with our field names (``id``,
  ``task_type``, ``instruction``, ``language``, ``platform``, ``image``,
  ``point``, ``box``, ``frames``, ``expected``), image paths relative to the file.

The exact release format is not pinned down by the paper: the keys above are
an assumption, checked on every sample, and anything else is an error naming
the file (or line) - never a silently dropped sample. Reference screenshots are
copied under ``OUT_DIR/assets/``.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..protocols.case_files import load_case_file
from ..protocols.gebench import PROTOCOL, TASK_TYPES

META_FILE = "meta_data.json"
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp")
_BAD_ID_CHARS = re.compile(r"[^A-Za-z0-9_.-]+")

# Release task folders: a word in the folder name -> task type.
_FOLDER_TASKS = (
    ("single_step", "single_step"),
    ("multi_step", "multi_step"),
    ("fictionalapp", "fiction_app"),
    ("fiction", "fiction_app"),
    ("realapp", "real_app"),
    ("real_app", "real_app"),
    ("grounding", "grounding"),
)
_LANGUAGE_WORDS = {"zh": "zh", "cn": "zh", "chinese": "zh", "en": "en", "english": "en"}
_PLATFORM_WORDS = {
    "phone": "phone",
    "mobile": "phone",
    "android": "phone",
    "ios": "phone",
    "computer": "computer",
    "pc": "computer",
    "desktop": "computer",
    "web": "computer",
    "windows": "computer",
    "mac": "computer",
}
_TEXT_KEYS = ("instruction", "caption", "question", "goal", "final_goal", "task")
_POINT_KEYS = ("point", "coordinate", "coordinates", "coord", "click", "position")
_BOX_KEYS = ("box", "bbox", "bounding_box")
# Said to the model when a grounding sample carries coordinates but no text.
_GROUNDING_DEFAULT = {"en": "Tap or click the element at the given position.", "zh": "点击指定位置上的元素。"}


@dataclass
class Sample:
    id: str
    task_type: str
    language: str
    platform: str
    instruction: str
    where: str  # the file (and line) it came from, for messages
    image: Path | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # point, box, frames, expected, sample


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", type=Path, help="the release data folder (or one task folder of it), or a .jsonl/.json file")
    parser.add_argument("out_dir", type=Path, help="folder for the case files (created if missing)")
    parser.add_argument(
        "--task-type",
        choices=TASK_TYPES,
        action="append",
        metavar="TYPE",
        help="import only this task type (repeatable; default: all)",
    )
    parser.add_argument(
        "--instructions-file",
        type=Path,
        metavar="PATH",
        help="your judge prompt (e.g. the official one): copied next to the case files and used by every case's judge",
    )


def run(args: argparse.Namespace) -> list[Path]:
    source: Path = args.source
    if source.is_dir():
        samples = list(read_release(source))
    elif source.is_file():
        samples = list(read_rows(source))
    else:
        raise ValueError(f"{source}: no such file or folder")
    if args.task_type:
        samples = [s for s in samples if s.task_type in args.task_type]
    if not samples:
        raise ValueError(f"{source}: no GEBench samples found")

    groups: dict[tuple[str, str, str], list[Sample]] = {}
    for sample in samples:
        groups.setdefault((sample.task_type, sample.language, sample.platform), []).append(sample)

    out_dir: Path = args.out_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    shared: dict[str, Any] = {}
    if args.instructions_file is not None:
        if not args.instructions_file.is_file():
            raise ValueError(f"--instructions-file: no such file: {args.instructions_file}")
        target = out_dir / args.instructions_file.name
        if target.resolve() != args.instructions_file.resolve():
            shutil.copyfile(args.instructions_file, target)
        shared["judge_instructions_file"] = target.name

    written = []
    for key in sorted(groups, key=lambda k: (TASK_TYPES.index(k[0]), k[1], k[2])):
        name = "-".join(key)
        cases = _cases(groups[key], out_dir, Path("assets") / name)
        path = out_dir / f"{name}.eval.yaml"
        path.write_text(_case_file(name, key, cases, shared, source.name), encoding="utf-8")
        load_case_file(path)  # raises CaseFileError naming the file, line and field
        written.append(path)
    return written


# -- the release folder ------------------------------------------------------


def task_type_of_folder(name: str) -> str | None:
    lowered = name.lower()
    for word, task_type in _FOLDER_TASKS:
        if word in lowered:
            return task_type
    return None


def language_platform(name: str, meta: Mapping[str, Any], where: str) -> tuple[str, str]:
    """Language and platform from the metadata, else from the ``lang_device`` folder name (``zh_phone``)."""
    words = [w for w in re.split(r"[^a-z]+", str(meta.get("lang_device") or name).lower()) if w]
    language = meta.get("language") or next((_LANGUAGE_WORDS[w] for w in words if w in _LANGUAGE_WORDS), None)
    platform = meta.get("platform") or next((_PLATFORM_WORDS[w] for w in words if w in _PLATFORM_WORDS), None)
    language = _LANGUAGE_WORDS.get(str(language).lower(), language)
    platform = _PLATFORM_WORDS.get(str(platform).lower(), platform)
    if language not in ("zh", "en") or platform not in ("phone", "computer"):
        raise ValueError(
            f"{where}: cannot tell the language (zh/en) and platform (phone/computer) from the folder name {name!r}; "
            "name it like 'zh_phone' or 'en_computer', or set 'language' and 'platform' in the metadata"
        )
    return language, platform


def read_release(source: Path) -> Iterator[Sample]:
    own = task_type_of_folder(source.name)
    task_folders = [(source, own)] if own else [(p, task_type_of_folder(p.name)) for p in sorted(source.iterdir()) if p.is_dir()]
    task_folders = [(p, t) for p, t in task_folders if t is not None]
    if not task_folders:
        raise ValueError(f"{source}: no task folders (01_single_step, 02_multi_step, ..., 05_grounding_data) found")
    for task_folder, task_type in task_folders:
        assert task_type is not None
        for lang_device in sorted(p for p in task_folder.iterdir() if p.is_dir()):
            for sample_dir in sorted(p for p in lang_device.iterdir() if p.is_dir()):
                meta_path = sample_dir / META_FILE
                if not meta_path.is_file():
                    raise ValueError(f"{sample_dir}: no {META_FILE} in this sample folder")
                try:
                    meta = json.loads(meta_path.read_text(encoding="utf-8"))
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{meta_path}: not valid JSON: {exc}") from None
                if not isinstance(meta, dict):
                    raise ValueError(f"{meta_path}: expected a JSON object, got {type(meta).__name__}")
                yield _release_sample(meta, task_type, task_folder, lang_device, sample_dir, str(meta_path))


def _release_sample(
    meta: Mapping[str, Any], task_type: str, task_folder: Path, lang_device: Path, sample_dir: Path, where: str
) -> Sample:
    language, platform = language_platform(lang_device.name, meta, where)
    text = next((str(meta[k]).strip() for k in _TEXT_KEYS if isinstance(meta.get(k), str) and meta[k].strip()), "")
    extra: dict[str, Any] = {"sample": f"{lang_device.name}/{sample_dir.name}"}
    if task_type == "grounding":
        extra.update(grounding_target(meta.get("grounding"), where))
        text = text or _GROUNDING_DEFAULT[language]
        if isinstance(meta.get("grounding_explanation"), str) and meta["grounding_explanation"].strip():
            extra["expected"] = meta["grounding_explanation"].strip()
    if not text:
        raise ValueError(f"{where}: no instruction text (looked for {', '.join(_TEXT_KEYS)})")
    image = None
    if meta.get("image") and task_type != "fiction_app":  # fiction-app samples are text only, by definition
        image = next((p for p in (task_folder / str(meta["image"]), sample_dir / str(meta["image"])) if p.is_file()), None)
        if image is None:
            raise ValueError(f"{where}: image {meta['image']!r} not found in {task_folder} or {sample_dir}")
    elif task_type in ("single_step", "multi_step", "grounding"):
        found = sorted(p for p in sample_dir.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not found:
            raise ValueError(f"{where}: a {task_type} sample needs its screenshot ('image' in the metadata)")
        image = found[0]  # the first in name order: the starting screen of a recorded sequence
    return Sample(_case_id(sample_dir.name), task_type, language, platform, text, where, image, extra)


def grounding_target(value: Any, where: str) -> dict[str, list[float]]:
    """``{"point": [x, y]}`` or ``{"box": [x1, y1, x2, y2]}`` from the spellings a release may use."""
    if isinstance(value, Mapping):
        for key in _BOX_KEYS:
            if key in value:
                return {"box": _numbers(value[key], 4, where)}
        for key in _POINT_KEYS:
            if key in value:
                return {"point": _numbers(value[key], 2, where)}
        if "x" in value and "y" in value:
            return {"point": _numbers([value["x"], value["y"]], 2, where)}
    elif isinstance(value, (list, tuple)) and len(value) in (2, 4):
        return {"point" if len(value) == 2 else "box": _numbers(value, len(value), where)}
    raise ValueError(f"{where}: 'grounding' must give a point [x, y] or a box [x1, y1, x2, y2] (0-1000), got {value!r}")


def _numbers(value: Any, count: int, where: str) -> list[float]:
    if (
        not isinstance(value, (list, tuple))
        or len(value) != count
        or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
    ):
        raise ValueError(f"{where}: expected {count} numbers for the grounding target, got {value!r}")
    return [v if isinstance(v, int) else float(v) for v in value]


# -- JSONL / JSON rows -------------------------------------------------------

_ROW_KEYS = {"id", "task_type", "instruction", "language", "platform", "image", "point", "box", "frames", "expected"}


def read_rows(source: Path) -> Iterator[Sample]:
    """Rows of a ``.jsonl`` file (one object per line) or a ``.json`` file (a list of objects)."""
    text = source.read_text(encoding="utf-8")
    if source.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{source}: not valid JSON: {exc}") from None
        if not isinstance(data, list):
            raise ValueError(f"{source}: expected a JSON list of samples")
        rows = [(f"{source}[{i}]", row) for i, row in enumerate(data)]
    else:
        rows = []
        for line_no, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    rows.append((f"{source}:{line_no}", json.loads(line)))
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{source}:{line_no}: not valid JSON: {exc}") from None
    for where, row in rows:
        yield row_sample(row, source.parent, where)


def row_sample(row: Any, base: Path, where: str) -> Sample:
    if not isinstance(row, dict):
        raise ValueError(f"{where}: expected a JSON object, got {type(row).__name__}")
    label = f"{where} (id {row.get('id')!r})" if "id" in row else where
    missing = [k for k in ("id", "task_type", "instruction", "language", "platform") if not row.get(k)]
    if missing:
        raise ValueError(f"{label}: missing {', '.join(repr(k) for k in missing)}")
    unknown = sorted(set(row) - _ROW_KEYS)
    if unknown:
        raise ValueError(f"{label}: unknown key(s) {', '.join(map(repr, unknown))}; known: {', '.join(sorted(_ROW_KEYS))}")
    if row["task_type"] not in TASK_TYPES:
        raise ValueError(f"{label}: task_type {row['task_type']!r} is not one of {', '.join(TASK_TYPES)}")
    image = None
    if row.get("image"):
        image = base / str(row["image"])
        if not image.is_file():
            raise ValueError(f"{label}: image {row['image']!r} not found (looked for {image})")
    extra = {k: row[k] for k in ("point", "box", "frames", "expected") if k in row}
    return Sample(
        _case_id(str(row["id"])), row["task_type"], row["language"], row["platform"], row["instruction"], label, image, extra
    )


# -- writing -----------------------------------------------------------------


def _case_id(name: str) -> str:
    cleaned = _BAD_ID_CHARS.sub("-", name).strip("-.") or "sample"
    return cleaned if cleaned[0].isalnum() else f"s{cleaned}"


def _cases(samples: list[Sample], out_dir: Path, assets: Path) -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    seen: dict[str, str] = {}
    for sample in samples:
        if sample.id in seen:
            raise ValueError(f"{sample.where}: case id {sample.id!r} is already used by {seen[sample.id]}")
        seen[sample.id] = sample.where
        fields = {"instruction": sample.instruction, **sample.extra}
        _check(sample, fields)
        case: dict[str, Any] = {"id": sample.id}
        if sample.image is not None:
            relative = assets / f"{sample.id}{sample.image.suffix.lower()}"
            (out_dir / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(sample.image, out_dir / relative)
            case["images"] = [relative.as_posix()]
        case["fields"] = fields
        cases.append(case)
    return cases


def _check(sample: Sample, fields: Mapping[str, Any]) -> None:
    """The protocol's own checks, so a bad sample is named by its source rather than by the written file."""
    merged = {**fields, "task_type": sample.task_type, "language": sample.language, "platform": sample.platform}
    from jsonschema import Draft202012Validator

    errors = sorted(Draft202012Validator(PROTOCOL.fields_schema).iter_errors(merged), key=lambda e: list(map(str, e.path)))
    if errors:
        where = ".".join(map(str, errors[0].absolute_path)) or "sample"
        raise ValueError(f"{sample.where}: {where}: {errors[0].message}")
    try:
        PROTOCOL.case_defaults(merged, {"images": [str(sample.image)] if sample.image else []})
    except ValueError as exc:
        raise ValueError(f"{sample.where}: {exc}") from None


def _case_file(name: str, key: tuple[str, str, str], cases: list[dict[str, Any]], shared: Mapping[str, Any], source: str) -> str:
    task_type, language, platform = key
    document = {
        "version": 1,
        "suite": f"gebench-{name}",
        "protocol": "gebench",
        "description": f"GEBench {task_type} samples ({language}, {platform}), imported from {source}",
        "defaults": {"fields": {"task_type": task_type, "language": language, "platform": platform, **shared}},
        "cases": cases,
    }
    header = "# Written by `python -m pytest_visioneval.importers gebench`; edit the source data, not this file.\n"
    return header + yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=120)
