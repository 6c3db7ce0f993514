-- Views and macros for ad-hoc SQL. A square's bit comes from square_bit(sq), a constant; the
-- FEN macros shift whole bitboards instead, which DuckDB does a column at a time.

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

-- The FEN letter on square sq of a positions row, '1' if empty. Branch-free bit arithmetic (at
-- most one of the twelve boards has the bit), which DuckDB evaluates a column at a time;
-- piece_at's CASE, and lambdas in list_transform above all, cost far more per row.
CREATE MACRO square_letter(pos, sq) AS substr('1KQRBNPkqrbnp', 1 +
    ((pos.wk >> sq) & 1) + 2 * ((pos.wq >> sq) & 1) + 3 * ((pos.wr >> sq) & 1) + 4 * ((pos.wb >> sq) & 1) +
    5 * ((pos.wn >> sq) & 1) + 6 * ((pos.wp >> sq) & 1) + 7 * ((pos.bk >> sq) & 1) + 8 * ((pos.bq >> sq) & 1) +
    9 * ((pos.br >> sq) & 1) + 10 * ((pos.bb >> sq) & 1) + 11 * ((pos.bn >> sq) & 1) + 12 * ((pos.bp >> sq) & 1), 1);

-- The eight squares of rank r (0 = the first rank) of bitboard bb, one byte each (file a in the
-- lowest): 1 where bb has the square, else 0. Branch-free: the rank's byte copied into all eight
-- bytes, byte f keeps bit f, adding 0x7F to each byte carries that bit to the byte's top, which
-- is shifted down. No sum overflows (the largest is 0xFFBF9F8F87838180).
CREATE MACRO file_bits(bb, r) AS ((((bb >> (8 * r)) & 255)::UBIGINT * 72340172838076673::UBIGINT
    & 9241421688590303745::UBIGINT) + 9187201950435737471::UBIGINT & 9259542123273814144::UBIGINT) >> 7;

-- The piece on each square of rank r of a positions row as a number 0 (empty) to 12, one byte
-- per file (file a in the lowest), in the order of '1KQRBNPkqrbnp': each bit of the number is
-- the union of the boards whose pieces have it set (K 1, Q 2, R 3, B 4, N 5, P 6, k 7, ... p 12).
CREATE MACRO rank_codes(pos, r) AS
    file_bits(pos.wk | pos.wr | pos.wn | pos.bk | pos.br | pos.bn, r) +
    2 * file_bits(pos.wq | pos.wr | pos.wp | pos.bk | pos.bb | pos.bn, r) +
    4 * file_bits(pos.wb | pos.wn | pos.wp | pos.bk | pos.bp, r) +
    8 * file_bits(pos.bq | pos.br | pos.bb | pos.bn | pos.bp, r);

-- Rank r (0 = the first rank) of a positions row as eight letters, a to h, '1' for each empty
-- square. Each byte of rank_codes plus one, times 16, prints as two hex digits, the second '0';
-- reversed (file a first) and without the '0's, one digit per square is left to translate. Four
-- unions of boards per rank, not twelve tests per square: DuckDB binds positions_fen (at every
-- build) in 0.03 s instead of 0.16-0.4, and evaluates board_fen 1.5 times as fast.
CREATE MACRO rank_letters(pos, r) AS translate(replace(reverse(hex(
    (rank_codes(pos, r) + 72340172838076673::UBIGINT) * 16)), '0', ''), '123456789ABCD', '1KQRBNPkqrbnp');

-- The piece placement field of a FEN for a positions row: ranks 8 to 1, runs of empty squares as
-- digits. Written out rank by rank: the lambda form (list_transform over ranks and files) took
-- 0.8 ms a row, which made writing 20,000 records take 16 s.
CREATE MACRO board_fen(pos) AS replace(replace(replace(replace(replace(replace(replace(
    rank_letters(pos, 7) || '/' || rank_letters(pos, 6) || '/' || rank_letters(pos, 5) || '/' ||
    rank_letters(pos, 4) || '/' || rank_letters(pos, 3) || '/' || rank_letters(pos, 2) || '/' ||
    rank_letters(pos, 1) || '/' || rank_letters(pos, 0),
    '11111111', '8'), '1111111', '7'), '111111', '6'), '11111', '5'), '1111', '4'), '111', '3'), '11', '2');

-- How far game gn's set-up FEN moves the fullmove number on from 1 (0 without a FEN).
CREATE MACRO fullmove_offset(gn) AS coalesce((
    SELECT greatest(coalesce(try_cast(split_part(g.start_fen, ' ', 6) AS INTEGER), 1), 1) - 1
    FROM games g WHERE g.gamenumber = gn), 0);

-- The fullmove number a score sheet shows for a positions row: CQL's movenumber (1 at the start
-- of every game, right for the filter) moved on by a set-up FEN's own fullmove number, so a game
-- that starts at move 29 shows 29, as its PGN does.
CREATE MACRO fullmove(pos) AS pos.movenumber + fullmove_offset(pos.gamenumber);

-- A full FEN: placement, side to move, castling (standard rook squares), the square behind a
-- pawn that just made a double step (as python-chess's board.fen(en_passant='fen')), clocks.
CREATE MACRO fen(pos) AS board_fen(pos) || ' ' || CASE WHEN pos.wtm THEN 'w' ELSE 'b' END || ' ' ||
    coalesce(nullif(
        CASE WHEN has_square(pos.castling_rights, 7) THEN 'K' ELSE '' END ||
        CASE WHEN has_square(pos.castling_rights, 0) THEN 'Q' ELSE '' END ||
        CASE WHEN has_square(pos.castling_rights, 63) THEN 'k' ELSE '' END ||
        CASE WHEN has_square(pos.castling_rights, 56) THEN 'q' ELSE '' END, ''), '-') || ' ' ||
    coalesce(chr(97 + pos.ep_square % 8) || chr(49 + pos.ep_square // 8), '-') || ' ' ||
    pos.halfmove_clock || ' ' || fullmove(pos);

-- Every position with its FEN, for ad-hoc SQL (the fullmove number is the game's, as in its PGN).
CREATE VIEW positions_fen AS SELECT p.gamenumber, p.positionid, p.ply, p.san, fen(p) AS fen FROM positions p;
