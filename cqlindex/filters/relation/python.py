"""The evaluation of ``relation``: a source against every other position of its game, vectorised.

Per game, once (kept in the evaluator's per-game memo): every position's board as 65 piece
codes, its side to move and its 12 piece counts, and the matrix of pairs that pass the cheap
necessary conditions: not the source node itself, the tomove parameters, and for full-board
square parameters the piece-count bound (:func:`echoes.mismatch_floor`) or, with no mismatch
allowed, the board hash of an exact image (:func:`echoes.image_pairs`). Per source, the
remaining targets then meet the target filters (evaluated once per target and game when they
read no variable) and each square parameter, over all of them and all the transforms of its
keyword at once (:func:`echoes.holds`, :func:`echoes.holds_full_board`): numpy, no loop over
squares or pairs in Python. CQL 5's game-tree parameters are :mod:`lineage`'s; ``echorotate45``
maps no square, so it holds only where nothing is compared and stops the run elsewhere.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from cqlindex.cql import ast
from cqlindex.errors import CqlError
from cqlindex.evaluate.context import Evaluator, evaluates
from cqlindex.evaluate.values import MATCH
from cqlindex.filters.relation import checked_early, echoes
from cqlindex.filters.relation.lineage import tree_holds
from cqlindex.store.trees import Position

_BITS = np.arange(64, dtype=np.uint64)
_CODES = np.arange(1, 13, dtype=np.int8)  # K Q R B N P k q r b n p; 0 is empty


class GameBoards:
    """The boards of one game tree as arrays indexed by positionid."""

    __slots__ = ("boards", "counts", "occupied", "wtm")

    def __init__(self, positions: list[Position]) -> None:
        bitboards = np.array([p.bitboards for p in positions], dtype="<u8").reshape(len(positions), 12)
        bits = np.unpackbits(bitboards.view(np.uint8).reshape(len(positions), 12, 8), axis=2,
                             bitorder="little").view(np.int8)  # (N, 12, 64): bit q of each bitboard
        boards = np.zeros((len(positions), 65), dtype=np.int8)
        boards[:, :64] = np.einsum("npq,p->nq", bits, _CODES)
        self.boards = boards
        self.counts = bits.sum(axis=2, dtype=np.int16)  # (N, 12)
        self.occupied = self.counts.sum(axis=1, dtype=np.int16)
        self.wtm = np.array([p.wtm for p in positions], dtype=bool)


def _squares(value: object) -> np.ndarray:
    """A set value as 65 bools (the off-board square never in it); a filter that failed is empty."""
    mask = np.zeros(65, dtype=bool)
    if isinstance(value, int) and not isinstance(value, bool) and value:
        mask[:64] = ((np.uint64(int(value)) >> _BITS) & np.uint64(1)).astype(bool)
    return mask


@lru_cache(maxsize=256)
def _reads_variables(nodes: tuple[ast.Node, ...]) -> bool:
    return any(isinstance(inner, (ast.Variable, ast.Assign)) for node in nodes for inner in ast.walk(node))


@evaluates(ast.Relation)
def relation(ev: Evaluator, node: ast.Relation, pos: Position) -> object:
    memo = ev.memo
    game = memo.get(GameBoards)
    if game is None:
        game = memo[GameBoards] = GameBoards(ev.tree.positions)
    here = pos.id
    targets = np.flatnonzero(_pairs(ev, game, node, here))
    if targets.size and node.targets:
        targets = targets[_target_filters(ev, node, targets)]
    source = game.boards[here]
    checked = checked_early(node)
    for index, param in enumerate(node.params):
        if not targets.size:
            break
        if param.tomove is not None:
            if index >= checked:
                same = game.wtm[targets] == game.wtm[here]
                targets = targets[same if param.tomove == "match" else ~same]
            continue
        if param.lca is not None:
            held = tree_holds(ev, param, here, targets)
        elif param.echo == "echorotate45":
            held = _rotate45_holds(ev, param, pos, targets)
        elif param.sourcesquares is None and param.targetsquares is None:
            held = echoes.holds_full_board(param.echo, source, game.boards[targets], game.occupied[targets],
                                           param.match, param.mismatch)
        else:
            sourcesquares = _ALL_SQUARES if param.sourcesquares is None else _squares(ev.eval(param.sourcesquares,
                                                                                               pos))
            targetsquares = None if param.targetsquares is None else _target_squares(ev, param, targets)
            held = echoes.holds(param.echo, source, sourcesquares, game.boards[targets], targetsquares,
                                param.match, param.mismatch)
        targets = targets[held]
    return MATCH if targets.size else None


#: Sources whose possible targets are worked out together: the next ones along the tree (the
#: default engine asks only about its candidates, often a few consecutive positions of a game).
_BLOCK = 64


def _pairs(ev: Evaluator, game: GameBoards, node: ast.Relation, here: int) -> np.ndarray:
    """The possible targets of source ``here`` (bools by positionid), from what is cheap to test.

    Rows of the game's pair matrix are made a block of sources at a time, when first asked for,
    and kept for the rest of the game.
    """
    n = len(game.wtm)
    key = (_pairs, id(node))
    known = ev.memo.get(key)
    if known is None:
        known = ev.memo[key] = (np.zeros(n, dtype=bool), {})
    done, rows = known
    if not done[here]:
        block = np.arange(here, min(n, here + _BLOCK))
        block = block[~done[block]]
        for source, row in zip(block, _possible(game, node, block)):
            rows[source] = row
        done[block] = True
    return rows[here]


def _rotate45_holds(ev: Evaluator, param: ast.RelationParam, pos: Position, targets: np.ndarray) -> np.ndarray:
    """``echorotate45 (square parameter)``: its transforms turn directions, not squares.

    CQL 5.2 stops the run as soon as it would map a square of the comparison set (sourcesquares
    at the source & targetsquares at the target); where that set is empty for every target
    nothing is mapped, and each target has 0 matches and 0 mismatches.
    """
    source = _ALL_SQUARES if param.sourcesquares is None else _squares(ev.eval(param.sourcesquares, pos))
    compared = source if param.targetsquares is None else source & _target_squares(ev, param, targets)
    if compared.any():
        raise CqlError("'echorotate45' would map a square by 45 degrees, which has no image: CQL 5 stops "
                       "the run here", ev.query.text, param.span, ev.query.source)
    empty = param.match[0] == 0 and param.mismatch[0] == 0
    return np.full(targets.size, empty, dtype=bool)


def _possible(game: GameBoards, node: ast.Relation, sources: np.ndarray) -> np.ndarray:
    """(len(sources), N) bools: the target may relate to the source as far as cheap tests tell."""
    n = len(game.wtm)
    keep = np.ones((sources.size, n), dtype=bool)
    keep[np.arange(sources.size), sources] = False
    for param in node.params[:checked_early(node)]:
        if param.tomove is not None:
            same = game.wtm[sources][:, None] == game.wtm[None, :]
            keep &= same if param.tomove == "match" else ~same
            continue
        if echoes.is_exact_image(param):
            keep &= _by_chunks(sources, lambda chunk: echoes.image_pairs(param.echo, game.boards, game.occupied,
                                                                         chunk))
            continue
        limit = echoes.full_board_limit(param)
        if limit is not None:
            keep &= _by_chunks(sources, lambda chunk: echoes.mismatch_floor(game.counts[chunk][:, None, :],
                                                                            game.counts) <= limit)
    return keep


def _by_chunks(sources: np.ndarray, rows) -> np.ndarray:
    """``rows(sources)`` computed a chunk of sources at a time (bounds the (sources, transforms, 65) arrays)."""
    if sources.size <= _CHUNK:
        return rows(sources)
    return np.concatenate([rows(sources[start:start + _CHUNK]) for start in range(0, sources.size, _CHUNK)])


_CHUNK = 512


_ALL_SQUARES = np.ones(65, dtype=bool)
_ALL_SQUARES[echoes.OFF] = False
_ALL_SQUARES.setflags(write=False)


def _target_filters(ev: Evaluator, node: ast.Relation, targets: np.ndarray) -> np.ndarray:
    """Which of ``targets`` satisfy every target filter, evaluated at the target.

    Without variables a target filter's verdict at a position does not depend on the source, so
    it is kept for the rest of the game (-1: not evaluated yet).
    """
    positions = ev.tree.positions
    if _reads_variables(node.targets):
        return np.array([all(ev.test(f, positions[t]) for f in node.targets) for t in targets], dtype=bool)
    key = (GameBoards, id(node))
    known = ev.memo.get(key)
    if known is None:
        known = ev.memo[key] = np.full(len(positions), -1, dtype=np.int8)
    for t in targets[known[targets] < 0]:
        known[t] = all(ev.test(f, positions[t]) for f in node.targets)
    return known[targets] == 1


def _target_squares(ev: Evaluator, param: ast.RelationParam, targets: np.ndarray) -> np.ndarray:
    """(n, 65): the targetsquares set evaluated at each target (kept per game without variables)."""
    positions = ev.tree.positions
    if _reads_variables((param.targetsquares,)):
        return np.array([_squares(ev.eval(param.targetsquares, positions[t])) for t in targets])
    key = (_target_squares, id(param))
    known = ev.memo.get(key)
    if known is None:
        known = ev.memo[key] = (np.zeros(len(positions), dtype=bool), np.zeros((len(positions), 65), dtype=bool))
    done, masks = known
    for t in targets[~done[targets]]:
        masks[t] = _squares(ev.eval(param.targetsquares, positions[t]))
        done[t] = True
    return masks[targets]
