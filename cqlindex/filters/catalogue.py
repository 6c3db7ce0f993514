"""The filter catalogue: every CQL filter, parameter and header word, declared once, by family.

The parser dispatches on it (:func:`grammar`) and refuses from it (:func:`refusal`, with the
reason); the kind checker reads value kinds (:func:`keyword_kind`), the query analysis and the
rewriter read the traits (:func:`reads_other_positions`, colour-swap images), ``--explain``
names what it leaves to Python (:func:`declaration_of`), and ``cqlindex filters`` prints it
(:func:`listing`). A fact of the position carries its Python value and its SQL in the
declaration itself; other filters have their grammar, Python and SQL beside the declarations,
in their family's folder (see ARCHITECTURE.md).

The catalogue checks itself when imported (:func:`check`): every name is declared once where
it may be written, a refusal gives its reason, a supported filter says how SQL treats it, and
every trait has a value. :mod:`cqlindex.evaluate.core` checks on import that every supported
filter's node has an evaluator; tests/test_filters_catalogue.py and test_filters_traits.py
hold each declaration to what the parser, the planner and the evaluator do.
"""

from __future__ import annotations

from collections.abc import Iterator

from cqlindex.cql import ast
from cqlindex.filters import control, dictionaries, game, header, logic, moves, output, position, refused, relation
from cqlindex.filters import sequences, sets, strings, transforms, tree, variables
from cqlindex.filters.spec import DASH_TARGET, EXACT, FILTER, NARROWED, PYTHON, Decl

FAMILIES = (position, sets, moves, tree, sequences, relation, game, logic, variables, dictionaries, control, output,
            strings, transforms,
            refused, header)
KINDS = ("set", "number", "position", "string", "logical", "any")
ALL: tuple[Decl, ...] = tuple(decl for family in FAMILIES for decl in family.DECLS)


class CatalogueError(Exception):
    """A declaration breaks one of the catalogue's rules (a programming error, found on import)."""


def check(decls: tuple[Decl, ...]) -> None:
    """Raise CatalogueError naming the first declaration that breaks a rule."""
    seen: set[tuple[str, str]] = set()
    for decl in decls:
        where = f"{decl.family}: '{decl.name}' ({decl.where})"
        if decl.key in seen:
            raise CatalogueError(f"{where} is declared twice")
        seen.add(decl.key)
        if decl.kind not in KINDS:
            raise CatalogueError(f"{where} has no value kind (got {decl.kind!r})")
        if not decl.description:
            raise CatalogueError(f"{where} has no description")
        if decl.refused is not None and not decl.refused:
            raise CatalogueError(f"{where} is refused without a reason")
        if decl.at_once and (decl.supported or decl.grammar is not None):
            raise CatalogueError(f"{where}: only a refused name without a grammar is refused at once")
        if decl.supported and decl.is_filter and decl.sql not in (EXACT, NARROWED, PYTHON):
            raise CatalogueError(f"{where} does not say how SQL treats it (got {decl.sql!r})")
        if decl.sql is not None and not (decl.supported and decl.is_filter):
            raise CatalogueError(f"{where}: only a supported filter has an SQL verdict (its parameters share it)")
        if decl.grammar is not None and decl.where not in (FILTER, DASH_TARGET):
            raise CatalogueError(f"{where}: a parameter is parsed by its filter, not by a grammar of its own")
        traits = decl.traits
        if None in (traits.reads_other_positions, traits.pure, traits.colour_swap, traits.transform):
            raise CatalogueError(f"{where} leaves a trait unsaid")
        if traits.colour_swap not in ("same", "negated", "swapped") and not any(
                other.key == (decl.where, traits.colour_swap) for other in decls):
            raise CatalogueError(f"{where}: its colour-swap image {traits.colour_swap!r} is not declared beside it")
        if traits.transform not in ("same", "mapped"):
            raise CatalogueError(f"{where}: image under a transform is 'same' or 'mapped', not {traits.transform!r}")


check(ALL)

_BY_KEY = {decl.key: decl for decl in ALL}
_KEYWORD_NODES = (ast.Keyword, ast.Call, ast.GameFilter, ast.Unary)


def declarations() -> Iterator[Decl]:
    """Every declaration, family by family."""
    return iter(ALL)


def names(where: str | None = None) -> list[str]:
    """Every name CQL gives a filter, parameter or header word (only those written ``where``, when
    given), sorted (for "did you mean")."""
    return sorted({decl.name for decl in ALL if decl.name[0].isalpha() and where in (None, decl.where)})


def lookup(name: str, where: str = FILTER) -> Decl | None:
    """The declaration of ``name`` written ``where`` (a filter by default), or None."""
    return _BY_KEY.get((where, name))


def grammar(name: str, where: str = FILTER) -> str | None:
    """The parser method that reads the filter ``name`` (None: not a filter with a grammar there)."""
    decl = _BY_KEY.get((where, name))
    return decl.grammar if decl is not None else None


def refusal(name: str, where: str = FILTER) -> Decl | None:
    """The declaration of ``name`` if cqlindex refuses it there, else None."""
    decl = _BY_KEY.get((where, name))
    return decl if decl is not None and not decl.supported else None


def keyword_kind(node_type: type[ast.Node], name: str) -> str | None:
    """The value kind of the named filter parsed to ``node_type`` (None: not declared so)."""
    for where in (FILTER, DASH_TARGET):
        decl = _BY_KEY.get((where, name))
        if decl is not None and decl.node is node_type:
            return decl.kind
    return None


def declaration_of(node: ast.Node) -> Decl | None:
    """The declaration a node was parsed from (None: an operator or literal the catalogue does not name)."""
    if isinstance(node, ast.Dash):
        name = "[x]" if node.capture else "--"
    elif isinstance(node, ast.Iterate):
        name = node.kind
    elif isinstance(node, (ast.Compound, ast.Compare, ast.Colon, ast.Assign)):
        name = {ast.Compound: "{}", ast.Compare: "==", ast.Colon: ":", ast.Assign: "="}[type(node)]
    else:
        name = getattr(node, "name", None) or getattr(node, "op", None)
    for where in (FILTER, DASH_TARGET):
        decl = _BY_KEY.get((where, name))
        if decl is not None and decl.node is type(node):
            return decl
    return _ONLY_DECL.get(type(node))


def grammars() -> dict[str, str]:
    """Filter name -> parser method, for every filter that has a grammar of its own."""
    return {decl.name: decl.grammar for decl in ALL if decl.where == FILTER and decl.grammar is not None}


def reads_other_positions(node: ast.Node) -> bool:
    """The declared trait of one node (not its children): it may look at other positions of the game."""
    if isinstance(node, _KEYWORD_NODES):
        decl = _BY_KEY.get((FILTER, getattr(node, "name", getattr(node, "op", ""))))
        return decl is not None and decl.node is type(node) and decl.traits.reads_other_positions
    if isinstance(node, ast.Move):
        return node.mode in ("played", "previous")  # a legal move is one of this position's
    return type(node) in _READING_NODES


_READING_NODES = frozenset(decl.node for decl in ALL if decl.node is not None and decl.traits.reads_other_positions
                           and decl.node not in _KEYWORD_NODES)


def listing(family: str | None = None) -> str:
    """The catalogue as text, family by family: name, status, how SQL treats it, what it does."""
    families = [f.__name__.rpartition(".")[2] for f in FAMILIES]
    if family is not None and family not in families:
        raise KeyError(f"no family {family!r} (families: {', '.join(families)})")
    rows = []
    for decl in ALL:
        if family is None or decl.family == family:
            written = decl.name if decl.where in (FILTER, DASH_TARGET) else f"{decl.where} {decl.name}"
            status = "supported" if decl.supported else f"refused: {decl.refused}"
            rows.append((decl.family, written, status, decl.sql or ("" if decl.supported else "-"), decl.description))
    widths = [max(len(row[k]) for row in rows) for k in (1, 2, 3)]
    lines: list[str] = []
    shown = None
    for row in rows:
        if row[0] != shown:
            shown = row[0]
            lines.append(f"{shown}:")
        lines.append("  " + "  ".join(cell.ljust(width) for cell, width in zip(row[1:4], widths)) + "  " + row[4])
    return "\n".join(lines)


#: Node types declared by one filter only (line, find, echo, move, pin, ...).
_ONLY_DECL = {node: decls[0] for node, decls in
              ((n, [d for d in ALL if d.node is n and d.is_filter]) for n in {d.node for d in ALL if d.node})
              if len(decls) == 1}
