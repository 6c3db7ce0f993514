"""The DDL, views and macros of a cqlindex database, shipped as package data (see store/schema.py)."""
