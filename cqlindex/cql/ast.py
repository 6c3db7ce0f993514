"""The CQL abstract syntax tree: frozen dataclasses (:mod:`cqlindex.cql.frozen`), every node with its source span.

Nodes are few and generic (a ``Keyword`` for every argument-less filter, a ``Call`` for the
parenthesised helpers) so that the evaluator and the planner can each be a table keyed by
node type and name, the way sqlglot dispatches on expression classes. Transforms stay in the
tree as ``Transform`` nodes; expanding them into their members is the planner's and
evaluator's business (cqlindex.board.transforms is the one definition of the square maps).
"""

from __future__ import annotations

from collections.abc import Iterator
import dataclasses
from dataclasses import field

from cqlindex.cql.frozen import Frozen, frozen
from cqlindex.cql.tokens import Span


@frozen
class Node(Frozen):
    span: Span = field(compare=False, repr=False)


def mentions(node: object, name: str) -> bool:
    """Whether the variable ``name`` is read anywhere inside ``node``."""
    return any(isinstance(n, Variable) and n.name == name for n in walk(node))


def walk(node: object) -> Iterator[Node]:
    """``node`` and every node inside it, parents first (spans and plain values skipped)."""
    if isinstance(node, Node):
        yield node
        for name in node.__dataclass_fields__:
            if name != "span":
                yield from walk(getattr(node, name))
    elif isinstance(node, (tuple, list)):
        for item in node:
            yield from walk(item)


def respan(node: Node, span: Span) -> Node:
    """``node`` and every node inside it, each with ``span`` (a filter made from another's text)."""
    changes: dict[str, object] = {"span": span}
    for name in node.__dataclass_fields__:
        value = getattr(node, name)
        if isinstance(value, Node) and name != "span":
            changes[name] = respan(value, span)
        elif isinstance(value, tuple):
            changes[name] = tuple(_respan_item(item, span) for item in value)
    return dataclasses.replace(node, **changes)


def _respan_item(item: object, span: Span) -> object:
    if isinstance(item, Node):
        return respan(item, span)
    if isinstance(item, tuple):
        return tuple(_respan_item(x, span) for x in item)
    return item


@frozen
class Pieces(Node):
    """A piece designator: the squares in ``squares`` holding one of ``pieces`` (``_`` = empty)."""

    pieces: frozenset[str]
    squares: int
    text: str = ""


@frozen
class Number(Node):
    value: int


@frozen
class String(Node):
    value: str


@frozen
class Keyword(Node):
    """An argument-less filter: check, mate, wtm, initial, ply, parent, passedpawns, ..."""

    name: str


@frozen
class Compound(Node):
    """``{ F1 F2 ... }`` or the body: all must match, left to right; value of the last."""

    items: tuple[Node, ...]


@frozen
class Not(Node):
    arg: Node


@frozen
class And(Node):
    items: tuple[Node, ...]


@frozen
class Or(Node):
    items: tuple[Node, ...]


@frozen
class Compare(Node):
    """A chain ``a < b <= c``: every adjacent pair must hold."""

    ops: tuple[str, ...]
    operands: tuple[Node, ...]


@frozen
class Binary(Node):
    """``+ - * / %`` on numbers, ``| &`` on sets, ``attacks attackedby in``."""

    op: str
    left: Node
    right: Node


@frozen
class Unary(Node):
    """``-`` ``~`` ``#`` and the one-argument helpers: abs sqrt rank file power type colortype light dark."""

    op: str
    arg: Node


@frozen
class Direction(Node):
    """``up``, ``diagonal``, ... with an optional range (low, high) applied to a set."""

    name: str
    low: int
    high: int
    arg: Node
    #: 'up n S' with a numeric variable n: n steps (a negative n steps the other way); low/high unused
    distance: Node | None = None


@frozen
class Transform(Node):
    """flipcolor, reversecolor, flip, fliphorizontal, flipvertical, rotate90, rotate45, shift... (``count``).

    ``low``/``high``: a range written after the name (``rotate90 4 find Ra1``, seed 000): the
    filter is then a count of the members that match, and matches when the count is in range; a
    bound may be a numeric variable (``Variable``). ``then``: transforms applied after each
    member, in order: a transform filter's name (its every member: ``flipcolor rotate90 4 F`` is
    one orbit of the eight compositions, counted together) or ``@`` and one basic transform's
    name (an enclosing counted transform's member, composed after this one's).
    """

    name: str
    count: bool
    arg: Node
    low: int | Node | None = None
    high: int | Node | None = None
    then: tuple[str, ...] = ()


@frozen
class Call(Node):
    """Parenthesised helpers: between(a b), makesquare(f r), max(...), min(...), ancestor(x y), ..."""

    name: str
    args: tuple[Node, ...]


@frozen
class Capture(Node):
    """``\\n``: what group n of the last regular-expression match ``~~`` caught (``\\0``: the whole
    match); ``\\-n`` (``index``): where in the string that group starts."""

    group: int
    index: bool


@frozen
class Index(Node):
    """``x[i]``: the character of string x at i; ``x[i:j]`` (``is_slice``): its characters i to j-1,
    either bound left out (None)."""

    target: Node
    start: Node | None
    end: Node | None
    is_slice: bool


@frozen
class Colon(Node):
    """``pos : F``: evaluate F at the position ``pos`` yields."""

    position: Node
    body: Node


@frozen
class ChildN(Node):
    """``child(n)`` (0 = main continuation) and ``position n``."""

    name: str
    index: Node


@frozen
class If(Node):
    cond: Node
    then: Node
    other: Node | None


@frozen
class Variable(Node):
    name: str


@frozen
class Assign(Node):
    """``x = F``, ``x += F`` ..., ``x =? F``; ``piece x = S`` (``piece``): x names the piece on S."""

    name: str
    op: str
    value: Node
    piece: bool = False


@frozen
class Iterate(Node):
    """``square [all] x in S body`` and ``piece [all] x in S body``."""

    kind: str
    all: bool
    var: str
    domain: Node
    body: Node


@frozen
class Move(Node):
    """``move [legal|pseudolegal|previous] from S to S capture S promote S ...``.

    ``params`` keeps the parameters in the order written (the first decides the value).
    """

    mode: str  # played | previous | legal | pseudolegal
    params: tuple[tuple[str, Node | None], ...]


@frozen
class Dash(Node):
    """CQL 6.2's ``F--G`` (a move from F to G) and ``F[x]G`` (a capture on G); a side may be absent.

    ``promote`` holds the piece letters of ``--=Q`` forms, ``promote_by`` the string filter of
    ``--=T`` forms (the type letter is its value where the move is made: ``T = typename to``);
    ``target`` the filters of ``--(F ...)``, tested after the move.
    """

    left: Node | None
    right: Node | None
    capture: bool
    promote: frozenset[str] | None = None
    target: tuple[Node, ...] | None = None
    mode: str = "played"  # played | legal | pseudolegal ('legal F--G': generated moves, CQL 6.2)
    promote_by: Node | None = None

    @property
    def promotes(self) -> bool:
        """Whether only a promotion is such a move (``--=Q`` or ``--=T``)."""
        return self.promote is not None or self.promote_by is not None


@frozen
class HHdb(Node):
    """``hhdb ITEM``: an HHdb annotation of the game (an award, a flag ...); see filters/game/hhdb.py."""

    item: str
    modifiers: frozenset[str]


@frozen
class CurrentTransform(Node):
    """``currenttransform``: the basic transforms this copy of the filter was rewritten by, outermost
    first (the rewrite of transform filters, cqlindex/query/rewrite.py, fills ``applied``)."""

    applied: tuple[str, ...] = ()


@frozen
class SimilarPosition(Node):
    """``similarposition [notransform] "file.pgn"``: see filters/position/similar.py."""

    path: str
    transform: bool


@frozen
class CountMoves(Node):
    """CQL 6.2's ``countmoves D``: how many moves the dash filter ``D`` (``--``, ``[x]``, ``legal --``...) matches."""

    move: Node


@frozen
class Pin(Node):
    params: tuple[tuple[str, Node], ...]


@frozen
class Ray(Node):
    """``ray [directions] (S1 ... Sn)`` and ``xray (...)``."""

    kind: str
    directions: tuple[str, ...]
    args: tuple[Node, ...]


@frozen
class Find(Node):
    """``find [quiet] [<--] [all | low [high]] body``; a bound may be a numeric variable."""

    all: bool
    backward: bool
    quiet: bool
    low: int | Node | None
    high: int | Node | None
    body: Node


@frozen
class ConsecutiveMoves(Node):
    """``consecutivemoves [quiet] [low [high]] (x y)``: the longest run of identical moves common to
    the two ways from the latest common ancestor of positions x and y down to each of them."""

    quiet: bool
    low: int | Node | None
    high: int | Node | None
    left: Node
    right: Node


@frozen
class Repeat(Node):
    """A line constituent with a repetition: ``F*``, ``F+``, ``F?``, ``F{m,n}`` (high None = no bound)."""

    arg: Node
    low: int
    high: int | None


@frozen
class Sequence(Node):
    """A parenthesised group of line constituents."""

    items: tuple[Node, ...]


@frozen
class Line(Node):
    backward: bool
    params: frozenset[str]
    low: int | None
    high: int | None
    items: tuple[Node, ...]


@frozen
class Path(Node):
    """CQL 6.2's ``path`` / ``⊢``: constituents matched along moves from the current position.

    ``items`` holds moves (``Dash`` nodes: each steps to a child), ordinary filters (tested
    where the path has got to), ``Sequence`` groups and ``Repeat`` repetitions of them.
    """

    params: frozenset[str]
    items: tuple[Node, ...]
    focus: Node | None = None  # 'focus S' (or 'singlecolor': 'if wtm A else a'): whose moves count
    focus_capture: bool = False  # 'focus capture S': moves taking a focused piece count too
    max: Node | None = None  # 'max F': the walk kept is the one where F is largest at its end
    low: int | None = None  # a range on the value (the count, or the max)
    high: int | None = None
    title: str | None = None
    #: The atomic variables declared before the path: a walk's changes to them are undone when the
    #: search backs out of a move, and they end with the kept walk's values (or their own).
    atomic: frozenset[str] = frozenset()


@frozen
class Sort(Node):
    doc: str | None
    min: bool
    body: Node


@frozen
class Control(Node):
    """Tier 3 control flow: ``try`` (no args), ``loop body``."""

    name: str
    args: tuple[Node, ...]


@frozen
class Lasting(Node):
    """``persistent [quiet] x op v``: an assignment to a variable that outlives the game."""

    quiet: bool
    assign: Assign


@frozen
class Dictionary(Node):
    """``[local] dictionary X``: declares the dictionary X (a filter that always matches)."""

    name: str
    local: bool


@frozen
class Subscript(Node):
    """``X[key]``: the value X holds at ``key`` (no match when it holds none); ``kind``: its kind."""

    name: str
    key: Node
    kind: str


@frozen
class SubscriptAssign(Node):
    """``X[key] = value``: X holds ``value`` at ``key`` from now on."""

    name: str
    key: Node
    value: Node


@frozen
class Echo(Node):
    source: str
    target: str
    quiet: bool
    include_all: bool
    body: Node


@frozen
class RelationParam(Node):
    """One parameter of CQL 5's ``relation`` (seed 001): ``(tomove match|mismatch)``, a square
    parameter (sets, match and mismatch ranges), bare or after an echo transform keyword, or a
    game-tree parameter (``(ancestor)``, ``(lcamax R)`` ...: ``lca`` names it, ``lca_range`` is R)."""

    echo: str | None  # the echo keyword as written (None: the identity comparison)
    tomove: str | None  # 'match' or 'mismatch' for a tomove parameter, else None
    sourcesquares: Node | None  # None: every square
    targetsquares: Node | None
    match: tuple[int, int]
    mismatch: tuple[int, int]
    lca: str | None = None  # ancestor, descendant, lcamax, lcasum, lcasource, lcatarget, lcasubstring
    lca_range: tuple[int, int] = (0, 0)


@frozen
class Relation(Node):
    """CQL 5's ``relation``: matches where some other position of the game satisfies every target
    filter and every parameter (reference/relation.md)."""

    targets: tuple[Node, ...]
    params: tuple[RelationParam, ...]


@frozen
class GameFilter(Node):
    """Game-level tests: result, player, elo, year, event, site, date, eco, fen, gamenumber."""

    name: str
    args: tuple[Node, ...]


@frozen
class Output(Node):
    """comment(...) and message(...): always match; what they say goes to the output."""

    name: str
    quiet: bool
    args: tuple[Node, ...]


@frozen
class Header(Frozen):
    """The ``cql(...)`` parameters that shape a run."""

    variations: bool | None = None
    quiet: bool = False
    silent: bool = False
    input: str | None = None
    output: str | None = None
    result: str | None = None
    gamenumber: tuple[int, int] | None = None
    matchcount: tuple[int, int | None] | None = None
    sort_matchcount: bool = False
    matchstring: str | None = None
    #: Not a parameter: the number of the collection's last game (``lastgamenumber``), known once
    #: the index is open, capped by ``gamenumber`` as the reference caps it (exec/run.py).
    last_gamenumber: int | None = None


@frozen
class Query(Frozen):
    """A parsed query: its header parameters and its body."""

    header: Header
    body: Compound
    text: str
    source: str
    #: Where the body reads a variable after the iteration or echo that bound it has ended: the
    #: reference parses that, and its run refuses it (query/prepare.py refuses it too).
    unbound: tuple[Span, ...] = ()
