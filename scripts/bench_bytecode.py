"""cqlindex's bytecode written before a benchmark times anything.

An installed package has it (pip compiles it), and a checkout writes it on its first run, unless
PYTHONDONTWRITEBYTECODE is set, as on some machines (this one's environment sets it): then every
child process a benchmark starts would compile the package anew, ~0.1-0.2 s of start-up that no
user pays twice. (The scripts' _venv.sh compiles after installing; a virtual environment made by
hand does not.)
"""

from __future__ import annotations

import compileall
from pathlib import Path


def compiled() -> None:
    """Compile the cqlindex package this Python imports (a child started with the same
    environment imports the same one)."""
    import cqlindex

    compileall.compile_dir(Path(cqlindex.__file__).parent, quiet=1)
