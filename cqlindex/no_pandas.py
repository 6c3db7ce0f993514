"""Keep pyarrow from importing pandas in cqlindex's own processes.

When pandas is installed (the ``spark`` and ``pandas`` extras install it, and many a researcher's
environment has it), pyarrow imports it the first time it converts anything: ``pa.array``,
``pa.table``, ``to_numpy``, ``pc.take`` each ask once whether their input is a pandas object.
That import costs ~0.28 CPU s, about a quarter of a small build and more than a query's whole
start-up (issue 16), and cqlindex never hands pyarrow a pandas object.

:func:`hide` makes ``import pandas`` fail in this process, so pyarrow's one question finds no
pandas, as on an installation without it. It is for processes that run cqlindex's code alone:
the console script (:mod:`cqlindex.launch`) and the build's and PGN output's worker processes;
never a library user's process, whose pandas objects pyarrow must recognise. :func:`unhide`
undoes it where something does need pandas (pyspark, for ``--engine spark``). pyarrow's
conversions that need pandas (``Table.from_pandas``, ``to_pandas``) try the import again when
they run, so after :func:`unhide` they work; before it they say pandas is missing.
"""

from __future__ import annotations

import sys
from importlib.machinery import ModuleSpec


class _Hidden:
    """A finder, first on ``sys.meta_path``, that refuses pandas and its submodules."""

    @staticmethod
    def find_spec(name: str, path=None, target=None) -> ModuleSpec | None:
        if name == "pandas" or name.startswith("pandas."):
            raise ModuleNotFoundError(f"No module named {name!r} (hidden by cqlindex: its processes never use pandas)",
                                      name=name)
        return None


def hide() -> None:
    """Make ``import pandas`` fail here until :func:`unhide` (nothing to do once pandas is loaded)."""
    if "pandas" not in sys.modules and _Hidden not in sys.meta_path:
        sys.meta_path.insert(0, _Hidden)


def unhide() -> None:
    """Let ``import pandas`` work again."""
    while _Hidden in sys.meta_path:
        sys.meta_path.remove(_Hidden)
