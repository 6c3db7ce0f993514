"""Which variables a filter reads, and whether its assignments fit the columnar engine's scoping.

The columnar engine keeps a variable as one array per context; a compound's members see what
the members before them assigned, and what an ``if``'s branch, a ``loop``'s body or an
iteration taken a square at a time assigns goes back to where that filter stands
(:mod:`cqlindex.columnar.effects`). What it does not model is a variable assigned inside any
other nested filter (a find's body, an operand) and read after that filter ends, nor one
assigned again below where it was bound: :func:`scoping_problem` finds those, and the query
then goes to the tree-walker.
"""

from __future__ import annotations

from cqlindex.cql import ast


def free_variables(node: ast.Node) -> frozenset[str]:
    """The names ``node`` reads that no iteration or echo inside it binds."""
    read: set[str] = set()
    bound: set[str] = set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Variable):
            read.add(inner.name)
        elif isinstance(inner, ast.Iterate):
            bound.add(inner.var)
        elif isinstance(inner, ast.Echo):
            bound.update((inner.source, inner.target))
    return frozenset(read - bound)


def members(node: ast.Compound) -> tuple[ast.Node, ...]:
    """The compound's members, a nested compound's spelled out in its place (a function call
    expands to one): they match in the same order, and what a nested member assigns is then
    seen by the members after it, as the tree-walker's variables are (``n = 0 f(n) n > 1`` with
    f's body ``if check n += 1``). An empty compound stays: it matches everywhere."""
    out: list[ast.Node] = []
    for item in node.items:
        out.extend(members(item) if isinstance(item, ast.Compound) and item.items else (item,))
    return tuple(out)


def scoping_problem(node: ast.Node, visible: frozenset[str] = frozenset()) -> ast.Node | None:
    """The first node whose variable use the columnar engine cannot follow, or None.

    ``visible``: names bound where ``node`` stands (by an enclosing iteration, or assigned by an
    earlier member of an enclosing compound).
    """
    if isinstance(node, ast.Variable):
        return None if node.name in visible else node
    if isinstance(node, ast.Assign):
        if node.op not in ASSIGNMENTS or (node.piece and node.op != "="):
            return node
        return scoping_problem(node.value, visible)
    if isinstance(node, ast.Compound):
        return _through(node, visible, frozenset())[0]
    if isinstance(node, ast.Iterate):
        if node.var in visible:
            return node
        return scoping_problem(node.domain, visible) or scoping_problem(node.body, visible | {node.var})
    if isinstance(node, ast.Echo):
        if {node.source, node.target} & visible:
            return node
        return scoping_problem(node.body, visible | {node.source, node.target})
    for name in node.__dataclass_fields__:
        if name == "span":
            continue
        problem = _scan(getattr(node, name), visible)
        if problem is not None:
            return problem
    return None


#: Assignments the columnar engine makes (kernels_vars): ``=``, and the updates of a number.
ASSIGNMENTS = ("=", "+=", "-=", "*=", "/=", "%=")


def _through(node: ast.Node, visible: frozenset[str], writable: frozenset[str]
             ) -> tuple[ast.Node | None, frozenset[str]]:
    """(the first problem, the names assigned) of ``node`` where what it assigns goes back to
    where it stands (:mod:`cqlindex.columnar.effects`): a compound's member, an ``if``'s branch
    there, a ``loop``'s body, the body of an iteration taken a square at a time. ``writable``:
    the visible names it may assign again (those its enclosing compounds made, not an
    iteration's or an echo's)."""
    if not isinstance(node, ast.Compound) or not node.items:
        return _member(node, visible, writable)
    local: set[str] = set()
    for item in members(node):  # a nested compound's members as the compound's own (kernels_logic)
        problem, made = _member(item, visible | local, writable | local)
        if problem is not None:
            return problem, frozenset()
        local |= made
    return None, frozenset(local)


def _member(node: ast.Node, visible: frozenset[str], writable: frozenset[str]
            ) -> tuple[ast.Node | None, frozenset[str]]:
    """:func:`_through` of one filter (not a compound)."""
    if isinstance(node, ast.Assign):
        if node.name in visible and node.name not in writable:
            return node, frozenset()  # an iteration's variable, or one made where this cannot reach
        return scoping_problem(node, visible), frozenset({node.name})
    if isinstance(node, ast.If) and _assigns(node):
        problem = scoping_problem(node.cond, visible)
        made: frozenset[str] = frozenset()
        for branch in (node.then, node.other):
            if problem is None and branch is not None:
                # CQL reads in text order: what the first branch assigns is known in the second
                problem, more = _through(branch, visible | made, writable | made)
                made |= more
        return problem, made
    if isinstance(node, ast.Control) and node.name in ("loop", "while"):
        made = frozenset()
        for part in node.args:  # a while's condition, then its body
            problem, more = _through(part, visible | made, writable | made)
            if problem is not None:
                return problem, frozenset()
            made |= more
        return None, made
    if isinstance(node, ast.Not) and not isinstance(node.arg, ast.Compound):
        return _member(node.arg, visible, writable)  # its kernel asks the filter in its own place
    if isinstance(node, ast.Iterate) and serial(node, visible):
        if node.var in visible:
            return node, frozenset()
        problem = scoping_problem(node.domain, visible)
        if problem is not None:
            return problem, frozenset()
        problem, made = _through(node.body, visible | {node.var}, writable)
        return problem, made - {node.var}
    return scoping_problem(node, visible), frozenset()


def _assigns(node: ast.Node) -> bool:
    return any(isinstance(inner, ast.Assign) for inner in ast.walk(node))


def serial(node: ast.Iterate, outside: frozenset[str], facts: tuple | None = None) -> bool:
    """Whether the iteration's body must be evaluated a square at a time, in the tree-walker's
    order (lowest square first): it assigns a name known ``outside`` it (its values go on from
    square to square, and out), or one a square may read before it assigns it (``if seen == 0
    {dr = ... seen = 1} else dr == ...``: what one square did, the next reads). Otherwise every
    square is evaluated at once, each with its own copy of the body's variables. ``facts``:
    :func:`serial_facts` of ``node``, where the caller keeps them."""
    made, stale = facts if facts is not None else serial_facts(node)
    return bool(stale) or not made.isdisjoint(outside)


def serial_facts(node: ast.Iterate) -> tuple[frozenset[str], frozenset[str]]:
    """(the names the body assigns back where it stands, those of them a square may read before
    it assigns them): the body's alone, the same at every batch."""
    items = _items(node.body)
    made = _made(node.body) - {node.var}
    return made, frozenset(name for name in made if not fresh(items, name))


def _items(node: ast.Node) -> tuple[ast.Node, ...]:
    return members(node) if isinstance(node, ast.Compound) else (node,)


def _made(node: ast.Node) -> frozenset[str]:
    """The names ``node`` assigns where the assignment goes back to where it stands."""
    if isinstance(node, ast.Assign):
        return frozenset({node.name})
    if isinstance(node, ast.Compound):
        return frozenset().union(*(_made(item) for item in members(node)))
    if isinstance(node, ast.If):
        return frozenset().union(*(_made(b) for b in (node.then, node.other) if b is not None))
    if isinstance(node, ast.Control) and node.name in ("loop", "while"):
        return frozenset().union(*(_made(part) for part in node.args))
    if isinstance(node, ast.Iterate):
        return _made(node.body) - {node.var}
    return frozenset()


def fresh(items: tuple[ast.Node, ...], name: str) -> bool:
    """Whether the first of ``items`` (in order) to name ``name`` gives it a new value before
    anything reads it: ``name = v`` itself, or an iteration whose body does so."""
    for item in items:
        if not any(isinstance(x, (ast.Variable, ast.Assign)) and x.name == name for x in ast.walk(item)):
            continue
        if isinstance(item, ast.Assign):
            return item.name == name and item.op == "=" and not any(
                isinstance(x, (ast.Variable, ast.Assign)) and x.name == name for x in ast.walk(item.value))
        if isinstance(item, ast.Iterate) and item.var != name and not any(
                isinstance(x, (ast.Variable, ast.Assign)) and x.name == name for x in ast.walk(item.domain)):
            return fresh(_items(item.body), name)
        return False
    return True


def _scan(value: object, visible: frozenset[str]) -> ast.Node | None:
    if isinstance(value, ast.Assign):
        return value  # an assignment that is not a compound's member: its effect outlives its filter
    if isinstance(value, ast.Node):
        return scoping_problem(value, visible)
    if isinstance(value, (tuple, list)):
        for item in value:
            problem = _scan(item, visible)
            if problem is not None:
                return problem
    return None
