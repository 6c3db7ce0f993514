"""``importlib.metadata`` loads at its first use, not when sqlglot imports it
(cqlindex.lazy_metadata, issue 34: start-up). Each case runs in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DEFERRED = "from cqlindex import lazy_metadata\nlazy_metadata.defer()\n"


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def test_planning_a_query_does_not_load_it() -> None:
    loaded = json.loads(_run(DEFERRED + (
        "import json, sys\n"
        "from cqlindex.exec.run import run\n"
        "import cqlindex.plan.dialect\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('importlib.metadata', 'email', 'zipfile')))))")))
    assert loaded == ["importlib.metadata"], loaded  # the stand-in alone


def test_without_it_sqlglot_does_load_it() -> None:
    """The control: what the stand-in saves is there to save."""
    assert _run("import sys\nimport sqlglot\nprint('importlib.metadata._meta' in sys.modules)") == "True"


@pytest.mark.parametrize(("use", "expected"), [
    ("from importlib.metadata import version\nprint(version('sqlglot'))", "real"),
    ("import importlib.metadata\nprint(importlib.metadata.version('sqlglot'))", "real"),
    ("import importlib.metadata as m\nprint(m.PackageNotFoundError.__module__)", "importlib.metadata"),
    ("from importlib.metadata import entry_points\nprint(len(entry_points(group='console_scripts')) > 0)", "True"),
    ("import sqlglot\ntry:\n    sqlglot.Dialect.get_or_raise('no-such-dialect')\nexcept ValueError as e:\n"
     "    print(str(e).split(\"'\")[0])", "Unknown dialect"),
])
def test_every_use_gets_the_real_modules_answer(use: str, expected: str) -> None:
    if expected == "real":
        expected = _run(use)  # without the stand-in
    assert _run(DEFERRED + use) == expected


def test_a_second_call_and_a_loaded_module_are_left_alone() -> None:
    assert _run("import sys, importlib.metadata as m\n" + DEFERRED + "lazy_metadata.defer()\n"
                "print(sys.modules['importlib.metadata'] is m)") == "True"


def test_the_console_script_defers_it() -> None:
    assert _run("import sys\nfrom cqlindex import launch\n"
                "launch.main = lambda: print(type(sys.modules['importlib.metadata']).__name__)\n"
                "launch.console()") == "_Deferred"
