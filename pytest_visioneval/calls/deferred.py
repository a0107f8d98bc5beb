"""A call that was not made in this run, on purpose: the case is *not evaluated*, which is neither a pass nor an error.

Two reasons exist: the request waits in a provider batch (``--eval-batch``; a
later run collects it), or making it would exceed the run's budget
(``--eval-max-cost``). The case's outcome says which; the run reports the
case as not evaluated and its exit status says the run is not finished.
"""

from __future__ import annotations

REASONS = ("batch", "budget")


class CallDeferred(Exception):
    """Raised by the call layer instead of making a call; caught by the case's evaluation, never by graders."""

    def __init__(self, reason: str, detail: str):
        if reason not in REASONS:
            raise ValueError(f"unknown reason {reason!r}")
        super().__init__(detail)
        self.reason = reason
        self.detail = detail
