"""``python -m cqlindex`` runs the same CLI as the ``cqlindex`` console script."""

from cqlindex.launch import console

console()
