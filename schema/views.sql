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

-- The constant square set called set_name in square_masks: 'rank_1', 'file_e', 'light', 'center', ...
CREATE MACRO square_mask(set_name) AS (SELECT mask FROM square_masks WHERE name = set_name);

-- Where square sq goes under a basic CQL transform ('rotate90', 'reflecth', 'colorswap',
-- 'shift(1,-2)', ...); NULL when a shift moves it off the board.
CREATE MACRO transform_square(t, sq) AS
    (SELECT image FROM square_transforms WHERE transform = t AND square = sq);

-- Piece sets of a positions row (pass the row itself: SELECT white_pieces(p) FROM positions p).
CREATE MACRO white_pieces(pos) AS pos.wk | pos.wq | pos.wr | pos.wb | pos.wn | pos.wp;
CREATE MACRO black_pieces(pos) AS pos.bk | pos.bq | pos.br | pos.bb | pos.bn | pos.bp;
CREATE MACRO occupied(pos) AS white_pieces(pos) | black_pieces(pos);

-- The piece on square sq of a positions row as a FEN letter ('K' ... 'p'), NULL if empty.
CREATE MACRO piece_at(pos, sq) AS CASE
    WHEN has_square(pos.wk, sq) THEN 'K' WHEN has_square(pos.wq, sq) THEN 'Q'
    WHEN has_square(pos.wr, sq) THEN 'R' WHEN has_square(pos.wb, sq) THEN 'B'
    WHEN has_square(pos.wn, sq) THEN 'N' WHEN has_square(pos.wp, sq) THEN 'P'
    WHEN has_square(pos.bk, sq) THEN 'k' WHEN has_square(pos.bq, sq) THEN 'q'
    WHEN has_square(pos.br, sq) THEN 'r' WHEN has_square(pos.bb, sq) THEN 'b'
    WHEN has_square(pos.bn, sq) THEN 'n' WHEN has_square(pos.bp, sq) THEN 'p' END;
