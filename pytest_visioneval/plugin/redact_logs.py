"""Secrets kept out of the logs and the reports (see :mod:`..calls.redact`).

Every log record is redacted as it is made; a test report's failure text and
captured sections are redacted before the terminal and the JUnit XML read them.

httpx logs each request's URL at INFO - with a base URL's ``user:password@`` -
and the SDK logs its requests and the server's error bodies at DEBUG. pytest shows
them with ``-rA`` and writes them to ``--log-file``; the case logs kept with an
outcome go into the results and the xdist exchange. The record factory sees
every record first, whichever logger made it and whichever handler takes it.
"""

from __future__ import annotations

import pytest

from ..calls.redact import install_record_redaction, redact, register_key_env
from .option_values import option_value


def install_log_redaction(config: pytest.Config) -> None:
    """Redact log records from now until the run ends (workers under xdist each install their own)."""
    config.add_cleanup(install_record_redaction())
    for option in ("visioneval_model_api_key_env", "visioneval_judge_api_key_env"):
        name = option_value(config, option)  # the variables holding keys, also in the controller, which makes no client
        if isinstance(name, str) and name:
            register_key_env(name)


def redact_report(report: pytest.TestReport) -> None:
    """A last pass over what the terminal and the JUnit XML write of a test: its failure text and captured output.

    Messages are redacted where they are made; this catches what came from elsewhere (a traceback quoting an
    SDK exception, a print). A failure text that holds no secret keeps its structure (and its colours).
    """
    if report.longrepr is not None and not isinstance(report.longrepr, tuple):  # tuple: a skip's (path, line, reason)
        text = str(report.longrepr)
        clean = redact(text)
        if clean != text:
            report.longrepr = clean
    report.sections = [(title, redact(content)) for title, content in report.sections]
