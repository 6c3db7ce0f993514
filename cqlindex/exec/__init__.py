"""Running a query: the planner's SQL first, the evaluator only where SQL cannot decide."""
