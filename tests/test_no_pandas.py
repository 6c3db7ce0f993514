"""cqlindex's own processes never import pandas through pyarrow (cqlindex.no_pandas, issue 16).

Each case runs in a fresh interpreter with a stand-in ``pandas`` first on the path: importing it
appends the process id to a marker file (then fails, so pyarrow goes on as without pandas). The
stand-in works whether or not the real pandas is installed, so the checks mean the same on any
machine; the control case shows pyarrow does import it when nothing hides it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "samples" / "gnuchess-300.pgn"
STAND_IN = "import os\nopen(os.environ['PANDAS_MARKER'], 'a').write(f'{os.getpid()}\\n')\nraise ImportError('stand-in')\n"


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    """Run ``python ARGS`` with the stand-in pandas; (the completed process, the pids that imported it)."""
    root = tmp_path_factory.mktemp("no_pandas")
    (root / "site" / "pandas").mkdir(parents=True)
    (root / "site" / "pandas" / "__init__.py").write_text(STAND_IN)

    def run(*args: str) -> tuple[subprocess.CompletedProcess, list[str]]:
        marker = root / "marker"
        marker.unlink(missing_ok=True)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root / "site"), str(REPO)]),
               "PANDAS_MARKER": str(marker)}
        done = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=root, env=env,
                              timeout=300)
        return done, marker.read_text().split() if marker.exists() else []

    run.root = root
    return run


@pytest.fixture(scope="module")
def index(probe) -> Path:
    from cqlindex.ingest.pipeline import build

    db = probe.root / "sample.duckdb"
    build([str(SAMPLE)], db)
    return db


def test_the_stand_in_sees_pyarrow_import_pandas_when_nothing_hides_it(probe) -> None:
    done, importers = probe("-c", "import pyarrow as pa\npa.array([1, 2])")
    assert done.returncode == 0, done.stderr
    assert importers, "pyarrow did not import the stand-in: the other cases would prove nothing"


def test_a_build_through_the_console_script_does_not_import_pandas(probe) -> None:
    db = probe.root / "built.duckdb"
    done, importers = probe("-m", "cqlindex", "build", str(SAMPLE), "-o", str(db), "--workers", "2", "-q")
    assert done.returncode == 0, done.stderr
    assert db.exists()
    assert not importers, f"imported pandas in processes {importers}"


@pytest.mark.parametrize("args", [
    ("check", "--format", "pgn"),
    ("check", "--format", "ndjson"),
    ("check", "--format", "csv"),
    ("check", "--format", "json"),
    ("Qd1 sort #Q", "--format", "summary"),  # the Python evaluator: pyarrow loads the game trees
], ids=lambda args: "-".join(a.replace(" ", "_").strip("-") for a in args))
def test_a_query_through_the_console_script_does_not_import_pandas(probe, index, args) -> None:
    done, importers = probe("-m", "cqlindex", "query", str(index), *args)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()
    assert not importers, f"imported pandas in processes {importers}"


#: A worker's start (spawned workers inherit nothing), then a conversion that would import pandas.
WORKER_STARTS = {
    "build": "from cqlindex.ingest.pool import _start_worker\n_start_worker(os.getppid())\n",
    "pgn output": "from cqlindex.output.pgn_workers import _start\n_start(os.getppid(), sys.argv[1])\n",
}


@pytest.mark.parametrize("start", WORKER_STARTS.values(), ids=WORKER_STARTS.keys())
def test_a_worker_process_hides_pandas_from_its_start(probe, index, start) -> None:
    code = f"import os, sys\n{start}import pyarrow as pa\npa.table({{'a': pa.array([1, 2])}}).to_pydict()\n"
    done, importers = probe("-c", code, str(index))
    assert done.returncode == 0, done.stderr
    assert not importers


def test_unhide_lets_pandas_be_imported_again(probe) -> None:
    code = ("from cqlindex import no_pandas\nno_pandas.hide()\nno_pandas.hide()\n"
            "try:\n    import pandas\nexcept ModuleNotFoundError as error:\n    assert 'hidden by cqlindex' in str(error)\n"
            "else:\n    raise SystemExit('pandas was imported')\n"
            "no_pandas.unhide()\n"
            "try:\n    import pandas\nexcept ImportError as error:\n    assert str(error) == 'stand-in', error\n")
    done, importers = probe("-c", code)
    assert done.returncode == 0, done.stderr
    assert len(importers) == 1  # only after unhide
