"""Secrets taken out of every text we write or print: API keys and the credentials of base URLs.

An endpoint may echo what it was sent: a 401 whose message repeats the
``Authorization`` header put the key into the results JSON, the JUnit XML and
the terminal. Error texts are passed through :func:`redact` where API errors
become messages (the calls layer, the model, the judges), and once more where
results are written (:func:`redact_data`); :class:`RedactingRecords` does the
same for log records (httpx logs its URLs, credentials included, at INFO).

What counts as a secret:

* the values of the environment variables that hold keys: those registered by
  the model and judge settings (``api_key_env``), ``OPENAI_API_KEY``, and any
  variable whose name ends in ``API_KEY``, ``_TOKEN``, ``_SECRET`` or
  ``_PASSWORD`` (values under 8 characters are left alone: they are not keys,
  and hiding every "1" would garble the text);
* values registered directly (a key handed to a client);
* the user and password of any ``scheme://user:password@host`` URL, and the
  token after ``Bearer`` / ``Basic`` wherever they appear.
"""

from __future__ import annotations

import base64
import logging
import os
import re
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote, urlsplit

REDACTED = "[REDACTED]"
KEY_ENV_SUFFIXES = ("API_KEY", "_TOKEN", "_SECRET", "_PASSWORD")
MIN_SECRET_CHARS = 8

_lock = threading.Lock()
_key_envs: set[str] = {"OPENAI_API_KEY"}
_secrets: set[str] = set()

# scheme://user[:password]@ -> scheme://[REDACTED]@ (the host stays: it says where the call went)
_URL_CREDENTIALS = re.compile(r"(?P<scheme>\b[a-zA-Z][a-zA-Z0-9+.-]*://)[^\s/@'\"<>]+@")
# An Authorization header's credentials, however the server quotes them back.
_AUTH_TOKEN = re.compile(r"(?P<kind>\b(?:Bearer|Basic)\s+)[A-Za-z0-9._~+/=-]{8,}", re.IGNORECASE)


def register_key_env(name: str) -> None:
    """The environment variable ``name`` holds a key (a model's or judge's ``api_key_env``): its value is redacted."""
    with _lock:
        _key_envs.add(name)


def register_secret(value: str | None) -> None:
    """``value`` (a key handed to a client) is redacted wherever it appears."""
    if value and len(value) >= MIN_SECRET_CHARS:
        with _lock:
            _secrets.add(value)


def register_url(url: str | None) -> None:
    """The credentials of ``url`` (``http://user:secret@host/v1``) are redacted, also decoded and as Basic auth."""
    if not url:
        return
    try:
        parts = urlsplit(url)
    except ValueError:
        return
    if parts.password:
        register_secret(parts.password)
        register_secret(unquote(parts.password))
        pair = f"{unquote(parts.username or '')}:{unquote(parts.password)}"
        register_secret(base64.b64encode(pair.encode("utf-8")).decode("ascii"))  # what httpx sends as Basic auth


# The secrets found by the last walk of the environment, with what they were found under (see _fingerprint).
_known: tuple[tuple[Any, ...], list[str]] | None = None


def known_secrets() -> list[str]:
    """Every secret to redact, longest first (a key that contains another is replaced whole).

    Every log record asks, so the environment is walked only when it may have changed (its size, or
    the value of a variable that held a key) or a key was registered since; otherwise the last list
    is returned as it is (callers only read it).
    """
    global _known
    known = _known
    if known is not None and known[0] == _fingerprint(known[0][-1]):
        return known[1]
    size = len(os.environ)  # before the walk: a change during it makes the next call walk again
    with _lock:
        found = set(_secrets)
        names = set(_key_envs)
        registry = (id(_secrets), len(_secrets), id(_key_envs), len(_key_envs))
    watched = set(names)  # a registered variable is watched even while unset: setting it changes its value
    for name, value in _environment():
        if name in names or name.upper().endswith(KEY_ENV_SUFFIXES):
            watched.add(name)
            if len(value) >= MIN_SECRET_CHARS:
                found.add(value)
    secrets = sorted(found, key=len, reverse=True)
    order = tuple(sorted(watched))
    _known = ((*registry, size, _values(order), order), secrets)
    return secrets


def _fingerprint(watched: tuple[str, ...]) -> tuple[Any, ...]:
    """What the secrets depend on, read cheaply: the registries, the environment's size, the watched values.

    A key variable added while another variable is removed at the same instant goes unseen until the
    size or a watched value changes; registered keys and the usual ways of setting a key never do that.
    """
    return (id(_secrets), len(_secrets), id(_key_envs), len(_key_envs), len(os.environ), _values(watched), watched)


def _values(names: tuple[str, ...]) -> tuple[str | None, ...]:
    # One lookup per name: never an iteration, which another thread's change can break.
    return tuple(os.environ.get(name) for name in names)


def _environment() -> list[tuple[str, str]]:
    """A snapshot of the environment's items, safe while another thread changes it.

    pytest sets and removes PYTEST_CURRENT_TEST on its own thread at every test phase; walking
    ``os.environ`` meanwhile from a case thread raises KeyError for a name removed mid-walk.
    """
    for _ in range(5):
        try:
            return list(os.environ.items())
        except (KeyError, RuntimeError):
            continue
    return [(name, value) for name in list(os.environ) if (value := os.environ.get(name)) is not None]


def redact(text: str, secrets: list[str] | None = None) -> str:
    """``text`` with every known secret, URL credentials and Authorization token replaced by ``[REDACTED]``.

    ``secrets``: :func:`known_secrets` taken once by a caller that redacts many strings.
    """
    if not text:
        return text
    for secret in known_secrets() if secrets is None else secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    if "@" in text:
        text = _URL_CREDENTIALS.sub(lambda m: f"{m['scheme']}{REDACTED}@", text)
    if "earer" in text or "asic" in text or "EARER" in text or "ASIC" in text:
        text = _AUTH_TOKEN.sub(lambda m: f"{m['kind']}{REDACTED}", text)
    return text


def redact_data(value: Any, secrets: list[str] | None = None) -> Any:
    """A copy of plain JSON data (dicts, lists, strings) with every string, keys included, redacted."""
    if secrets is None:
        secrets = known_secrets()  # once for the whole value, not once per string
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, dict):
        return {redact(k, secrets) if isinstance(k, str) else k: redact_data(v, secrets) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_data(item, secrets) for item in value]
    return value


class RedactingRecords:
    """A log-record factory that redacts each record's message (and its exception text) as it is made.

    At the factory, not at a handler: every handler sees the redacted record - pytest's captured log
    (``-rA``), ``--log-file``, live logging, the case logs kept with an outcome - whichever logger the
    record came from (httpx, openai._base_client, ours). Records whose text holds no secret keep their
    ``msg`` and ``args`` as they were.
    """

    def __init__(self, previous: Callable[..., logging.LogRecord]):
        self.previous = previous

    def __call__(self, *args: Any, **kwargs: Any) -> logging.LogRecord:
        record = self.previous(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # a broken format string: the handler reports it as logging always did
            return record
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, ()
        if record.exc_info and record.exc_info[0] is not None and not record.exc_text:
            text = logging.Formatter().formatException(record.exc_info)
            clean_text = redact(text)
            if clean_text != text:
                record.exc_text = clean_text  # formatters use exc_text as is when it is set
        return record


def install_record_redaction() -> Callable[[], None]:
    """Make every log record redacted from now on; returns the function that puts the previous factory back."""
    previous = logging.getLogRecordFactory()
    if isinstance(previous, RedactingRecords):
        return lambda: None  # already installed (a second configure in one process)
    factory = RedactingRecords(previous)
    logging.setLogRecordFactory(factory)

    def uninstall() -> None:
        if logging.getLogRecordFactory() is factory:
            logging.setLogRecordFactory(previous)

    return uninstall
