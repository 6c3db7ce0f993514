"""Bitboards, squares and board transforms: the bottom layer shared by ingest, SQL and the evaluator.

Squares are ints (a1 = 0, h8 = 63) and bitboards are ints with bit i for square i, exactly as in
python-chess, so nothing here needs a conversion to talk to it.
"""
