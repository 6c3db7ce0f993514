"""PGN in, columnar rows out: reading sources, splitting games, replaying them, loading DuckDB."""
