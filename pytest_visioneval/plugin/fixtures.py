"""The fixtures pytest-visioneval provides (listed by ``pytest --fixtures``)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..artifacts import ArtifactStore
from ..cases.spec import CaseSpec
from ..errors import VisionEvalError
from ..graders import GradeContext
from ..run.entries import metric_entry
from .call_options import call_layer_key
from .ci_options import ci_settings_key
from .options import Settings, settings_key
from .records import record_for
from .run_id import run_id_key, session_token_key

# Imported where a fixture first needs them, not at plugin start: every pytest run in an environment
# with the plugin pays for what is imported here, and a case run imports them while its first calls wait.
# (The modules imported above are loaded at plugin start anyway, by the collector and the hooks.)
if TYPE_CHECKING:
    from ..graders.outcome import CaseEvaluation
    from ..models import Model
    from ..pages.render import Renderer
    from ..run.environment import Environment
    from ..run.pipeline import CasePipeline


@pytest.fixture(scope="session")
def visioneval_settings(pytestconfig: pytest.Config) -> Settings:
    """The run's settings (``--model``, thresholds, output folder...), as one frozen object."""
    return pytestconfig.stash[settings_key]


@pytest.fixture(scope="session")
def visioneval_models(visioneval_settings: Settings) -> dict[str, Model | str]:
    """Every ``--model`` of the run, built once per worker: label -> the model, or why it could not be built.

    A model that cannot be built (unknown provider, no API key) makes each of
    its cases an error with the reason; the other models' cases still run.
    """
    from ..models import create_model

    models: dict[str, Model | str] = {}
    for choice in visioneval_settings.models:
        try:
            models[choice.label] = create_model(choice.spec, visioneval_settings.model_settings)
        except VisionEvalError as exc:
            models[choice.label] = f"{type(exc).__name__}: {exc}"
    return models


@pytest.fixture(scope="session")
def visioneval_model(visioneval_settings: Settings, visioneval_models: dict[str, Model | str]) -> Model:
    """The model under test (the first ``--model`` when there are several), built once per worker.

    If it cannot be built (unknown provider, no API key), every case that
    needs it is an error with the reason.
    """
    built = visioneval_models[visioneval_settings.models[0].label]
    if isinstance(built, str):
        pytest.fail(built, pytrace=False)
    return built


@pytest.fixture(scope="session")
def visioneval_store(visioneval_settings: Settings, pytestconfig: pytest.Config) -> ArtifactStore:
    """Where this run keeps model outputs: ``<output_dir>/<run_id>/<model>/<suite>/<case>/``."""
    return ArtifactStore(visioneval_settings.output_dir, pytestconfig.stash[run_id_key])


@pytest.fixture(scope="session")
def visioneval_grade_context(visioneval_settings: Settings) -> GradeContext:
    """What graders get besides the case: the judges from ``--judge`` and ``--judge-repeats``.

    With no ``--judge``, judge graders are skipped (with that reason) and the
    deterministic graders still run.
    """
    from ..judges import create_judges

    try:
        judges = create_judges(visioneval_settings.judges, visioneval_settings.judge_settings)
    except VisionEvalError as exc:
        problem = f"{type(exc).__name__}: {exc}"
    else:
        return GradeContext(judges=judges, judge_repeats=visioneval_settings.judge_repeats)
    pytest.fail(problem, pytrace=False)


@pytest.fixture(scope="session")
def visioneval_renderer(visioneval_settings: Settings) -> Iterator[Renderer]:
    """Chromium for rendering HTML outputs: one browser per worker, started on first use.

    Safe to call from any thread (the browser is driven from a thread of its own, a few pages at once).
    """
    from ..pages.render import Renderer

    renderer = Renderer(visioneval_settings.chromium, pages_in_flight=visioneval_settings.render_pages)
    yield renderer
    renderer.close()


@pytest.fixture(scope="session")
def visioneval_pipeline(request: pytest.FixtureRequest, visioneval_settings: Settings) -> Iterator[CasePipeline]:
    """Evaluates this worker's cases, ahead of pytest's order when ``--eval-concurrency`` is set.

    Built on the first case item; every case item of the session is a
    candidate for evaluating ahead (skipped ones are not).
    """
    from ..run import case_log
    from ..run.environment import Environment
    from ..run.grade_memo import GradeMemo
    from ..run.pipeline import CasePipeline

    models: dict[str, Model | str] = request.getfixturevalue("visioneval_models")
    # The mutation self-test grades with deterministic gates; run/mutation.py shows the judges (--judge) only the
    # mutants no gate of the case can see.
    context = request.getfixturevalue("visioneval_grade_context")
    store = request.getfixturevalue("visioneval_store")
    # Resolved here, in the main thread: background threads cannot look fixtures up. Chromium starts on first render.
    renderer: Renderer = request.getfixturevalue("visioneval_renderer")
    config = request.config
    call_layer = config.stash[call_layer_key]
    call_settings = call_layer.settings
    concurrency = call_settings.concurrency
    grades = GradeMemo(call_layer.cache) if call_layer.cache is not None else None
    environments = {
        label: Environment(
            model=model,
            store=store,
            context=context,
            renderer=lambda: renderer,
            model_params=visioneval_settings.model_params,
            repeats=config.stash[ci_settings_key].repeats,
            mutants=visioneval_settings.mutants,
            label=label,
            flaky_spread=visioneval_settings.flaky_spread,
            grades=grades,
        )
        for label, model in models.items()
        if not isinstance(model, str)  # a model that could not be built: its cases fail in visioneval_evaluation
    }
    if not environments:  # no model could be built: the error of the first one ends each case
        pytest.fail(str(next(iter(models.values()))), pytrace=False)
    first = visioneval_settings.models[0].label
    ahead: list[tuple[str, CaseSpec]] = []
    item_environments: dict[str, Environment] = {}
    for item in request.session.items:
        case = getattr(item, "case", None)
        label = getattr(item, "model_label", None) or first
        if not isinstance(case, CaseSpec) or label not in environments:
            continue
        if item.get_closest_marker("skip") or item.get_closest_marker("skipif"):
            continue
        ahead.append((item.nodeid, case))
        item_environments[item.nodeid] = environments[label]
    exchange = None
    session_folder = store.root / store.run_id / ".exchange" / config.stash[session_token_key]
    if hasattr(config, "workerinput") and concurrency is not None:
        # This session's own: a run reusing the run id later never reads these outcomes.
        exchange = session_folder
    # Records made while a case is evaluated go to that case, not to the test pytest is in meanwhile;
    # installed before the pipeline, which starts evaluating when it is made.
    with case_log.installed(_pytest_per_test_log_handlers(config)):
        ready = _batch_rounds(config, session_folder, ahead, item_environments, concurrency)
        pipeline = CasePipeline(
            environments.get(first) or next(iter(environments.values())),
            ahead,
            concurrency,
            exchange,
            wait_timeout=call_settings.wait_timeout,
            environments=item_environments,
            ready=ready,
            workers=int(getattr(config, "workerinput", {}).get("workercount", 1)),
            upcoming=_xdist_queue(config) if exchange is not None else None,
        )
        yield pipeline
        pipeline.close()


def _xdist_queue(config: pytest.Config) -> Callable[[], list[str]] | None:
    """This xdist worker's queue: the node ids it was sent since the previous read, in the order it will run them.

    Read from xdist's worker plugin (its ``torun`` queue of item indexes, a deque behind a lock in xdist 3),
    so the pipeline evaluates first the cases this worker will run; None where that plugin is not found.
    xdist adds to the queue's end and runs from its front, each item once: the entries after the newest one
    the previous read saw are the new ones (all of them, once that one has been run), so a read walks only
    what was added, not the whole queue.
    """
    interactor = next((p for p in config.pluginmanager.get_plugins() if type(p).__name__ == "WorkerInteractor"), None)
    queue = getattr(interactor, "torun", None)
    if queue is None or not hasattr(queue, "lock"):
        return None
    newest_seen: list[Any] = []  # the queue's last entry at the previous read (empty before the first)

    def upcoming() -> list[str]:
        items = interactor.session.items  # type: ignore[union-attr]
        fresh: list[Any] = []
        with queue.lock() as indexes:
            for index in reversed(indexes):
                if newest_seen and index == newest_seen[0]:
                    break
                fresh.append(index)
            if indexes:
                newest_seen[:] = [indexes[-1]]
        fresh.reverse()
        return [items[i].nodeid for i in fresh if isinstance(i, int) and 0 <= i < len(items)]

    return upcoming


def _pytest_per_test_log_handlers(config: pytest.Config) -> list[logging.Handler]:
    """The handlers pytest's logging plugin attaches to every test phase (names as in pytest 6-9)."""
    plugin = config.pluginmanager.get_plugin("logging-plugin")  # None with -p no:logging
    found = (getattr(plugin, name, None) for name in ("caplog_handler", "report_handler"))
    return [handler for handler in found if isinstance(handler, logging.Handler)]


def _batch_rounds(
    config: pytest.Config,
    session_folder: Path,
    cases: list[tuple[str, CaseSpec]],
    environments: dict[str, Environment],
    concurrency: int | None,
) -> dict[str, dict[str, Any]]:
    """With --eval-batch-wait: run the batch rounds (one worker for the whole run) before the cases run."""
    layer = config.stash[call_layer_key]
    if layer.batches is None or layer.settings.batch_wait is None:
        return {}
    from ..run.batch_rounds import evaluate_in_rounds, one_worker_at_a_time, publish, published

    reporter = config.pluginmanager.get_plugin("terminalreporter")

    def say(line: str) -> None:
        if reporter is not None:
            reporter.write_line(f"visioneval: {line}")

    with one_worker_at_a_time(session_folder) as first:
        if first:
            jobs = [(nodeid, case, environments[nodeid]) for nodeid, case in cases]
            publish(evaluate_in_rounds(jobs, layer, 2 * (concurrency or 4), say), session_folder)
    return published([nodeid for nodeid, _ in cases], session_folder)


@pytest.fixture
def visioneval_case(request: pytest.FixtureRequest) -> CaseSpec:
    """The :class:`~pytest_visioneval.cases.CaseSpec` of the current case item."""
    return _case_of(request.node, "visioneval_case")


def _case_of(node: pytest.Item, fixture: str) -> CaseSpec:
    case = getattr(node, "case", None)
    if case is None:
        pytest.fail(f"{fixture} is only available to cases collected from case files", pytrace=False)
    return case  # type: ignore[no-any-return]


@pytest.fixture
def record_metric(request: pytest.FixtureRequest) -> Callable[..., None]:
    """Record a metric for the current test: ``record_metric(name, value, reason="", higher_is_better=True)``.

    Works in any test, not only in case items. The value must be a finite
    number (numpy scalars are converted). Metrics never fail a test; they are
    aggregated per suite (a Python test's suite is its file name) on the
    controller, also under xdist, and checked against thresholds there.
    """
    record = record_for(request.node)

    def record_(name: str, value: Any, reason: str = "", higher_is_better: bool = True) -> None:
        record["metrics"].append(metric_entry(name, value, reason, higher_is_better))

    return record_


@pytest.fixture
def visioneval_evaluation(request: pytest.FixtureRequest) -> CaseEvaluation:
    """Run the model on the current case, store its outputs and grade them.

    Gates and metrics are recorded for the report before the test body
    asserts the gates. A failure to produce or grade an output is an error
    of the case (reported as such), never a pass.
    """
    # Only ``request``: every fixture a case item names is looked up and set up again for each case, on the
    # thread that also reports the tests; the case, the settings and the store come from the item and the
    # session's fixtures instead (the pipeline holds the store).
    from ..run.evaluation import evaluation_from

    visioneval_case = _case_of(request.node, "visioneval_evaluation")
    record = record_for(request.node)
    label = getattr(request.node, "model_label", None)
    if label is not None and isinstance(built := request.getfixturevalue("visioneval_models")[label], str):
        record["error"] = built
        pytest.fail(built, pytrace=False)  # this model could not be built; the run's other models go on
    pipeline: CasePipeline = request.getfixturevalue("visioneval_pipeline")
    outcome = pipeline.outcome_for(request.node.nodeid, visioneval_case)
    record["model"] = outcome["model"]
    record["artifacts"] += outcome["artifacts"]
    record["usage"] = outcome["usage"]
    if outcome.get("judges"):
        record["judges"] = outcome["judges"]  # which judge answered, and how it was asked
    record["timings"] = outcome.get("timings", {})
    if outcome.get("log"):
        request.node.add_report_section("setup", "evaluation log", "\n".join(outcome["log"]))
    if outcome["error"]:
        record["error"] = outcome["error"]
        pytest.fail(record["error"], pytrace=False)
    if outcome.get("not_evaluated"):
        # Neither a pass nor an error: the call waits in a provider batch, or the budget is spent.
        record["not_evaluated"] = outcome["not_evaluated"]
        pytest.skip(f"not evaluated ({outcome['not_evaluated']['reason']}): {outcome['not_evaluated']['detail']}")
    if "repeats" in outcome:
        record["repeats"] = outcome["repeats"]
        record["flaky_gates"] = outcome["flaky_gates"]
    if outcome.get("flaky_metrics"):
        record["flaky_metrics"] = outcome["flaky_metrics"]  # metric -> its spread, wider than --eval-flaky-spread
    data = outcome["evaluation"]
    record["gates"] = data["gates"]
    record["metrics"] += data["metrics"] + outcome["protocol_metrics"]
    record["skipped_graders"] = data["skipped"]
    if "mutation" in outcome:
        record["mutation"] = outcome["mutation"]
    return evaluation_from(visioneval_case, outcome)
