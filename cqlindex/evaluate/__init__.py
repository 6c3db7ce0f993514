"""The reference evaluator: CQL semantics in plain Python over game trees loaded from the index.

Every faster path (the SQL planner) must give exactly this evaluator's matches.
"""
