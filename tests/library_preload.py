"""The libraries the plugin imports on first use, imported once per test process instead of once per inner run.

An in-process ``pytester`` run removes, when it ends, every module it imported (pytest's
``SysModulesSnapshot``), so the next run imports them again. The plugin imports its heavy
libraries on first use (a run that never compares pictures never loads scikit-image), which
made each in-process run pay them again: SciPy, scikit-image and the SDK cost more than the
run's own work (one plugin test file: 24-27 s of CPU before, 10-12 s after).

Some of them also break when imported twice in one process, which is why this list began:

* PyYAML's C loader keeps the node classes of the first ``yaml`` it saw; a second ``yaml``
  module resolves no tag on its nodes ("could not determine a constructor for the tag None").
* numpy's compiled modules (under ``scipy.ndimage``) cannot be loaded twice.
* httpx2 maps httpcore2's exceptions with a table built on the first request; a discarded
  httpcore2 would leave timeouts unmapped.

Only third-party libraries are listed: the plugin's own modules are still imported afresh by
each inner run, as a user's process would import them.
"""

from __future__ import annotations

import functools
import importlib

LIBRARIES = (
    "yaml",
    "httpcore2",
    "numpy",
    "PIL.Image",
    "scipy.ndimage",
    "scipy.optimize",
    "scipy.signal",
    "scipy.sparse.csgraph",
    "scipy.spatial",
    "scipy.stats",
    # scikit-image loads its submodules on first attribute access: name what the plugin uses.
    "skimage.color:rgb2lab",
    "skimage.feature:match_template",
    "skimage.metrics:structural_similarity",
    "skimage.registration:phase_cross_correlation",
    "skimage.transform:resize",
    "openai",
    "openai.resources.chat",
    "openai.resources.images",
    "playwright.async_api",
    "pytesseract",
    "bs4",
    "jsonschema",
    "fastjsonschema",
    "krippendorff",
)


@functools.cache
def preload_libraries() -> None:
    """Import each of :data:`LIBRARIES` (``module`` or ``module:attribute``, for a module that loads lazily), once."""
    for entry in LIBRARIES:
        module, _, attribute = entry.partition(":")
        loaded = importlib.import_module(module)
        if attribute:
            getattr(loaded, attribute)
