"""Query results out: matching games written back as PGN."""
