"""plugin/xdist_role.py: the controller of an xdist run, told apart from a worker and from a run without xdist."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from pytest_visioneval.plugin.xdist_role import is_xdist_controller


def _config(dist: str | None, worker: bool = False) -> Any:
    option = SimpleNamespace() if dist is None else SimpleNamespace(dist=dist)
    config = SimpleNamespace(option=option)
    if worker:
        config.workerinput = {"workerid": "gw0"}
    return config


def test_the_controller_hands_items_out() -> None:
    assert is_xdist_controller(_config("load"))
    assert is_xdist_controller(_config("worksteal"))


def test_a_worker_and_a_run_without_xdist_are_not_the_controller() -> None:
    assert not is_xdist_controller(_config("load", worker=True))
    assert not is_xdist_controller(_config("no"))
    assert not is_xdist_controller(_config(None))  # xdist not installed: no --dist option at all
