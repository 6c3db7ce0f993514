"""The filter catalogue (:mod:`cqlindex.filters.catalogue`): every CQL name declared once, by family."""
