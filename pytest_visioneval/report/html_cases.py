"""The case list of the report as one compact JSON value, which the page renders.

The page draws only the cases of the current page, so the HTML stays small
whatever the run's size; everything it filters and sorts on is here. Images
are indices into one table (:class:`~.html_images.ReportImages`), so a mask or
a reference shared by many cases is stored once.

Shape (keys are short: this is repeated once per case)::

    {"models": [...], "statuses": [...], "suites": [...], "tags": [...],
     "metrics": [[name, higher_is_better], ...],
     "images": [[thumb_url, full_url, width, height, note], ...],
     "cases": [{"key", "uid", "suite", "model", "status", "tags", "meta", "duration",
                "prompt", "criteria", "error", "message", "reply",
                "v": {metric index: value}, "mr": {metric index: reason},
                "g": [[gate, passed, gating, reason], ...],
                "inputs"/"refs"/"outs"/"diff": [[label, image index], ...],
                "files", "refnote", "skipped", "extra",
                "lk": the case as label files name it, "j": [[name, kind, judged, text], ...]}, ...]}

``key`` groups the records of one case run by several models (the page
shows them side by side). ``j`` lists what a judge decided in the case, for
people to label (:func:`judged_items`); ``lk`` is the case's name in the
label CSV that ``agreement`` and ``--eval-labels`` read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..artifacts import kind_for, mime_for
from ..graders.rendered import is_capture
from ..results.aggregate import STATUSES
from ..results.case_keys import case_keys
from .html_diff import edit_diff
from .html_images import ReportImages

REPLY_LIMIT = 20_000  # characters of a reply shown per file
REFERENCE_FRAMES = 12  # images shown of a reference folder (a trajectory)

# Graders whose gates and metrics a judge decides: what people label for calibration.
JUDGE_GRADERS = frozenset({"rubric", "checklist", "score", "viescore", "image_quality", "marked_score", "checklist_points"})
# Metrics a judge grader derives from its answers (means, spreads, totals): labelling them would count the answers twice.
DERIVED_METRICS = frozenset({"mean", "std", "normalized", "errors", "total", "score", "overall", "sc", "pq"})


def graders_of(case: Mapping[str, Any]) -> dict[str, str]:
    """The case's graders, name -> kind (``use``), from the record's ``graders``; empty for a record without them."""
    found = case.get("graders")
    return {str(name): str(kind) for name, kind in found.items()} if isinstance(found, Mapping) else {}


def _grader_of(name: str, graders: Sequence[tuple[str, str]]) -> tuple[str, str]:
    """(the grader's kind, the rest of the name) of a gate or metric name ``<grader name>.<rest>``.

    ``graders`` (name, kind), longest name first, come from the record's ``graders``, so a judge renamed in a
    case file (``name: style_check``) is still known as one; a name they do not cover is read by its first
    part, the grader's default name.
    """
    for grader, kind in graders:
        if name.startswith(grader) and name[len(grader) : len(grader) + 1] == ".":
            return kind, name[len(grader) + 1 :]
    first, _, rest = name.partition(".")
    return first, rest


def _is_question(rest: str) -> bool:
    """``q7``: one yes/no answer of a checklist (its value is the share of judges who said yes)."""
    return rest[:1] == "q" and rest[1:].isdigit()


def judged_items(case: Mapping[str, Any]) -> list[list[Any]]:
    """What a judge decided in a case, for labelling: ``[name, kind, judged, text]``.

    ``kind`` is "b" (yes/no: a judge grader's gate, a checklist answer; ``judged`` is 1 or 0) or
    "n" (a score; ``judged`` is the number). A grader is known by its kind (see :func:`_grader_of`).
    """
    graders = sorted(graders_of(case).items(), key=lambda item: -len(item[0]))  # "a.b" is tried before "a"
    items: list[list[Any]] = []
    for gate in case.get("gates") or []:
        if _grader_of(str(gate["name"]), graders)[0] in JUDGE_GRADERS:
            items.append([gate["name"], "b", 1 if gate["passed"] else 0, str(gate.get("reason", ""))])
    for metric in case.get("metrics") or []:
        name = str(metric["name"])
        kind, rest = _grader_of(name, graders)
        if kind not in JUDGE_GRADERS or not rest:
            continue
        if kind == "checklist" and _is_question(rest):
            items.append([name, "b", 1 if metric["value"] >= 0.5 else 0, str(metric.get("reason", ""))])
        elif not (set(rest.split(".")) & DERIVED_METRICS or rest.startswith("failure_tag.") or kind == "checklist"):
            items.append([name, "n", metric["value"], str(metric.get("reason", ""))])
    return items


def group_key(case: Mapping[str, Any]) -> str:
    """The case without its model: a uid's ``[model]`` suffix is dropped when it names the case's model."""
    uid = str(case.get("uid", ""))
    model = case.get("model")
    if model and uid.endswith("]"):
        head, _, inner = uid[:-1].rpartition("[")
        names = {str(model), *str(model).split(":", 1)[1:]}
        if head and inner in names:
            return head
        # a sweep and a model together: case[quality=low-model] is not ours to guess; keep the uid
    return uid


def _is_image(mime: str) -> bool:
    return mime.startswith("image/")


def _image_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_file() and _is_image(mime_for(p.name)))[:REFERENCE_FRAMES]


class _Builder:
    def __init__(self, images: ReportImages):
        self.images = images
        self.metrics: dict[str, int] = {}
        self.higher: dict[str, bool] = {}

    def metric_index(self, name: str, higher: bool) -> int:
        if name not in self.metrics:
            self.metrics[name] = len(self.metrics)
            self.higher[name] = higher
        return self.metrics[name]

    def case(self, case: Mapping[str, Any]) -> dict[str, Any]:
        status = str(case["status"]) if case.get("status") in STATUSES else "unknown"
        meta = [case.get("protocol"), case.get("task"), case.get("source")]
        record: dict[str, Any] = {
            "key": group_key(case),
            "uid": case.get("uid", ""),
            "suite": case.get("suite", ""),
            "model": case.get("model") or "",
            "status": status,
            "tags": [str(t) for t in case.get("tags") or []],
            "meta": " · ".join(str(m) for m in meta if m),
            "duration": case.get("duration"),
        }
        for field in ("prompt", "criteria", "error"):
            if case.get(field):
                record[field] = str(case[field])
        if case.get("message") and status != "passed":
            record["message"] = str(case["message"])
        values, reasons = {}, {}
        for metric in case.get("metrics") or []:
            index = self.metric_index(metric["name"], bool(metric.get("higher_is_better", True)))
            values[index] = metric["value"]
            if metric.get("reason"):
                reasons[index] = str(metric["reason"])
        record["v"], record["mr"] = values, reasons
        record["g"] = [
            [g["name"], bool(g["passed"]), bool(g.get("gating", True)), str(g.get("reason", ""))] for g in case.get("gates") or []
        ]
        self._images(case, record, status)
        skipped = [[s["name"], s["reason"]] for s in case.get("skipped_graders") or []]
        if skipped:
            record["skipped"] = skipped
        extra = _extra(case)
        if extra:
            record["extra"] = extra
        return record

    def _images(self, case: Mapping[str, Any], record: dict[str, Any], status: str) -> None:
        inputs = case.get("inputs") or {}
        given = [[f"input {i + 1}", self.images.add(p)] for i, p in enumerate(inputs.get("images") or [])]
        if inputs.get("mask"):
            given.append(["mask", self.images.add(inputs["mask"])])
        refs: list[list[Any]] = []
        reference = inputs.get("reference")
        if reference:
            where = Path(reference)
            if where.is_dir():
                refs = [[f"reference {p.name}", self.images.add(p)] for p in _image_files(where)]
                record["refnote"] = f"reference folder: {reference}"
            elif _is_image(mime_for(reference)):
                refs = [["reference", self.images.add(reference)]]
            else:
                record["refnote"] = f"reference: {reference}"
        artifacts = case.get("artifacts") or []
        outs = [[a["name"], self.images.add(a["path"])] for a in artifacts if _is_image(a.get("mime", ""))]
        files = [a["name"] for a in artifacts if not _is_image(a.get("mime", ""))]
        record.update(inputs=given, refs=refs, outs=outs, files=files)
        diff = self._diff(case, inputs, artifacts)
        if diff is not None:
            record["diff"] = [diff]
        if status == "error" or (status == "failed" and not outs):
            reply = _reply(artifacts)
            if reply:
                record["reply"] = reply

    def _diff(self, case: Mapping[str, Any], inputs: Mapping[str, Any], artifacts: Sequence[Any]) -> list[Any] | None:
        """For an edit: the first output against the first input, the mask outlined."""
        if case.get("task") != "image_editing" or not inputs.get("images"):
            return None
        output = next((a["path"] for a in artifacts if _is_image(a.get("mime", "")) and a.get("mime") != "image/svg+xml"), None)
        source = inputs["images"][0]
        if output is None or not Path(source).is_file() or not Path(output).is_file():
            return None
        mask = inputs.get("mask")
        mask_path = Path(mask) if mask and Path(mask).is_file() else None
        key = json.dumps([source, output, mask])
        index = self.images.add_generated(key, lambda: edit_diff(Path(source), Path(output), mask_path))
        label = "diff vs input 1" + (" (mask outlined)" if mask_path else "")
        return [label, index]


def _reply(artifacts: Sequence[Mapping[str, Any]]) -> str:
    """What the model answered in text (its reply, the page taken from it), for a case that has nothing else to see."""
    parts = []
    for artifact in artifacts:
        mime = artifact.get("mime", "")
        if kind_for(mime) not in ("text", "html") or mime == "application/octet-stream" or is_capture(artifact["name"]):
            continue
        path = Path(artifact["path"])
        try:
            with path.open("rb") as handle:  # a reply can be huge: read no more than is shown
                head = handle.read(4 * REPLY_LIMIT + 4)
            size = path.stat().st_size
        except OSError as exc:
            parts.append(f"--- {artifact['name']} (cannot read: {exc})")
            continue
        text = head.decode("utf-8", errors="replace")
        cut = ""
        if len(text) > REPLY_LIMIT or size > len(head):
            text = text[:REPLY_LIMIT]
            cut = f"\n[... cut at {REPLY_LIMIT} characters; {size} bytes in {path}]"
        parts.append(f"--- {artifact['name']}\n{text}{cut}")
    return "\n".join(parts)


def _extra(case: Mapping[str, Any]) -> list[list[str]]:
    """Lines of detail the page lists under a case: repeats, flaky gates, timings, usage."""
    lines = []
    if case.get("repeats"):
        lines.append(["repeats", str(case["repeats"])])
    if case.get("flaky_gates"):
        lines.append(["flaky gates", ", ".join(map(str, case["flaky_gates"]))])
    if case.get("flaky_metrics"):
        spread = ", ".join(f"{name} (std {std:.3g})" for name, std in sorted(case["flaky_metrics"].items()))
        lines.append(["flaky metrics", spread])
    timings = case.get("timings") or {}
    if timings:
        lines.append(["timings", ", ".join(f"{k} {v:.3g} s" for k, v in timings.items() if isinstance(v, (int, float)))])
    usage = case.get("usage") or {}
    if usage:
        lines.append(["usage", ", ".join(f"{k} {v}" for k, v in usage.items() if not isinstance(v, (dict, list)))])
    return [line for line in lines if line[1]]


def case_data(cases: Sequence[Mapping[str, Any]], images: ReportImages) -> dict[str, Any]:
    """The JSON value the page reads (the image table is filled by ``images.finish()`` afterwards)."""
    builder = _Builder(images)
    label_keys = {id(case): key for key, case in case_keys(cases)}
    records = []
    for case in cases:
        record = builder.case(case)
        record["lk"] = label_keys.get(id(case), record["uid"])
        record["j"] = judged_items(case)
        records.append(record)
    # Metric columns by name; the per-case indices are remapped to that order.
    order = sorted(builder.metrics)
    remap = {builder.metrics[name]: new for new, name in enumerate(order)}
    for record in records:
        record["v"] = {remap[i]: v for i, v in record["v"].items()}
        record["mr"] = {remap[i]: r for i, r in record["mr"].items()}
    models = sorted({r["model"] for r in records if r["model"]})
    return {
        "models": models,
        "statuses": [s for s in STATUSES if any(r["status"] == s for r in records)],
        "suites": sorted({r["suite"] for r in records}),
        "tags": sorted({t for r in records for t in r["tags"]}),
        "metrics": [[name, builder.higher[name]] for name in order],
        "cases": records,
    }


def script_json(value: Any) -> str:
    """JSON safe inside a ``<script type="application/json">``: no ``</script>``, no comment openers."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
