"""What the command line reads besides its options, shaped for the library.

``cqlindex sql`` takes its SQL as an argument, from a file or from standard input, and binds
``--param`` values (numbers as numbers, so ``WHERE year < ?`` compares numbers); ``cqlindex info
--format json`` gives the build values their JSON types (``build_info`` stores them as text).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from cqlindex.errors import InputError


def sql_text(query: str | None, file: Path | None) -> str:
    """The SQL from the argument, the file, or standard input (one of them)."""
    if query not in (None, "-") and file is not None:
        raise InputError("give the SQL or --file FILE, not both")
    if file is not None:
        try:
            return file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise InputError(f"{file}: cannot read the SQL ({getattr(error, 'strerror', None) or error})") from None
    if query not in (None, "-"):
        return query
    if sys.stdin.isatty():
        raise InputError("give the SQL as an argument, with --file FILE, or on standard input")
    text = sys.stdin.read()
    if not text.strip():
        raise InputError("no SQL on standard input")
    return text


def sql_params(values: list[str]) -> list | dict | None:
    """``--param`` values: all positional, or all NAME=VALUE; numbers as numbers."""
    if not values:
        return None
    named = [v.partition("=") for v in values]
    if all(sep and name.isidentifier() for name, sep, _ in named):
        return {name: number_or_text(value) for name, _, value in named}
    return [number_or_text(v) for v in values]


def number_or_text(text: str) -> int | float | str:
    """``3`` -> 3, ``0.5`` -> 0.5, anything else the text itself."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def typed_build_value(key: str, value: str) -> Any:
    """A build_info value (stored as text) as JSON wants it: inputs a list, counts and seconds numbers."""
    if key == "inputs":
        return [line for line in value.split("\n") if line]
    if key.endswith("_version") and key != "schema_version":
        return value  # '0.1.0' is a version, not a number
    return number_or_text(value)
