"""The plugin's start-up stays light: every pytest run in an environment with the plugin pays for it.

numpy, scipy and the SDK are imported where a run first needs them (a grader,
the statistics at the session's end, the first call), so a case run imports
them while its first calls are in flight, and other test suites never do.
"""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("numpy", "scipy", "openai", "playwright", "krippendorff")


def test_loading_the_plugin_imports_no_heavy_library() -> None:
    probe = (
        "import json, sys\n"
        "import pytest_visioneval.plugin.hooks\n"
        f"print(json.dumps(sorted(name for name in {HEAVY!r} if name in sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    assert json.loads(done.stdout) == []
