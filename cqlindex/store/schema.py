"""Create a cqlindex database from the SQL files in schema/ and fill its constant tables.

The DDL lives in schema/*.sql, not in Python strings, so power users, the Parquet export and
the planner all read one definition. The transform and mask tables are generated here from
:mod:`cqlindex.board.transforms`, the module the evaluator uses too.
"""

from __future__ import annotations

from cqlindex.board.squares import to_signed
from cqlindex.board.transforms import all_transforms, masks
from cqlindex.store.duckdb_light import duckdb, relations

SCHEMA_FILES = ("tables.sql", "views.sql")
# Bumped whenever a build writes different tables; store.database refuses indexes of another
# version (3: capture_square, rook_from, rook_to on positions; 4: playable, bad_move on games;
# 5: material on positions; 6: pinned on positions; 7: white_attacks_twice, black_attacks_twice).
SCHEMA_VERSION = "7"


def schema_sql(name: str) -> str:
    """The text of one file of schema/."""
    from importlib import resources  # here: every query imports this module, only a build reads schema/ (~5 ms)

    return resources.files("cqlindex.schema").joinpath(name).read_text(encoding="utf-8")


def create_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Create every table, view and macro, and fill the transform and mask tables."""
    import pyarrow as pa  # here: every query imports this module (SCHEMA_VERSION), only a build needs Arrow

    con = relations(con)  # Arrow tables registered below
    for name in SCHEMA_FILES:
        con.execute(schema_sql(name))
    rows = [(name, kind, sq, fn(sq)) for name, kind, fn in all_transforms() for sq in range(64)]
    transforms = pa.table({
        "transform": [r[0] for r in rows], "kind": [r[1] for r in rows],
        "square": [r[2] for r in rows], "image": [r[3] for r in rows],
    })
    con.register("_transforms", transforms)
    con.execute("INSERT INTO square_transforms BY NAME SELECT * FROM _transforms")
    con.unregister("_transforms")
    named = masks()
    mask_table = pa.table({"name": list(named), "mask": [to_signed(m) for m in named.values()]})
    con.register("_masks", mask_table)
    con.execute("INSERT INTO square_masks BY NAME SELECT * FROM _masks")
    con.unregister("_masks")
