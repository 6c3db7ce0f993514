"""What comes out of a query: records for tables and JSON, and CQL-convention PGN."""
