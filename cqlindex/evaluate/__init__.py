"""The reference evaluator: CQL semantics in plain Python over game trees loaded from the index.

Every faster path (the SQL planner) must give exactly this evaluator's matches. The evaluator
itself (:mod:`cqlindex.evaluate.context`) dispatches on node type; each family's evaluation
lives with the family (``cqlindex/filters/<family>/python.py``); :mod:`cqlindex.evaluate.core`
puts them together.
"""
