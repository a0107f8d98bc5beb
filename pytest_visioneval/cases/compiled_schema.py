"""fastjsonschema validators compiled once per machine, not once per process.

fastjsonschema turns a schema into Python source (about 100 KB for the case
file's schema) and compiles it: 60-80 ms on this project's machines for the
case file's schema and the grader options', paid again by every pytest process
(each xdist worker too) while it collects. The source is kept in the user's
cache folder under the hash of the schema and of fastjsonschema's version, and
loaded as a module: Python keeps its bytecode beside it (``__pycache__``), so a
later process only loads that.

Nothing depends on the folder: where it cannot be written or read, or a file in
it does not load, the validator is compiled in memory as before. Files are
written through a temporary name and a rename, so a process never loads half
of one that another is writing.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import fastjsonschema
from fastjsonschema.ref_resolver import RefResolver

FOLDER_ENV = "VISIONEVAL_SCHEMA_CACHE"  # where the compiled validators go; "off": compile in memory only
_SUBFOLDER = ("pytest-visioneval", "schemas")


def compiled_validator(schema: Mapping[str, Any]) -> Callable[[Any], Any]:
    """fastjsonschema's validator of ``schema`` (defaults never written into the data), from the cache when it can be."""
    folder = cache_folder()
    if folder is not None:
        with contextlib.suppress(Exception):  # an unusable cache costs the compile it would have saved, nothing more
            return _cached(schema, folder)
    return fastjsonschema.compile(dict(schema), use_default=False)


def cache_folder() -> Path | None:
    """``VISIONEVAL_SCHEMA_CACHE``, else ``$XDG_CACHE_HOME`` or ``~/.cache`` + ``pytest-visioneval/schemas``; None: off."""
    chosen = os.environ.get(FOLDER_ENV, "")
    if chosen.lower() == "off":
        return None
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if base.startswith("~"):  # no home folder to expand to
        return None
    return Path(base).joinpath(*_SUBFOLDER)


def _cached(schema: Mapping[str, Any], folder: Path) -> Callable[[Any], Any]:
    text = json.dumps(schema, sort_keys=True, ensure_ascii=False)
    key = hashlib.sha256(f"fastjsonschema {fastjsonschema.VERSION}\n{text}".encode()).hexdigest()[:40]
    path = folder / f"validator_{key}.py"
    if not path.is_file():
        _write(path, _source(schema))
    try:
        return _load(path, key)
    except Exception:
        # A file that does not load (changed by hand, or cut short) is made again, so that the
        # next process does not pay the failed load as well as the compile.
        _write(path, _source(schema))
        return _load(path, key)


def _source(schema: Mapping[str, Any]) -> str:
    """fastjsonschema's module for ``schema``, ending with ``VALIDATOR``: its function for the whole schema.

    That function is named after the schema's ``$id``; the name is the one ``fastjsonschema.compile`` looks up.
    """
    definition = dict(schema)
    name = RefResolver.from_schema(definition, handlers={}, store={}).get_scope_name()
    return f"{fastjsonschema.compile_to_code(definition, use_default=False)}\n\nVALIDATOR = {name}\n"


def _load(path: Path, key: str) -> Callable[[Any], Any]:
    spec = importlib.util.spec_from_file_location(f"_visioneval_schema_{key}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    validator = getattr(module, "VALIDATOR", None)
    if not callable(validator):
        raise ImportError(f"{path} names no VALIDATOR")
    return validator


def _write(path: Path, source: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_native_id()}.tmp")
    try:
        temporary.write_text(source, encoding="utf-8")
        os.replace(temporary, path)
    finally:
        with contextlib.suppress(OSError):
            temporary.unlink()
