"""The FEN's piece placement field drawn from the twelve bitboards with numpy, a batch of rows at
a time: in SQL (the schema's ``fen`` macro, 64 ``substr`` and seven ``replace`` per row) it costs
about 40 us a row, here about 2 (issue 16). The placement is the macro's, byte for byte
(tests/test_output_stream.py compares whole records with the macro's on real indexes).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

#: The twelve bitboards in the order of the letters of :data:`_LETTERS` (1 = 'K' ... 12 = 'p').
BOARDS = ("wk", "wq", "wr", "wb", "wn", "wp", "bk", "bq", "br", "bb", "bn", "bp")
_LETTERS = np.frombuffer(b"\0KQRBNPkqrbnp", dtype=np.uint8)  # 0: an empty square writes a digit
_SLASH, _ZERO = ord("/"), ord("0")


def _rank_digits() -> np.ndarray:
    """For each of the 256 sets of empty squares of a rank (bit f = file f empty): the digit each
    file writes, the length of the run of empty squares it ends (0 where it ends none)."""
    digits = np.zeros((256, 8), dtype=np.uint8)
    for mask in range(256):
        run = 0
        for file in range(8):
            empty = mask >> file & 1
            run = run + 1 if empty else 0
            if empty and (file == 7 or not mask >> (file + 1) & 1):
                digits[mask, file] = _ZERO + run
    return digits


#: A rank's eight digits as one 8-byte word: one lookup per rank instead of one per square.
_DIGITS = _rank_digits().view("<u8").reshape(256)


def _letter_pairs() -> np.ndarray:
    """For each two-byte word of letter numbers (two squares, 0-12 each): their two letters.
    Looked up a pair at a time, as numpy's ``take`` costs per element (issue 16: 3x faster)."""
    word = np.arange(65536)
    low, high = word & 0xFF, word >> 8
    valid = (low < len(_LETTERS)) & (high < len(_LETTERS))
    pairs = np.zeros(65536, dtype="<u2")
    pairs[valid] = _LETTERS[low[valid]].astype("<u2") | _LETTERS[high[valid]].astype("<u2") << 8
    return pairs


_PAIRS = _letter_pairs()


def _spread(first: int) -> np.ndarray:
    """For each two bytes of a rank in bit planes ``first`` (low byte) and ``first + 1`` (high
    byte): the rank's eight squares' letter-number bits from those planes, a byte a square
    (file a first), as one 8-byte word. Two lookups per rank instead of unpacking four planes."""
    word = np.arange(65536, dtype=np.uint64)
    out = np.zeros(65536, dtype="<u8")
    for file in range(8):
        for plane, shift in ((first, 0), (first + 1, 8)):
            out |= ((word >> np.uint64(shift + file)) & np.uint64(1)) << np.uint64(8 * file + plane)
    return out


#: :func:`_spread` of planes 0-1 and 2-3.
_SPREAD = (_spread(0), _spread(2))


def placements(boards: list[pa.Array]) -> pa.Array:
    """The FEN piece placement field (ranks 8 to 1, runs of empty squares as digits) of each row
    of the twelve bitboard columns :data:`BOARDS`, as a string array.

    Column-wise. A bitboard's bytes swapped put rank 8 first, and a byte's bits unpacked
    little-endian are files a to h: the squares in FEN order. Each square's letter comes from
    four bit planes (plane k: the boards whose letter number has bit k; a rank's bytes of two
    planes looked up in :data:`_SPREAD`), the digits of each rank from its set of empty squares
    (:func:`_rank_digits`); a square writes a character
    where it has a letter or a digit, so the nonzero bytes of the rows' characters, flattened,
    are the concatenation of all the placements.
    """
    rows = len(boards[0])
    planes = [np.zeros(rows, dtype="<i8") for _ in range(4)]
    occupied = np.zeros(rows, dtype="<i8")
    for letter, board in enumerate(boards, start=1):
        raw = np.ascontiguousarray(board.to_numpy(zero_copy_only=False).astype("<i8", copy=False)).byteswap()
        occupied |= raw
        for bit, plane in enumerate(planes):
            if letter >> bit & 1:
                plane |= raw
    low, high = ((a.view(np.uint8).astype(np.uint16) | b.view(np.uint8).astype(np.uint16) << 8)
                 for a, b in (planes[:2], planes[2:]))
    codes = (np.take(_SPREAD[0], low) | np.take(_SPREAD[1], high)).view(np.uint8).reshape(rows, 64)
    chars = np.full((rows, 8, 9), _SLASH, dtype=np.uint8)
    letters = np.take(_PAIRS, codes.view("<u2")).view(np.uint8)
    digits = np.take(_DIGITS, (~occupied).view(np.uint8).reshape(rows, 8)).view(np.uint8)
    chars[:, :, :8] = (letters | digits).reshape(rows, 8, 8)
    chars[:, 7, 8] = 0  # no slash after the first rank
    chars = chars.reshape(rows, 72)
    keep = chars != 0
    data = np.ascontiguousarray(chars[keep])
    offsets = np.zeros(rows + 1, dtype=np.int32)
    np.cumsum(keep.sum(axis=1, dtype=np.int32), out=offsets[1:])
    return pa.StringArray.from_buffers(rows, pa.py_buffer(offsets), pa.py_buffer(data))
