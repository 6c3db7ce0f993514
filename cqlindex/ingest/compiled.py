"""The compiled build path: main-line games parsed by a compiled reader, facts with numpy.

``rust-pgn-reader-python-binding`` (shakmaty behind pyo3) parses a batch of games into flat
numpy arrays: the board after every move, en passant file, side to move, the
moves and the legal moves of every position. Everything else a ``positions`` row holds is
computed here for the whole batch at once (:mod:`cqlindex.board.vectors`), so no Python runs
per position. The columns equal the python-chess path's, column for column; the differential
test builds both ways and compares them. What python-chess would have set up at a game's start
(FEN, Chess960, castling rooks) comes from the router (:mod:`cqlindex.ingest.route`), once per
game.

A game the reader reports invalid comes back to the caller, which replays it with
python-chess: the compiled path never writes an error row.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import rust_pgn_reader_python_binding as reader

from cqlindex.board import vectors
from cqlindex.ingest.route import Routed

_FILES = "abcdefgh"
_LETTERS = " PNBRQK"
_PAWN, _KING = 1, 6
_BITBOARD_COLUMNS = ("wk", "wq", "wr", "wb", "wn", "wp", "bk", "bq", "br", "bb", "bn", "bp")


def _parse(texts: list[str]):
    """The reader's arrays for ``texts``, its chunks joined into one set of flat arrays."""
    parsed = reader.parse_games_from_strings(texts, num_threads=1, store_comments=True, store_legal_moves=True)
    chunks = parsed.chunks
    if len(chunks) == 1:
        c = chunks[0]
        return (c.valid, c.position_offsets.astype(np.int64), c.move_offsets.astype(np.int64),
                c.boards.reshape(-1, 64), c.en_passant, c.turn, c.from_squares, c.to_squares,
                c.promotions, c.legal_move_offsets.astype(np.int64), c.legal_move_from_squares,
                c.legal_move_to_squares, c.comments)

    def offsets(name: str) -> np.ndarray:
        parts, base = [np.zeros(1, np.int64)], 0
        for c in chunks:
            o = getattr(c, name).astype(np.int64)
            parts.append(o[1:] + base)
            base += int(o[-1])
        return np.concatenate(parts)

    def cat(name: str) -> np.ndarray:
        return np.concatenate([getattr(c, name) for c in chunks])

    return (cat("valid"), offsets("position_offsets"), offsets("move_offsets"),
            cat("boards").reshape(-1, 64), cat("en_passant"), cat("turn"), cat("from_squares"),
            cat("to_squares"), cat("promotions"), offsets("legal_move_offsets"), cat("legal_move_from_squares"),
            cat("legal_move_to_squares"), [x for c in chunks for x in c.comments])


def _bit_index(bb: np.ndarray) -> np.ndarray:
    """Square of the single set bit of each value (values must be powers of two)."""
    return np.log2(bb.astype(np.float64)).astype(np.int64)


def read(games: list[tuple[int, Routed]]):
    """(positions table, positions per game number read, indices into ``games`` the reader rejected).

    ``games`` are (gamenumber, routed game) pairs in game order.
    """
    (valid, pos_off, move_off, boards, en_passant, turn, from_sq, to_sq, promotions, legal_off,
     legal_from, legal_to, reader_comments) = _parse([g.reader_text for _, g in games])
    counts = np.diff(pos_off)
    moves_per_game = np.diff(move_off)
    if reader_comments.count(None) == len(reader_comments):  # engine books: Arrow is slow on all-None lists
        has_comment = np.zeros(len(reader_comments), dtype=bool)
    else:
        has_comment = pa.array(reader_comments, type=pa.string()).is_valid().to_numpy(zero_copy_only=False)
    running = np.concatenate([[0], np.cumsum(has_comment, dtype=np.int64)])
    comment_counts = running[move_off[1:]] - running[move_off[:-1]]
    expected_comments = np.array([len(g.comments) for _, g in games], dtype=np.int64)
    keep = valid & (moves_per_game > 0) & (comment_counts == expected_comments)
    rejected = np.flatnonzero(~keep).tolist()
    if not keep.all():  # keep only the accepted games' positions and moves
        pos_keep = np.repeat(keep, counts)
        move_keep = np.repeat(keep, moves_per_game)
        legal_keep = np.repeat(pos_keep, np.diff(legal_off))
        legal_counts = np.diff(legal_off)[pos_keep]
        boards, en_passant, turn = boards[pos_keep], en_passant[pos_keep], turn[pos_keep]
        from_sq, to_sq, promotions = from_sq[move_keep], to_sq[move_keep], promotions[move_keep]
        legal_from, legal_to = legal_from[legal_keep], legal_to[legal_keep]
        legal_off = np.concatenate([[0], np.cumsum(legal_counts)])
        has_comment = has_comment[move_keep]
        counts, moves_per_game = counts[keep], moves_per_game[keep]
    kept = [games[i] for i in np.flatnonzero(keep)]
    if not kept:
        return None, {}, rejected
    table = _positions(kept, counts, boards, en_passant, turn, from_sq, to_sq, promotions, legal_off,
                       legal_from, legal_to, has_comment)
    return table, dict(zip((number for number, _ in kept), counts.tolist())), rejected


def _positions(games, counts, boards, en_passant, turn, from_sq, to_sq, promotions, legal_off,
               legal_from, legal_to, has_comment) -> pa.Table:
    n = int(counts.sum())
    n_games = len(games)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    game_of = np.repeat(np.arange(n_games), counts)
    ply = np.arange(n) - starts[game_of]
    is_root = ply == 0
    child = ~is_root                       # positions reached by a move
    parent_of = np.flatnonzero(child) - 1  # global index of each move's parent position

    bb = vectors.piece_bitboards(boards)
    white_attacks, black_attacks = vectors.attack_maps(bb)
    wtm = turn.astype(bool)
    own_king = np.where(wtm, bb[0], bb[6])
    check = (own_king & np.where(wtm, black_attacks, white_attacks)) != 0
    legal = np.diff(legal_off)

    # The move into each non-root position.
    fr = from_sq.astype(np.int64)
    to = to_sq.astype(np.int64)
    piece_code = boards[parent_of, fr].astype(np.int64)
    piece = vectors.CODE_PIECE_TYPE[piece_code].astype(np.int64)
    target_code = boards[parent_of, to].astype(np.int64)
    mover_white = piece_code <= 6
    rooks_before = np.where(mover_white, bb[2][parent_of], bb[8][parent_of])
    rooks_after = np.where(mover_white, bb[2][child], bb[8][child])
    is_castle = (piece == _KING) & ((rooks_before != rooks_after) | (np.abs((fr & 7) - (to & 7)) >= 2) | (fr == to))
    castle = np.where(is_castle, np.where((to & 7) == 6, 1, 2), 0)
    is_ep = (piece == _PAWN) & ((fr & 7) != (to & 7)) & (target_code == 0)
    captured = np.where(is_castle, 0, np.where(is_ep, _PAWN, vectors.CODE_PIECE_TYPE[target_code]))
    # The opponent's pieces stand still on a move: the one square they lose is the capture's.
    white_men, black_men = np.bitwise_or.reduce(bb[:6], axis=0), np.bitwise_or.reduce(bb[6:], axis=0)
    gone = np.where(mover_white, black_men[parent_of] & ~black_men[child], white_men[parent_of] & ~white_men[child])
    capture_square = np.where(captured > 0, _bit_index(np.where(gone == 0, np.uint64(1), gone)), -1)
    left, arrived = rooks_before & ~rooks_after, rooks_after & ~rooks_before
    moved = left != 0
    stay = np.where((to & 7) == 6, 5, 3) + (fr & ~7)  # the rook already on its castled square
    rook_from = np.where(is_castle, np.where(moved, _bit_index(np.where(moved, left, np.uint64(1))), stay), -1)
    rook_to = np.where(is_castle, np.where(moved, _bit_index(np.where(moved, arrived, np.uint64(1))), stay), -1)

    # Castling rights (python-chess's mask of rooks): the start's, less every right whose rook
    # square a move leaves or enters, and both of a side's once its king moves. (The reader's
    # own flags only know the standard corners.)
    rooks = np.array([g.castling_rooks for _, g in games], dtype=np.int64)  # (games, 4): K Q k q
    root_rights = np.array([g.root_castling for _, g in games], dtype=np.uint64)
    move_game = game_of[child]
    rights = np.zeros(n, dtype=np.uint64)
    for r in range(4):
        square = rooks[:, r]
        bit = np.where(square >= 0, np.left_shift(np.uint64(1), np.maximum(square, 0).astype(np.uint64)),
                       np.uint64(0)) & root_rights
        sq = square[move_game]
        lost = np.zeros(n, dtype=np.int64)
        lost[child] = (fr == sq) | (to == sq) | ((piece == _KING) & (mover_white == (r < 2)))
        lost = np.cumsum(lost)
        still = lost == lost[starts][game_of]
        rights |= np.where(still, bit[game_of], np.uint64(0))
    ep = np.where(en_passant >= 0, en_passant.astype(np.int64) + np.where(wtm, 40, 16), -1)
    ep[starts] = [g.root_ep for _, g in games]

    # Halfmove clock: from the start's, +1 a move, 0 after a pawn move or a capture.
    zeroing = np.zeros(n, dtype=bool)
    zeroing[child] = (piece == _PAWN) | (captured > 0)
    base = np.zeros(n, dtype=np.int64)
    base[starts] = [g.root_halfmove for _, g in games]
    mark = np.where(zeroing | is_root, np.arange(n), 0)
    last = np.maximum.accumulate(mark)
    halfmove = np.arange(n) - last + base[last]

    zobrist = vectors.zobrist(boards, bb, _polyglot_castling(rights, rooks[game_of]), ep, wtm, starts)
    san = _san(boards, parent_of, child, fr, to, piece, piece_code, captured, castle, promotions, legal_off,
               legal_from, legal_to, check, legal, n)

    first_black = np.repeat(~wtm[starts], counts)
    move_cols = {}
    for name, values, present in (
            ("move_from", fr, None), ("move_to", to, None), ("move_piece", piece, None),
            ("captured", captured, captured > 0), ("promotion", promotions, promotions > 0),
            ("castle", castle, castle > 0), ("capture_square", capture_square, capture_square >= 0),
            ("rook_from", rook_from, rook_from >= 0), ("rook_to", rook_to, rook_to >= 0)):
        full = np.zeros(n, dtype=np.int64)
        full[child] = values
        null = is_root.copy()
        if present is not None:
            null[child] = ~present
        move_cols[name] = pa.array(full, mask=null)
    en_passant_col = np.zeros(n, dtype=bool)
    en_passant_col[child] = is_ep

    texts = [c for _, g in games for c in g.comments]
    roots = [g.root_comment for _, g in games]
    if texts or any(c is not None for c in roots):
        comment = np.full(n, None, dtype=object)
        comment[np.flatnonzero(child)[has_comment]] = texts
        comment[starts] = roots
        comment_column = pa.array(comment, type=pa.string())
    else:  # engine books and most databases: no comment at all, no object array of n Nones
        comment_column = pa.nulls(n, pa.string())

    gamenumbers = np.array([number for number, _ in games], dtype=np.int64)
    last_id = (counts - 1)[game_of]
    arrays = {
        "gamenumber": gamenumbers[game_of], "positionid": ply,
        "parent": pa.array(ply - 1, mask=is_root),
        "child_index": np.zeros(n, np.int64), "children": (ply < last_id).astype(np.int64),
        "last_descendant": last_id, "mainline": np.ones(n, bool), "depth": np.zeros(n, np.int64), "ply": ply,
        "movenumber": (ply + first_black) // 2 + 1, "wtm": wtm,
    }
    for i, name in enumerate(_BITBOARD_COLUMNS):
        arrays[name] = bb[i].view(np.int64)
    arrays["castling_rights"] = rights.view(np.int64)
    arrays["ep_square"] = pa.array(ep, mask=ep < 0)
    arrays["halfmove_clock"] = halfmove
    arrays.update(move_cols)
    arrays.update({
        "en_passant": en_passant_col, "null_move": np.zeros(n, bool), "san": san, "is_check": check,
        "is_mate": check & (legal == 0), "is_stalemate": ~check & (legal == 0), "legal_moves": legal,
        "comment": comment_column, "comment_before": pa.nulls(n, pa.string()),
        "nags": pa.nulls(n, pa.list_(pa.int32())), "zobrist": zobrist.view(np.int64),
        "white_attacks": white_attacks.view(np.int64), "black_attacks": black_attacks.view(np.int64),
    })
    return pa.table(arrays)


def _polyglot_castling(rights: np.ndarray, rooks: np.ndarray) -> np.ndarray:
    """The (n, 4) K Q k q flags polyglot hashes: the rights the mask still holds."""
    bits = np.where(rooks >= 0, np.left_shift(np.uint64(1), np.maximum(rooks, 0).astype(np.uint64)), np.uint64(0))
    return (rights[:, None] & bits) != 0


def _san(boards, parent_of, child, fr, to, piece, piece_code, captured, castle, promotions, legal_off, legal_from,
         legal_to, check, legal, n) -> pa.Array:
    """SAN of every move, as a dictionary column: moves are encoded as integers, and only the
    distinct codes of the batch (a few thousand) are spelled out in Python."""
    m = len(fr)
    # Rivals: other legal moves of the same piece (type and colour) to the same square. The
    # legal moves (~30 a position) are first cut to those that reach the square of the move
    # played from their position: every later step works on that few percent.
    positions = len(legal_off) - 1
    target_of = np.full(positions, -1, dtype=np.int16)
    target_of[parent_of] = to
    same_target = np.flatnonzero(legal_to == np.repeat(target_of, np.diff(legal_off)))
    move_at = np.full(positions, -1, dtype=np.int64)
    move_at[parent_of] = np.arange(m)
    at = np.searchsorted(legal_off, same_target, side="right") - 1  # the position each is legal in
    k = move_at[at]
    lf = legal_from[same_target].astype(np.int64)
    candidate = (lf != fr[k]) & (piece[k] != _PAWN) & (piece[k] != _KING) & (boards[at, lf] == piece_code[k])
    rival_move = k[candidate]
    rival_from = lf[candidate]
    any_rival = np.bincount(rival_move, minlength=m) > 0
    same_file = np.bincount(rival_move[(rival_from & 7) == (fr[rival_move] & 7)], minlength=m) > 0
    same_rank = np.bincount(rival_move[(rival_from >> 3) == (fr[rival_move] >> 3)], minlength=m) > 0
    file_hint = (any_rival & (~same_file | same_rank)) | ((piece == _PAWN) & (captured > 0))
    rank_hint = any_rival & same_file
    child_index = np.flatnonzero(child)
    suffix = np.where(check[child_index], np.where(legal[child_index] == 0, 2, 1), 0)
    promo = np.where(promotions < 0, 0, promotions).astype(np.int64)
    code = (castle + 3 * (piece + 7 * (file_hint + 2 * (rank_hint + 2 * ((captured > 0)
            + 2 * (fr + 64 * (to + 64 * (promo + 7 * suffix))))))))
    full = np.zeros(n, dtype=np.int64)
    full[child_index] = code
    # Arrow's hash encoding, not np.unique's sort: 0.4 against 2 ms a batch.
    encoded = pa.array(full, mask=~child).dictionary_encode()
    words = [_SPELLED.get(c) or _spelled(c) for c in encoded.dictionary.to_numpy().tolist()]
    return pa.DictionaryArray.from_arrays(encoded.indices, pa.array(words, pa.string()))


#: Spelled codes, kept across the batches a worker reads (a few tens of thousands of distinct moves).
_SPELLED: dict[int, str] = {}


def _spelled(code: int) -> str:
    word = _SPELLED[code] = _spell(code)
    return word


def _spell(code: int) -> str:
    code, castle = divmod(code, 3)
    code, piece = divmod(code, 7)
    code, file_hint = divmod(code, 2)
    code, rank_hint = divmod(code, 2)
    code, capture = divmod(code, 2)
    code, source = divmod(code, 64)
    code, target = divmod(code, 64)
    suffix, promo = divmod(code, 7)
    end = ("", "+", "#")[suffix]
    if castle:
        return ("O-O" if castle == 1 else "O-O-O") + end
    text = "" if piece == _PAWN else _LETTERS[piece]
    if file_hint:
        text += _FILES[source & 7]
    if rank_hint:
        text += str((source >> 3) + 1)
    text += ("x" if capture else "") + _FILES[target & 7] + str((target >> 3) + 1)
    if promo:
        text += "=" + _LETTERS[promo]
    return text + end
