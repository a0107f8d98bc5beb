"""The controller's view of a run: collect case records, decide, report.

Registered only on the controller (never on an xdist worker). It reads each
test's record from its reports - the teardown report carries the final one -
and the setup/call/teardown outcomes give the case's status.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest

from ..calls.usage import judge_provenance, total_usage
from ..errors import VisionEvalError
from ..report import results_json, terminal
from ..report.view_text import fit_lines
from ..results.aggregate import aggregate, benchmark_scores
from ..results.baseline import Delta, compare, describe, regressions
from ..results.mutation import mutation_summary
from ..results.per_model import baseline_deltas, baseline_for, evaluate_per_model, flat_benchmarks, labels_of, model_sections
from ..results.thresholds import ThresholdResult, evaluate_thresholds, file_thresholds
from ..results.verdict import Verdict, decide, run_warnings
from . import aggregate_preload, junit_xml, markdown_option
from .call_options import call_layer_key
from .ci_options import CiSettings
from .interrupts import INTERRUPTED_REASON, STOPPED_CASE_TEXT, InterruptHandler, interrupted
from .items import is_case_file
from .model_choices import split_item_name
from .options import Settings
from .records import PROPERTY
from .xdist_role import is_xdist_controller

_MESSAGE_LIMIT = 4000


class EvalSession:
    def __init__(
        self,
        config: pytest.Config,
        settings: Settings,
        run_id: str,
        ci: CiSettings | None = None,
        interrupts: InterruptHandler | None = None,
    ):
        self.config = config
        self.interrupts = interrupts
        self.settings = settings
        self.ci = ci or CiSettings()
        self.deltas: list[Delta] = []
        self.run_id = run_id
        self.started = time.time()
        self.records: dict[str, dict[str, Any]] = {}
        self._state: dict[str, dict[str, Any]] = {}
        self.aggregates: dict[str, Any] | None = None
        self.benchmarks: dict[str, Any] = {}
        self.models: dict[str, dict[str, Any]] = {}  # a run of several models: label -> its own numbers
        self.agreement: dict[str, Any] | None = None  # with --eval-labels: the judges against the people
        self.usage: dict[str, Any] = {}
        self.mutation: dict[str, Any] = {}
        self.verdict: Verdict | None = None
        self.collection_errors = 0
        self.expected: list[str] = []  # node ids of the case items meant to run (after -k, -m, shards)
        self.incomplete: dict[str, Any] | None = None
        self.not_evaluated: dict[str, Any] | None = None  # cases whose calls wait in batches or hit the budget
        self.batches: dict[str, Any] | None = None  # with --eval-batch: the batches' state after this run
        self.budget: dict[str, Any] | None = None  # with --eval-max-cost: the run's spending against it
        # Under xdist this process runs no case: it imports numpy for the scores meanwhile (aggregate_preload).
        self._preload_numpy = is_xdist_controller(config)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # After every plugin's deselection (-k, -m, shards and --lf, whose wrapper deselects after the other hooks).
        self.expected = [item.nodeid for item in session.items if getattr(item, "case", None) is not None]

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        # Under xdist only the workers collect; every worker collects the same ids.
        if not self.expected:
            self.expected = [i for i in ids if _identity_from_nodeid(i, self.settings.case_globs, ()) is not None]

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collection_errors += 1

    # -- reports ---------------------------------------------------------
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        junit_xml.name_case_class(self.config, report, self.settings.case_globs)
        payload = _take_payload(report)
        state = self._state.setdefault(report.nodeid, {"status": "passed", "duration": 0.0, "text": None})
        state["duration"] += float(getattr(report, "duration", 0.0) or 0.0)
        if payload is not None:
            state["payload"] = payload
        _advance(state, report)
        if report.when in ("teardown", "???"):
            if self._preload_numpy:
                self._preload_numpy = False
                aggregate_preload.start()
            if _stopped_by_interrupt(report, state):
                return  # not run: listed as such, not as a skip or a crash
            record = self._finish(report.nodeid, state)
            if record is not None:
                self.records[report.nodeid] = record

    def _finish(self, nodeid: str, state: dict[str, Any]) -> dict[str, Any] | None:
        payload = state.get("payload")
        if payload is None:
            payload = _identity_from_nodeid(nodeid, self.settings.case_globs, self._several_labels())
            if payload is None:
                return None  # a Python test that recorded nothing
        record = dict(payload)
        record["nodeid"] = nodeid
        record["status"] = state["status"]
        record["duration"] = round(state["duration"], 6)
        record.setdefault("model", self.settings.models[0].label if record.get("task") else None)
        if record["status"] == "error" and not record.get("error"):
            record["error"] = state["text"] or "error"
        if record["status"] in ("failed", "xfailed") and state["text"]:
            record["message"] = state["text"]
        return record

    # -- verdict ---------------------------------------------------------
    # First, so the JUnit XML writer (its own sessionfinish) sees the run-level test case below.
    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        records = sorted(self.records.values(), key=lambda r: (r["uid"], r["nodeid"]))
        batch_problems = self._settle_calls(records)
        confidence, policy = self.ci.confidence, {"on": self.ci.threshold_on, "inconclusive": self.ci.inconclusive}
        self.aggregates = aggregate(records, confidence)
        self.usage = total_usage(records)
        self.mutation = mutation_summary(records)
        baseline = load_results(self.ci.baseline) if self.ci.baseline is not None else None
        if self.settings.several_models:
            self.models = model_sections(records, labels_of(records, self.settings.model_labels), confidence)
            self.benchmarks = flat_benchmarks(self.models)
            results = evaluate_per_model(records, self.settings.fail_under, self.models, self.aggregates, **policy)
            if baseline is not None:
                tolerance, per_name = self.ci.baseline_tolerance, self.ci.metric_tolerances
                self.deltas = baseline_deltas(baseline, records, self.models, tolerance, per_name, confidence)
        else:
            self.benchmarks = benchmark_scores(records, confidence)
            results = evaluate_thresholds(file_thresholds(records), self.settings.fail_under, self.aggregates, **policy)
            if baseline is not None:
                self.deltas = compare(
                    self._baseline_of_this_model(baseline),
                    {"aggregates": self.aggregates, "cases": records},
                    self.ci.baseline_tolerance,
                    self.ci.metric_tolerances,
                    only_suites_in_after=True,
                    confidence=confidence,
                )
        if self.not_evaluated is not None:
            # Over part of the cases, thresholds and the baseline would judge a run that has not happened yet.
            results, self.deltas = [], []
        regressed = [describe(d) for d in regressions(self.deltas)]
        self.incomplete = self._incompleteness(session, int(exitstatus))
        why = None
        if self.incomplete is not None:
            why = f"{self.incomplete['reason']}; {len(self.incomplete['not_run'])} of {len(self.expected)} case(s) did not run"
            calls = self.incomplete.get("calls")
            if calls and calls["made"] != calls["in_reported_cases"]:
                unreported = calls["made"] - calls["in_reported_cases"]
                why += f"; {calls['made']} API request(s) made, {unreported} of them for cases that did not report"
        calibration, label_warnings = self._agreement_with_labels(records, confidence)
        self.verdict = decide(
            int(session.exitstatus),
            results,
            self.aggregates["overall"],
            self.collection_errors,
            regressed,
            why,
            calibration=calibration,
        )
        warnings = run_warnings(self.aggregates, self.benchmarks, bool(self.settings.judges))
        judges = judge_provenance(records)
        warnings += self._sampling_warnings(judges) + label_warnings + batch_problems
        if baseline is not None:  # a changed judge can move scores that the model did not
            from ..results.compare import judge_changes  # only against a baseline

            warnings += [f"against the baseline: {c}" for c in judge_changes(baseline.get("judges") or {}, judges)]
        self.verdict = dataclasses.replace(self.verdict, warnings=tuple(warnings))
        if self.incomplete is not None and self.incomplete["reason"] == INTERRUPTED_REASON and self.verdict.exit_status == 0:
            # A Ctrl-C that came while pytest was finishing can leave its status at 0: an interrupted run never passes.
            self.verdict = dataclasses.replace(self.verdict, exit_status=int(pytest.ExitCode.INTERRUPTED))
        if self.not_evaluated is not None:
            status = self.verdict.exit_status or EXIT_NOT_EVALUATED
            reasons = (*self.verdict.reasons, self.not_evaluated["summary"])
            self.verdict = dataclasses.replace(self.verdict, exit_status=status, reasons=reasons)
        session.exitstatus = self.verdict.exit_status
        self._report_run_checks(session, [t for t in results if not t.passed], regressed, calibration)
        markdown = markdown_option.markdown_path(self.config)
        if self.settings.results_path is not None or self.ci.report is not None or markdown is not None:
            document = results_json.build(
                self.run_info(),
                records,
                self.aggregates,
                self.verdict,
                self.benchmarks,
                self.usage,
                self.mutation,
                self.incomplete,
                self.models,
                self.agreement,
                judges,
                calls={"not_evaluated": self.not_evaluated, "batches": self.batches, "budget": self.budget},
            )
            if self.settings.results_path is not None:
                results_json.write(self.settings.results_path, document)
            if self.ci.report is not None:
                from ..report.html_report import write_html_report

                write_html_report(document, self.ci.report, embed=self.ci.report_embed)
            if markdown is not None:
                markdown_option.write_run_markdown(self.config, document, self.deltas, self.ci.baseline)

    def _settle_calls(self, records: list[dict[str, Any]]) -> list[str]:
        """Submit what the run queued for provider batches; note which cases were not evaluated and why.

        Returns problems to warn about (a batch that could not be submitted or read).
        """
        layer = self.config.stash.get(call_layer_key, None)
        problems: list[str] = []
        if layer is not None and layer.batches is not None:
            try:
                layer.batches.submit_queue()
            except VisionEvalError:
                pass  # kept in the book's problems, reported below
            self.batches = layer.batches.overview()
            problems += [f"batches: {p}" for p in self.batches["problems"]]
        if layer is not None and layer.budget is not None:
            self.budget = layer.budget.state()
        waiting = [r for r in records if r.get("not_evaluated")]
        if waiting:
            self.not_evaluated = not_evaluated_section(waiting, self.batches)
        return problems

    def _agreement_with_labels(self, records: list[dict[str, Any]], confidence: float) -> tuple[list[str], list[str]]:
        """With --eval-labels: the judges against the people (kept for the report), and what fails the run or warns.

        Agreement below a floor fails the run; labels that cannot be used fail it too when a floor
        was asked for (the check could not be made), and are a warning otherwise.
        """
        if self.settings.labels is None:
            return [], []
        from ..results.agreement import run_agreement  # numpy and scipy: only runs with labels need them

        self.agreement = run_agreement(records, self.settings.labels, self.settings.agreement_floors, confidence)
        if "error" in self.agreement and not self.settings.agreement_floors:
            return [], [f"--eval-labels: {self.agreement['error']}"]
        return (list(self.agreement["below_floor"]) if self.settings.agreement_floors else []), []

    def _sampling_warnings(self, judges: dict[str, dict[str, Any]]) -> list[str]:
        """Judge repeats that cannot measure anything: the same request each time, at temperature 0 with no seed."""
        if self.settings.judge_repeats < 2:
            return []
        found = []
        for name, fields in judges.items():
            if all(not t for t in fields.get("temperature", [None])) and fields.get("seed", [None]) == [None]:
                found.append(
                    f"{name}: --judge-repeats {self.settings.judge_repeats} at temperature 0 and without --judge-seed "
                    "send the same request each time: their spread says little about the judge's noise "
                    "(set --judge-temperature, --judge-seed)"
                )
        return found

    def _several_labels(self) -> tuple[str, ...]:
        return self.settings.model_labels if self.settings.several_models else ()

    def _baseline_of_this_model(self, baseline: dict[str, Any]) -> dict[str, Any]:
        """A baseline of several models gives a run of one the part of its model (by label)."""
        label = self.settings.models[0].label
        part = baseline_for(baseline, label)
        if part is None:
            raise pytest.UsageError(
                f"--eval-baseline {self.ci.baseline} holds the models {', '.join(baseline['models'])}, not {label!r}; "
                "name this run's model after one of them: --model LABEL=SPEC"
            )
        return part

    def _incompleteness(self, session: pytest.Session, exitstatus: int) -> dict[str, Any] | None:
        """Why the run did not run every case it collected, and which it did not run (None when it ran them all)."""
        if session.config.option.collectonly:  # listing cases is not a run that left some out
            return None
        not_run = [nodeid for nodeid in self.expected if nodeid not in self.records]
        if exitstatus == pytest.ExitCode.INTERRUPTED or interrupted():
            reason = INTERRUPTED_REASON
        elif session.shouldstop:
            reason = f"stopped early: {session.shouldstop}"
        elif session.shouldfail:
            reason = f"stopped early: {session.shouldfail}"
        elif not_run:
            reason = "some collected cases reported nothing"
        else:
            return None
        found: dict[str, Any] = {"reason": reason, "not_run": not_run}
        if self.interrupts is not None:
            # Cases cut short never report their usage: the requests are counted where they are sent.
            booked = int((self.usage.get("total") or {}).get("calls", 0))
            found["calls"] = {
                "made": self.interrupts.requests_sent(),
                "in_reported_cases": booked,
                "every_process_counted": self.interrupts.every_process_counted(),  # else "made" is a lower bound
            }
        return found

    def run_info(self) -> results_json.RunInfo:
        return results_json.RunInfo(
            run_id=self.run_id,
            model=self.settings.model,
            model_params=self.settings.model_params,
            models=tuple((choice.label, choice.spec) for choice in self.settings.models),
            started=self.started,
            output_dir=Path(self.settings.output_dir) / self.run_id,
            argv=tuple(self.config.invocation_params.args),
            pytest_version=pytest.__version__,
        )

    def _report_run_checks(
        self, session: pytest.Session, missed: list[ThresholdResult], regressed: list[str], calibration: list[str]
    ) -> None:
        """Report failed thresholds (missed, or inconclusive and counted as missed), baseline regressions and
        judge-human agreement below its floor as a failed test, ``visioneval::thresholds``.

        Every case may pass while the run fails on them; as a test report they reach
        JUnit XML (a CI dashboard shows red), pytest's own counts and ``-rf``.
        Not for an incomplete run (``-x``, Ctrl-C), whose verdict line says so.
        """
        if (not missed and not regressed and not calibration) or self.incomplete is not None:
            return  # an incomplete run's thresholds are over part of it; its verdict already says so
        lines = [f"threshold {t.status}: {t.message}" for t in missed]
        lines += [f"regression against the baseline: {r}" for r in regressed]
        lines += [f"judge-human agreement below its floor: {c}" for c in calibration]
        reports = [_run_checks_report(when, outcome, lines) for when, outcome in (("call", "failed"), ("teardown", "passed"))]
        # Straight to the JUnit writer and the terminal's counts: through the logreport hook the
        # terminal would also print a progress letter after its 100% line.
        terminal_reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        junit = junit_xml.writer(session.config)
        if terminal_reporter is None or (junit is None and getattr(session.config.option, "xmlpath", None)):
            for report in reports:  # the general path, for whatever else listens
                session.config.hook.pytest_runtest_logreport(report=report)
            return
        for report in reports if junit is not None else ():
            junit.pytest_runtest_logreport(report)  # JUnit: every check whole, it is all a CI page shows
        if self._summary_mode() != "none":
            # The terminal lists each check once, in its scores section: the card and the short
            # summary line count them and point there.
            reports[0] = _run_checks_report("call", "failed", _run_checks_pointer(missed, regressed, calibration))
        terminal_reporter.stats.setdefault("failed", []).append(reports[0])

    @property
    def _checks_listed(self) -> bool:
        """Whether the failed thresholds are listed whole above the exit-status line (in the scores,
        or with --eval-summary=none in the visioneval::thresholds card, made for every complete run)."""
        return self._summary_mode() != "none" or self.incomplete is None

    # (pytest only registers methods named pytest_*; specname maps this one to the hook.)
    @pytest.hookimpl(wrapper=True, tryfirst=True, specname="pytest_terminal_summary")
    def pytest_terminal_summary_first(self, terminalreporter: Any) -> Any:
        """Before pytest prints the failures' and errors' cards: take the xdist worker off each case's report.

        pytest starts the card of a report that has one with ``[gw0] linux -- Python 3.x /path/python``:
        about the machine, never about the case. By now the JUnit writer (which keys its test cases
        by it) and the progress lines are done with it.
        """
        for report in (*terminalreporter.stats.get("failed", ()), *terminalreporter.stats.get("error", ())):
            if hasattr(report, "node") and _identity_from_nodeid(report.nodeid, self.settings.case_globs, ()) is not None:
                del report.node
        return (yield)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.aggregates is None or self.verdict is None:
            return
        if not self.records and not self.verdict.thresholds and self.incomplete is None:
            return
        mode, width = self._summary_mode(), _width(terminalreporter)

        def write(lines: list[str], **markup: bool) -> None:
            for line in fit_lines(lines, width):  # whole, at any width: wrapped, never cut
                terminalreporter.write_line(line, **markup)

        terminalreporter.section("visioneval scores")
        if self.incomplete is not None:
            write(terminal.incomplete_lines(self.incomplete, len(self.expected), width=width), red=True)
        if self.not_evaluated is not None:
            write(terminal.not_evaluated_lines(self.not_evaluated, width=width), yellow=True)
        if mode == "full":
            write(terminal.render(self.aggregates, self.verdict, with_verdict=False, models=self.models, width=width))
        elif mode == "compact":
            write(
                terminal.compact_lines(self.aggregates, self.benchmarks, width, self.models, _not_gating(self.records.values()))
            )
            write(terminal.compact_threshold_lines(self.verdict, width=width))
        if self.agreement is not None and mode != "none":
            write(["", *terminal.agreement_lines(self.agreement, width)])
        if self.usage.get("kinds") and mode != "none":
            write(["", *terminal.usage_lines(self.usage, width)])
        if (self.batches or self.budget) and mode != "none":
            write(terminal.batch_and_budget_lines(self.batches, self.budget, width))
        if self.benchmarks and mode == "full":
            write(["", *terminal.benchmark_lines(self.benchmarks, width)])
        if self.mutation.get("suites"):
            terminalreporter.write_line("")
            for line in terminal.mutation_lines(self.mutation):
                terminalreporter.write_line(line)
        if self.ci.baseline is not None:
            write(["", f"against the baseline {self.ci.baseline} (changes only)"])
            write(terminal.delta_lines(self.deltas, only_changes=True, width=width))
        for label, path in (("results JSON", self.settings.results_path), ("HTML report", self.ci.report)):
            if path is not None:  # whole on one line, however long: a path is copied (and grepped) with its label
                terminalreporter.write_line(f"{label}: {path}")
        warnings = terminal.warning_lines(self.verdict, width)
        if warnings:
            write(["", *warnings], yellow=True)

    def _summary_mode(self) -> str:
        """--eval-summary, where -v turns compact into full."""
        mode = self.settings.summary
        return "full" if mode == "compact" and self.config.get_verbosity() > 0 else mode

    # (pytest only registers methods named pytest_*; specname maps this one to the hook.)
    @pytest.hookimpl(wrapper=True, tryfirst=True, specname="pytest_sessionfinish")
    def pytest_sessionfinish_last_line(self, session: pytest.Session, exitstatus: int) -> Any:
        """After pytest's own "N passed" line, say what the exit status is and why.

        The outermost wrapper's code after ``yield`` runs after the terminal
        reporter has printed its summary, so this line is the last one.
        """
        if self.interrupts is not None:
            self.interrupts.writing = True  # first of all sessionfinish hooks: no Ctrl-C cuts the outputs short
        result = yield
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        shown = self.records or self.verdict is not None and (self.verdict.thresholds or self.incomplete is not None)
        if reporter is not None and self.verdict is not None and shown:
            # A failed threshold is named only: its whole message is listed above, in the scores or in
            # the visioneval::thresholds card (--eval-summary=none).
            for line in terminal.verdict_lines(self.verdict, _width(reporter), listed_above=self._checks_listed):
                reporter.write_line(line)
        return result


RUN_CHECKS_NODEID = "visioneval::thresholds"
# The exit status of a run where nothing failed but some cases are not evaluated yet (their calls wait in
# provider batches, or the budget ran out): not a pass, and told apart from a failure (1).
EXIT_NOT_EVALUATED = 6


def not_evaluated_section(records: list[dict[str, Any]], batches: dict[str, Any] | None) -> dict[str, Any]:
    """Which cases were not evaluated and why, with the one-line summary the verdict gives."""
    cases = [
        {"nodeid": r["nodeid"], "uid": r["uid"], "model": r.get("model"), **r["not_evaluated"]}
        for r in sorted(records, key=lambda r: r["nodeid"])
    ]
    by_reason: dict[str, int] = {}
    for case in cases:
        by_reason[case["reason"]] = by_reason.get(case["reason"], 0) + 1
    parts = []
    if by_reason.get("batch"):
        open_ = len((batches or {}).get("open", []))
        parts.append(
            f"{by_reason['batch']} case(s) wait on provider batches ({open_} open); run the same command again to "
            "collect their replies, or add --eval-batch-wait"
        )
    if by_reason.get("budget"):
        parts.append(f"{by_reason['budget']} case(s) not evaluated: --eval-max-cost reached")
    return {"cases": cases, "by_reason": by_reason, "summary": "NOT EVALUATED: " + "; ".join(parts)}


def _run_checks_report(when: str, outcome: str, lines: list[str]) -> pytest.TestReport:
    return pytest.TestReport(
        nodeid=RUN_CHECKS_NODEID,
        location=("visioneval", None, "thresholds"),
        keywords={"visioneval": 1},
        outcome=outcome,  # type: ignore[arg-type]
        longrepr="\n".join(lines) if outcome == "failed" else None,
        when=when,  # type: ignore[arg-type]
        duration=0.0,
    )


def _run_checks_pointer(missed: list[ThresholdResult], regressed: list[str], calibration: list[str]) -> list[str]:
    """The terminal's card of visioneval::thresholds: what failed, counted (its first line is the
    short summary's, kept short), and where each is listed."""
    counts = [
        f"{sum(1 for t in missed if t.status == 'missed')} threshold(s) missed",
        f"{sum(1 for t in missed if t.status != 'missed')} threshold(s) inconclusive, counted as missed",
        f"{len(regressed)} regression(s) against the baseline",
        f"{len(calibration)} judge-human agreement floor(s) not met",
    ]
    found = [text for text in counts if not text.startswith("0 ")]
    first = found[0] if len(found) == 1 else f"{len(missed) + len(regressed) + len(calibration)} run-level checks failed"
    listed = "each is listed under 'visioneval scores' below"
    return [first, *(found if len(found) > 1 else ()), listed]


def _not_gating(records: Iterable[dict[str, Any]]) -> frozenset[str]:
    """Gates that never decide a case: every case that has them runs their grader with ``gate: false``."""
    gating: dict[str, bool] = {}
    for record in records:
        for gate in record.get("gates", ()):
            gating[gate["name"]] = gating.get(gate["name"], False) or bool(gate.get("gating", True))
    return frozenset(name for name, decides in gating.items() if not decides)


def _width(terminalreporter: Any) -> int:
    """The terminal's width (COLUMNS, else the terminal's, else 80), as pytest's own lines use it."""
    writer = getattr(terminalreporter, "_tw", None)
    return max(40, int(getattr(writer, "fullwidth", 80)))


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
        kept += [junit_xml.gate_property(g) for g in payload.get("gates", ())]
        kept += [(f"visioneval.metric.{m['name']}", m["value"]) for m in payload.get("metrics", ())]
        report.user_properties = kept
    return payload


def _stopped_by_interrupt(report: pytest.TestReport, state: dict[str, Any]) -> bool:
    """A case that a Ctrl-C kept from running: its calls were refused, or xdist called its worker's stop a crash."""
    if state["status"] == "skipped" and STOPPED_CASE_TEXT in (state["text"] or ""):
        return True
    return report.when == "???" and interrupted()


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
    # str(), not longreprtext: that one starts with the xdist worker's "[gw0] linux -- Python ..." line.
    text = "" if report.longrepr is None else str(report.longrepr).strip()
    return text[:_MESSAGE_LIMIT] if text else None


def _identity_from_nodeid(nodeid: str, globs: tuple[str, ...], labels: Sequence[str]) -> dict[str, Any] | None:
    """For a case item that left no record (its worker died): rebuild who it was (``labels``: the run's models, if several)."""
    path, sep, name = nodeid.partition("::")
    if not sep or "/" not in name or not is_case_file(Path(path), globs):
        return None
    uid, label = split_item_name(name, labels)
    suite, _, case_id = uid.partition("/")
    model = {} if label is None else {"model": label}
    return {
        **model,
        "uid": uid,
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


def load_results(path: Path) -> dict[str, Any]:
    """A results JSON written by an earlier run (for ``--eval-baseline``)."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise pytest.UsageError(f"--eval-baseline: cannot read {path}: {exc}") from None
    if document.get("schema") != "pytest-visioneval/results":
        raise pytest.UsageError(f"--eval-baseline: {path} is not a pytest-visioneval results file")
    return document
