"""The DuckDB side: creating the schema, opening databases, describing them."""
