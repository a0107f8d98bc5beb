"""The pytest11 entry point: hook implementations only, each delegating."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from ..calls.layer import CallLayer
from ..calls.slot_server import SlotServer
from ..calls.turn import holding_turn
from . import fixtures as _fixtures
from . import gc_freeze, help_groups, logger_registry, markdown_option, redact_logs, sdk_preload
from .call_options import (
    SLOTS_WORKERINPUT_KEY,
    add_call_options,
    build_call_settings,
    call_layer_key,
    with_call_layer,
)
from .ci_options import add_ci_options, build_ci_settings, ci_settings_key
from .collect_errors import CaseFileErrorTolerance
from .interrupts import REQUESTS_WORKEROUTPUT_KEY, STOPPED_CASE_TEXT, InterruptHandler, stopped_case
from .items import CaseFile, CaseItem, is_case_file
from .options import add_options, build_settings, settings_key
from .records import for_early_report, pack_record, record_for, unpack_record
from .regrade import add_regrade_option
from .run_id import (
    TOKEN_WORKERINPUT_KEY,
    WORKERINPUT_KEY,
    lock_run_folder,
    resolve_run_id,
    resolve_session_token,
    run_id_key,
    run_lock_key,
    session_token_key,
    unlock_run_folder,
)
from .session import EvalSession
from .shard import in_shard
from .xdist_role import is_xdist_controller

_eval_session_key = pytest.StashKey[EvalSession]()
_slot_server_key = pytest.StashKey[SlotServer]()
_interrupts_key = pytest.StashKey[InterruptHandler]()


def pytest_addoption(parser: pytest.Parser) -> None:
    # Each option lands in its --help group (or behind --eval-help-all): see help_groups.PLACES.
    routed = help_groups.RoutedParser(parser)
    declare = cast(pytest.Parser, routed)
    add_options(declare)
    add_ci_options(declare)
    add_call_options(declare)
    add_regrade_option(declare)
    markdown_option.add_options(declare)
    help_groups.add_help_all_option(routed)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> int | None:
    """``--eval-help-all``: every option of the plugin, the advanced ones too; nothing runs."""
    if not config.getoption(help_groups.HELP_ALL_DEST, False):
        return None
    print("\n".join(help_groups.help_all_lines()))
    return 0


def pytest_configure(config: pytest.Config) -> None:
    logger_registry.make_walks_safe()  # before any of our threads (the SDK import, the cases' pool) makes a logger
    redact_logs.install_log_redaction(config)  # every log record made from here on has its secrets replaced
    gc_freeze.configured()
    settings = build_settings(config)
    config.stash[settings_key] = settings
    ci = build_ci_settings(config)
    config.stash[ci_settings_key] = ci
    config.stash[run_id_key] = resolve_run_id(config, settings.run_id)
    config.stash[session_token_key] = resolve_session_token(config)
    if not hasattr(config, "workerinput") and not _only_collecting(config):
        config.stash[run_lock_key] = lock_run_folder(
            Path(settings.output_dir) / config.stash[run_id_key], config.stash[run_id_key]
        )
    layer = CallLayer(build_call_settings(config, settings, Path(settings.output_dir) / config.stash[run_id_key]))
    config.stash[call_layer_key] = layer
    if _runs_cases_here(config):
        specs = [choice.spec for choice in settings.models] + list(settings.judges)
        preload = sdk_preload.start(specs, layer.settings.cache_mode, layer.settings.cache_dir)
        if preload is not None:
            config.stash[sdk_preload.preload_key] = preload
    config.stash[settings_key] = settings = with_call_layer(settings, layer)
    interrupts = config.stash[_interrupts_key] = InterruptHandler(config)
    if not _only_collecting(config):
        interrupts.install()
    config.pluginmanager.register(_fixtures, "visioneval-fixtures")
    config.pluginmanager.register(CaseFileErrorTolerance(config, settings.case_globs), "visioneval-collect-errors")
    if not hasattr(config, "workerinput"):  # the controller (or a run without xdist)
        session = EvalSession(config, settings, config.stash[run_id_key], ci, interrupts)
        config.stash[_eval_session_key] = session
        config.pluginmanager.register(session, "visioneval-session")


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    interrupts = config.stash.get(_interrupts_key, None)
    if interrupts is not None:
        interrupts.uninstall()
    layer = config.stash.get(call_layer_key, None)
    if layer is not None:
        layer.close()
    server = config.stash.get(_slot_server_key, None)
    if server is not None:
        server.close()
    lock = config.stash.get(run_lock_key, None)
    if lock is not None:
        unlock_run_folder(lock)
    gc_freeze.unconfigured()
    gc_freeze.freeze_before_exit(config)


def _only_collecting(config: pytest.Config) -> bool:
    """``--collect-only``, ``--fixtures`` and the like write no outputs: they need no run folder."""
    return bool(config.option.collectonly or getattr(config.option, "showfixtures", False) or config.option.help)


def _runs_cases_here(config: pytest.Config) -> bool:
    """An xdist worker or a run without xdist, that runs cases: not the xdist controller, not ``--collect-only``."""
    return not _only_collecting(config) and not is_xdist_controller(config)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist: every worker writes into the controller's run folder and takes slots from its slot server."""
    config = node.config
    interrupts = config.stash.get(_interrupts_key, None)
    if interrupts is not None:
        interrupts.workers_started += 1
    node.workerinput[WORKERINPUT_KEY] = config.stash[run_id_key]
    node.workerinput[TOKEN_WORKERINPUT_KEY] = config.stash[session_token_key]
    layer = config.stash[call_layer_key]
    if layer.settings.concurrency is None:
        return
    server = config.stash.get(_slot_server_key, None)
    if server is None:  # made with the first worker; the controller's own calls share it too
        server = config.stash[_slot_server_key] = SlotServer(layer.settings.concurrency)
        layer.limit.share_through(server.address)
    node.workerinput[SLOTS_WORKERINPUT_KEY] = server.address


def pytest_sessionstart(session: pytest.Session) -> None:
    interrupts = session.config.stash.get(_interrupts_key, None)
    if interrupts is not None:
        interrupts.session = session  # a Ctrl-C from now on stops the session after its case in progress


def _skip_if_stopped(item: pytest.Item, exc: BaseException) -> None:
    """A case whose calls a Ctrl-C refused is skipped as not run; anything else goes on as raised."""
    if isinstance(item, CaseItem) and stopped_case(exc):
        pytest.skip(STOPPED_CASE_TEXT)


# (pytest registers only names starting with pytest_; specname maps these to their hooks.)
@pytest.hookimpl(wrapper=True, specname="pytest_runtest_setup")
def pytest_runtest_setup_after_ctrl_c(item: pytest.Item) -> Any:
    """A case whose API calls were refused after a Ctrl-C is skipped (counted as not run), not an error.

    Its evaluation runs in a fixture (setup); the call phase is wrapped too.
    """
    try:
        return (yield)
    except BaseException as exc:
        _skip_if_stopped(item, exc)
        raise


@pytest.hookimpl(wrapper=True, specname="pytest_runtest_call")
def pytest_runtest_call_after_ctrl_c(item: pytest.Item) -> Any:
    try:
        return (yield)
    except BaseException as exc:
        _skip_if_stopped(item, exc)
        raise


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """From here on a Ctrl-C cannot cut the outputs short; a worker tells the controller how many requests it sent."""
    config = session.config
    interrupts = config.stash.get(_interrupts_key, None)
    if interrupts is not None:
        interrupts.writing = True
    workeroutput = getattr(config, "workeroutput", None)
    if workeroutput is not None:
        from ..calls.interrupt import requests_sent

        workeroutput[REQUESTS_WORKEROUTPUT_KEY] = requests_sent()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """xdist: a worker that finished reports the requests it sent (one that crashed reports none)."""
    interrupts = node.config.stash.get(_interrupts_key, None)
    sent = getattr(node, "workeroutput", {}).get(REQUESTS_WORKEROUTPUT_KEY)
    if interrupts is not None and isinstance(sent, int):
        interrupts.worker_requests[str(node.gateway.id)] = sent


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> CaseFile | None:
    if file_path.suffix in (".yaml", ".yml") and is_case_file(file_path, parent.config.stash[settings_key].case_globs):
        return CaseFile.from_parent(parent, path=file_path)
    return None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``--eval-shard K/N``: keep this job's share of the items (after -k/-m selection)."""
    shard = config.stash[ci_settings_key].shard
    if shard is None:
        return
    keep = [item for item in items if in_shard(item.nodeid, *shard)]
    dropped = [item for item in items if not in_shard(item.nodeid, *shard)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    gc_freeze.freeze_after_collection(runs_cases=any(isinstance(item, CaseItem) for item in session.items))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    if isinstance(item, CaseItem):
        record_for(item)  # a case that errors before grading is still reported as itself


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    """A case's test runs in turn with the case threads (calls/turn.py): its set-up, reports and hooks are local work."""
    if not isinstance(item, CaseItem):
        return (yield)
    with holding_turn():
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """On an xdist worker, the setup and call reports carry the record's identity only (see plugin/records.py)."""
    report = yield
    if report.when != "teardown" and hasattr(item.config, "workerinput"):
        for_early_report(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_report_to_serializable(config: pytest.Config, report: pytest.CollectReport | pytest.TestReport) -> Any:
    """A worker's report leaves with our record as one JSON text (plugin/records.py)."""
    data = yield
    if isinstance(data, dict) and hasattr(config, "workerinput"):
        pack_record(data)
    return data


@pytest.hookimpl(wrapper=True)
def pytest_report_from_serializable(config: pytest.Config, data: dict[str, Any]) -> Any:
    """The controller reads the record a worker packed before pytest rebuilds the report."""
    if isinstance(data, dict):
        unpack_record(data)
    return (yield)


@pytest.hookimpl(tryfirst=True)
def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> tuple[str, str, str] | None:
    """A case whose xdist worker crashed could not be evaluated: an ERROR, as in JUnit and the results, not a FAILURE."""
    if report.when != "???" or not report.failed:
        return None
    path, sep, _ = report.nodeid.partition("::")
    if sep and is_case_file(Path(path), config.stash[settings_key].case_globs):
        return "error", "E", "ERROR"
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """A last pass over what pytest shows and JUnit writes: failure text and captured output lose any secret."""
    redact_logs.redact_report(report)
