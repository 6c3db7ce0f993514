-- Views and macros for ad-hoc SQL. Bitboards are never shifted in SQL: a square's bit comes
-- from square_bit(sq), a precomputed constant.

-- The bit of square sq (0 = a1 .. 63 = h8) as a signed BIGINT.
CREATE MACRO square_bit(sq) AS
    CASE WHEN sq = 63 THEN -9223372036854775808 ELSE CAST(pow(2, sq) AS BIGINT) END;

-- Whether square sq is set in bitboard bb.
CREATE MACRO has_square(bb, sq) AS (bb & square_bit(sq)) <> 0;

-- Number of squares in a bitboard.
CREATE MACRO popcount(bb) AS bit_count(bb);

-- The square index of a name such as 'e4'.
CREATE MACRO square_index(name) AS (ascii(lower(name[1])) - 97) + 8 * (ascii(name[2]) - 49);

-- The main line only, as CQL searches by default.
CREATE VIEW mainline_positions AS SELECT * FROM positions WHERE mainline;
