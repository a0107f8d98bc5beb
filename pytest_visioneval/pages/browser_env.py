"""The environment Chromium starts with: an allowlist, so no API key or token reaches a page's browser.

The run's own environment holds ``OPENAI_API_KEY`` and whatever else the
shell exported; a browser (and every renderer it forks) would otherwise
inherit all of it. Only what Chromium needs to start, find fonts and speak the
locale is passed on.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

# Exact names passed on; plus every LC_* (the locale) and XDG_* (where Chromium keeps caches and finds fonts).
_ALLOWED = frozenset(
    {"PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "FONTCONFIG_FILE", "FONTCONFIG_PATH"}
)
_ALLOWED_PREFIXES = ("LC_", "XDG_")


def browser_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The allowlisted part of ``environ`` (the process's own by default)."""
    source = os.environ if environ is None else environ
    return {name: value for name, value in source.items() if name in _ALLOWED or name.startswith(_ALLOWED_PREFIXES)}
