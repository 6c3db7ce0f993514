"""Decoding a game's bytes: UTF-8, else Windows-1252 with no byte lost."""

from __future__ import annotations

import pytest

from cqlindex.ingest.source import RawGame
from cqlindex.ingest.worker import decode, parse_batch

DECODE_CASES = [
    ("utf-8", "Polgár “Judit” – 1…0 €".encode("utf-8"), "Polgár “Judit” – 1…0 €"),
    ("latin-1-letters", "Polgár, Müller, Ñ".encode("latin-1"), "Polgár, Müller, Ñ"),
    ("windows-quotes", b"\x93Opening\x94 \x96 1\x85 \x80", "“Opening” – 1… €"),
    # 0x81 0x8D 0x8F 0x90 0x9D are undefined in Windows-1252: kept as Latin-1 reads them
    ("undefined-bytes", b"a\x81b\x8dc\x8fd\x90e\x9df", "a\x81b\x8dc\x8fd\x90e\x9df"),
]


@pytest.mark.parametrize("data, text", [c[1:] for c in DECODE_CASES], ids=[c[0] for c in DECODE_CASES])
def test_decode(data: bytes, text: str) -> None:
    assert decode(data) == text


def test_decoding_loses_no_byte() -> None:
    data = bytes(range(256))
    text = decode(data)
    assert len(text) == 256
    assert len(set(text)) == 256  # a different character for every byte


def test_windows_1252_tags_are_stored_as_meant() -> None:
    data = b'[Event "\x93Open\x94 \x96 Round 2"]\n[White "A"]\n\n1. e4 *\n'
    games, _, errors = parse_batch([(1, RawGame("t.pgn", 0, 1, data))])
    assert games.to_pylist()[0]["event"] == "“Open” – Round 2"
    assert errors.num_rows == 0


def test_positions_are_narrowed_to_the_table_types() -> None:
    """With the table's Arrow schema the worker hands over DuckDB's own types (not 64-bit
    integers everywhere), on both paths, so the parent inserts without casting."""
    import duckdb

    from cqlindex.store.schema import create_schema

    con = duckdb.connect()
    create_schema(con)
    schema = con.sql("SELECT * FROM positions LIMIT 0").to_arrow_table().schema
    game = RawGame("f.pgn", 0, 1, b'[Event "e"]\n\n1. e4 e5 2. Nf3 (2. f4) Nc6 *\n')
    plain = RawGame("f.pgn", 0, 1, b'[Event "e"]\n\n1. e4 e5 2. Nf3 Nc6 *\n')
    for reader in ("python-chess", "compiled"):
        positions = parse_batch([(1, game), (2, plain)], reader, schema)[1]
        assert positions.num_rows == 5 + 1 + 5
        for field in positions.schema:
            if field.name != "san":  # SAN stays a dictionary column on the compiled path
                assert field.type == schema.field(field.name).type, (reader, field)
