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


def test_every_data_file_is_in_a_listed_package_and_its_package_data() -> None:
    """A data folder (templates, the serve page) must be a package of its own with a package-data
    pattern: left out, setuptools warns on every install that it would be ignored, and a regular
    install would not carry its files."""
    from fnmatch import fnmatch

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed, data = set(config["packages"]), config["package-data"]
    files = [p for p in (ROOT / "cqlindex").rglob("*")
             if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts]
    assert files, "no data files found: the test reads the wrong folder"
    for path in files:
        package = ".".join(path.parent.relative_to(ROOT).parts)
        assert package in listed, f"{path.relative_to(ROOT)}: its folder {package} is not in tool.setuptools.packages"
        assert any(fnmatch(path.name, pattern) for pattern in data.get(package, [])), \
            f"{path.relative_to(ROOT)}: no package-data pattern of {package} takes it"
