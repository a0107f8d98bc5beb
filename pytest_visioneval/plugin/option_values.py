"""An option's value: from the command line if given there, else from the ini file.

Apart from :mod:`options` so that modules :mod:`options` itself uses (``regrade.py``) can read options too.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest


def option_value(config: pytest.Config, name: str) -> Any:
    """The command-line value of ``name`` if given, else the ini value, else None."""
    cli = config.getoption(name, default=None)
    if cli not in (None, []):
        return cli
    ini = config.getini(name)
    return ini if ini not in ("", []) else None


def option_path(config: pytest.Config, name: str, base: Path) -> Path | None:
    """``option_value`` as a path: relative to the current directory (CLI) or to ``base`` (ini)."""
    raw = option_value(config, name)
    if raw is None:
        return None
    path = Path(os.path.expanduser(str(raw)))
    # A CLI path is relative to where pytest was started; an ini path to the rootdir.
    anchor = Path.cwd() if config.getoption(name, default=None) else base
    return path if path.is_absolute() else (anchor / path)
