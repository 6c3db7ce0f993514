"""A regular (non-editable) install must carry every subpackage and the schema files."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_subpackage_is_listed_in_pyproject() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "cqlindex").rglob("__init__.py")}
    assert on_disk <= listed, sorted(on_disk - listed)
    assert "cqlindex.schema" in listed and (ROOT / "schema" / "tables.sql").exists()
