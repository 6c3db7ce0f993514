"""Load ``importlib.metadata`` when something uses it, not when sqlglot imports it.

sqlglot's dialect module imports ``entry_points`` from ``importlib.metadata`` as it loads, to
look up third-party dialects by name, which a plan never does (it prints with its own dialect,
:mod:`cqlindex.plan.dialect`). That import (email, zipfile, csv under it) costs a fresh query
~18 ms of the ~0.1 s sqlglot takes to load, on every query without a kept plan (issue 34:
26 pattern files a process each, 0.5 s of their total).

:func:`defer` puts a stand-in for the module in ``sys.modules``: its ``entry_points`` and every
other name it is asked for load the real module (which then replaces the stand-in) and answer
from it, so a caller sees the real function's result. Like :mod:`cqlindex.no_pandas`, it is for
processes that run cqlindex's code alone (the console script), never a library user's.
"""

from __future__ import annotations

import sys
import types

_NAME = "importlib.metadata"


def _real() -> types.ModuleType:
    """The real module, loaded in the stand-in's place (the first time)."""
    import importlib

    if isinstance(sys.modules.get(_NAME), _Deferred):
        del sys.modules[_NAME]
        if isinstance(getattr(importlib, "metadata", None), _Deferred):
            del importlib.metadata
    return importlib.import_module(_NAME)


def _entry_points(*args, **kwargs):
    return _real().entry_points(*args, **kwargs)


class _Deferred(types.ModuleType):
    """The stand-in: ``entry_points`` (what ``from importlib.metadata import entry_points``
    binds at import) calls through; any other name loads the real module."""

    entry_points = staticmethod(_entry_points)

    def __getattr__(self, name: str):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return getattr(_real(), name)


def defer() -> None:
    """Have ``importlib.metadata`` load at its first use (nothing to do once it is loaded)."""
    import importlib

    if _NAME in sys.modules:
        return
    stand_in = _Deferred(_NAME, "importlib.metadata, loaded at its first use (cqlindex.lazy_metadata)")
    sys.modules[_NAME] = stand_in
    importlib.metadata = stand_in
