"""The SQL planner: CQL filters pushed down into DuckDB, the rest left to the evaluator."""
