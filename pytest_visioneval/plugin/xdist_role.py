"""Which part of an xdist run this pytest process plays."""

from __future__ import annotations

import pytest


def is_xdist_controller(config: pytest.Config) -> bool:
    """The controller of an xdist run (``-n``, ``--dist``): it hands items to workers and runs none itself."""
    return not hasattr(config, "workerinput") and getattr(config.option, "dist", "no") != "no"
