"""calls/waiting.py: points that may wait, and a context where reaching one stops the evaluation."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import pytest

from pytest_visioneval.calls.waiting import WouldWait, may_wait, model_waits_only_in_calls, without_waiting
from pytest_visioneval.models.edit_pipeline import EditPipelineModel
from pytest_visioneval.models.openai_model import OpenAIModel
from pytest_visioneval.models.reference import ReferenceModel
from pytest_visioneval.models.replay import RegradeModel, ReplayModel


def test_a_waiting_point_is_a_no_op_unless_waiting_is_forbidden() -> None:
    may_wait("a call")
    with without_waiting(), pytest.raises(WouldWait, match="^a call$"):
        may_wait("a call")
    may_wait("a call")  # allowed again after the block


def test_would_wait_passes_through_handlers_of_ordinary_errors() -> None:
    """A model or grader that catches Exception must not turn the stop into an error of the case."""

    def adapter() -> None:
        try:
            may_wait("OCR")
        except Exception as exc:  # noqa: BLE001 - what a careless adapter does
            raise AssertionError("caught") from exc

    with without_waiting(), pytest.raises(WouldWait):
        adapter()


def test_threads_started_inside_may_wait() -> None:
    """The pipeline's pool threads and the render thread do not inherit the prohibition."""
    seen: list[str] = []

    def in_thread() -> None:
        may_wait("a call")
        seen.append(threading.current_thread().name)

    with without_waiting(), ThreadPoolExecutor(1) as pool:
        pool.submit(in_thread).result()
        thread = threading.Thread(target=in_thread)
        thread.start()
        thread.join()
    assert len(seen) == 2


class Declared:
    waits_only_in_calls = True


class Truthy:
    waits_only_in_calls = "yes"  # only True itself counts


@pytest.mark.parametrize(("model", "expected"), [(Declared(), True), (object(), False), (Truthy(), False)])
def test_only_a_model_that_declares_it_waits_only_in_calls(model: object, expected: bool) -> None:
    assert model_waits_only_in_calls(model) is expected


@pytest.mark.parametrize("model", [OpenAIModel, ReferenceModel, ReplayModel, RegradeModel], ids=lambda m: m.__name__)
def test_the_built_in_models_wait_only_in_calls(model: type) -> None:
    assert model_waits_only_in_calls(model)


@pytest.mark.parametrize(("writer", "editor", "expected"), [(True, True, True), (True, False, False), (False, True, False)])
def test_a_two_step_model_waits_only_in_calls_when_both_steps_do(writer: bool, editor: bool, expected: bool) -> None:
    steps = [SimpleNamespace(name="step", waits_only_in_calls=declared) for declared in (writer, editor)]
    assert model_waits_only_in_calls(EditPipelineModel(steps[0], steps[1])) is expected  # type: ignore[arg-type]
