"""The controller's view of a run: collect case records, decide, report.

Registered only on the controller (never on an xdist worker). It reads each
test's record from its reports - the teardown report carries the final one -
and the setup/call/teardown outcomes give the case's status.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from . import gate
from .aggregate import aggregate
from .cases.spec import Threshold
from .items import is_case_file
from .options import Settings
from .records import PROPERTY
from .report import results_json, terminal
from .verdict import Verdict, decide

_MESSAGE_LIMIT = 4000


class EvalSession:
    def __init__(self, config: pytest.Config, settings: Settings, run_id: str):
        self.config = config
        self.settings = settings
        self.run_id = run_id
        self.started = time.time()
        self.records: dict[str, dict[str, Any]] = {}
        self._state: dict[str, dict[str, Any]] = {}
        self.aggregates: dict[str, Any] | None = None
        self.verdict: Verdict | None = None
        self.collection_errors = 0

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collection_errors += 1

    # -- reports ---------------------------------------------------------
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        payload = _take_payload(report)
        state = self._state.setdefault(report.nodeid, {"status": "passed", "duration": 0.0, "text": None})
        state["duration"] += float(getattr(report, "duration", 0.0) or 0.0)
        if payload is not None:
            state["payload"] = payload
        _advance(state, report)
        if report.when in ("teardown", "???"):
            record = self._finish(report.nodeid, state)
            if record is not None:
                self.records[report.nodeid] = record

    def _finish(self, nodeid: str, state: dict[str, Any]) -> dict[str, Any] | None:
        payload = state.get("payload")
        if payload is None:
            payload = _identity_from_nodeid(nodeid, self.settings.case_globs)
            if payload is None:
                return None  # a Python test that recorded nothing
        record = dict(payload)
        record["nodeid"] = nodeid
        record["status"] = state["status"]
        record["duration"] = round(state["duration"], 6)
        record.setdefault("model", self.settings.model if record.get("task") else None)
        if record["status"] == "error" and not record.get("error"):
            record["error"] = state["text"] or "error"
        if record["status"] in ("failed", "xfailed") and state["text"]:
            record["message"] = state["text"]
        return record

    # -- verdict ---------------------------------------------------------
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        records = sorted(self.records.values(), key=lambda r: (r["uid"], r["nodeid"]))
        self.aggregates = aggregate(records)
        file_thresholds = _file_thresholds(records)
        results = gate.evaluate(file_thresholds, self.settings.fail_under, self.aggregates)
        self.verdict = decide(int(session.exitstatus), results, self.aggregates["overall"], self.collection_errors)
        session.exitstatus = self.verdict.exit_status
        if self.settings.results_path is not None:
            document = results_json.build(self, records)
            results_json.write(self.settings.results_path, document)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.aggregates is None or self.verdict is None:
            return
        if not self.records and not self.verdict.thresholds:
            return
        terminalreporter.section("visioneval scores")
        for line in terminal.render(self.aggregates, self.verdict):
            terminalreporter.write_line(line)
        if self.settings.results_path is not None:
            terminalreporter.write_line(f"results JSON: {self.settings.results_path}")


def _take_payload(report: pytest.TestReport) -> dict[str, Any] | None:
    """Remove our record from the report, leaving flat properties for JUnit XML."""
    payload = None
    kept: list[tuple[str, Any]] = []
    for name, value in report.user_properties:
        if name == PROPERTY and isinstance(value, dict):
            payload = value
        else:
            kept.append((name, value))
    if payload is not None:
        kept += [(f"visioneval.gate.{g['name']}", "passed" if g["passed"] else "failed") for g in payload.get("gates", ())]
        kept += [(f"visioneval.metric.{m['name']}", m["value"]) for m in payload.get("metrics", ())]
        report.user_properties = kept
    return payload


def _advance(state: dict[str, Any], report: pytest.TestReport) -> None:
    xfail = hasattr(report, "wasxfail")
    text = _text(report)
    if report.when == "???":  # xdist: the worker crashed while running this item
        state["status"], state["text"] = "error", text or "worker crashed"
    elif report.when == "setup":
        if report.failed:
            state["status"], state["text"] = "error", text
        elif report.skipped:
            state["status"], state["text"] = ("xfailed" if xfail else "skipped"), text
    elif report.when == "call":
        if report.failed:
            state["status"], state["text"] = "failed", text
        elif report.skipped:
            state["status"], state["text"] = ("xfailed" if xfail else "skipped"), text
        else:
            state["status"] = "xpassed" if xfail else "passed"
    elif report.when == "teardown" and report.failed:
        state["status"], state["text"] = "error", text


def _text(report: pytest.TestReport) -> str | None:
    if report.passed:
        return None
    if report.skipped and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])
    text = report.longreprtext
    return text[:_MESSAGE_LIMIT] if text else None


def _identity_from_nodeid(nodeid: str, globs: tuple[str, ...]) -> dict[str, Any] | None:
    """For a case item that left no record (its worker died): rebuild who it was."""
    path, sep, name = nodeid.partition("::")
    if not sep or "/" not in name or not is_case_file(Path(path), globs):
        return None
    suite, _, case_id = name.partition("/")
    return {
        "uid": name,
        "suite": suite,
        "case_id": case_id,
        "protocol": "unknown",
        "task": "unknown",
        "tags": [],
        "source": path,
        "thresholds": [],
        "gates": [],
        "metrics": [],
        "artifacts": [],
        "error": None,
    }


def _file_thresholds(records: list[dict[str, Any]]) -> list[Threshold]:
    seen: dict[tuple[Any, ...], Threshold] = {}
    for record in records:
        for t in record.get("thresholds", ()):
            key = (t["suite"], t["metric"], t["min"], t["max"], t["source"])
            seen.setdefault(key, Threshold(t["suite"], t["metric"], t["min"], t["max"], t["source"]))
    return [seen[k] for k in sorted(seen, key=str)]
