"""Which variables a filter reads, and whether its assignments fit the columnar engine's scoping.

The columnar engine keeps a variable as one array per context; a compound's members see what
the members before them assigned. What it does not model is a variable assigned inside a
nested filter and read after that filter ends, nor one assigned again below where it was
bound: :func:`scoping_problem` finds those, and the query then goes to the tree-walker.
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
        local: set[str] = set()
        for item in members(node):  # a nested compound's members as the compound's own (kernels_logic)
            if isinstance(item, ast.If) and any(isinstance(b, ast.Assign) for b in (item.then, item.other)):
                problem = _assigning_if(item, visible | local, local)
                if problem is not None:
                    return problem
                continue
            if isinstance(item, ast.Assign):
                if item.name in visible and item.name not in local:
                    return item  # assigned again below where an outer filter bound it
                problem = scoping_problem(item, visible | local)
                if problem is not None:
                    return problem
                local.add(item.name)
                continue
            problem = scoping_problem(item, visible | local)
            if problem is not None:
                return problem
        return None
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


def _assigning_if(node: ast.If, visible: frozenset[str], local: set[str]) -> ast.Node | None:
    """``if C x op v [else ...]`` as a compound's member: a branch that is an assignment gives its
    variable's new values back to the compound (kernels_logic), so x must be one the compound
    already made (``n = 0 ... if check n += 1 ... n >= 2``), never a piece or an outer one."""
    problem = scoping_problem(node.cond, visible)
    if problem is not None:
        return problem
    for branch in (node.then, node.other):
        if branch is None:
            continue
        if isinstance(branch, ast.Assign):
            if branch.piece or branch.name not in local:
                return branch
        problem = scoping_problem(branch, visible)
        if problem is not None:
            return problem
    return None


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
