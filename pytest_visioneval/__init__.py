"""pytest-visioneval: vision-generation benchmarks as pytest suites."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__version__ = "0.1.0"

__all__ = ["__version__", "lazy_exports"]


def lazy_exports(package: str, exports: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's ``__getattr__`` and ``__dir__`` (PEP 562): a name it re-exports is imported on first use.

    ``exports`` maps each name to the module that defines it, relative to ``package`` (``".loader"``).
    A package's ``__init__`` that imported every module it re-exports made any import of one of its
    modules import them all: loading the plugin then read the YAML parser, every grader's base and the
    judge client, which an xdist controller (and a pytest run without case files) never uses.
    """

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        setattr(sys.modules[package], name, value)  # found directly from now on
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(exports))

    return __getattr__, __dir__
