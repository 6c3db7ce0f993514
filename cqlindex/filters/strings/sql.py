"""The SQL of strings: comparisons, ``~~`` and ``in`` over the texts the index stores.

A game tag (the joined ``games`` row: ``event``, ``player white``, ``tag "Opening"`` ...) and the
comment after a move (``originalcomment``, a column of ``positions``) are stored, so comparing
them with a string of the query, or searching them with a pattern, is decided in SQL. The
query's strings reach SQL only as quoted literals built by sqlglot (:func:`cqlindex.plan.sql.text`),
never pasted into the text. A pattern is decided in SQL only when DuckDB's RE2 reads it as
Python's :mod:`re` does (:func:`portable`); any other pattern, and every computed string, is left
to the evaluator.

Methods of :class:`cqlindex.plan.compile.Compiler`, mixed in.
"""

from __future__ import annotations

import re

from sqlglot import exp

from cqlindex.cql import ast
from cqlindex.filters.game.python import TAGS
from cqlindex.plan import sql as S
from cqlindex.plan.terms import RESIDUAL, Cond, Row

#: Patterns both engines read alike: literal text, '.', classes, anchors, repetition, groups.
_PORTABLE = re.compile(r"[\w .,:;/'#=@!&%<>~\-^$*+?|()\[\]]*")


def portable(pattern: str) -> bool:
    """Whether RE2 (DuckDB) and Python's re find the same matches of ``pattern`` in any one-line
    text: no backslash, no '{', no '(?' extension, and it compiles."""
    if not _PORTABLE.fullmatch(pattern) or "(?" in pattern:
        return False
    try:
        re.compile(pattern)
    except re.error:
        return False
    return True


def text_is_comment(node: ast.Node) -> bool:
    return isinstance(node, ast.GameFilter) and node.name in ("originalcomment", "hascomment")


class StringsSQL:
    """The strings family's SQL."""

    __slots__ = ()

    def text_term(self, node: ast.Node, row: Row) -> exp.Expression | None:
        """The SQL of a string filter's value (NULL where it has none), or None: not stored."""
        if isinstance(node, ast.String):
            return S.text(node.value)
        if isinstance(node, ast.Compound) and len(node.items) == 1:
            return self.text_term(node.items[0], row)
        if text_is_comment(node) and not node.args:
            return S.col("comment", row.alias)
        if not row.top:
            return None  # the game row is joined at the top only
        if isinstance(node, ast.GameFilter) and node.name in TAGS and not node.args:
            return self.tag_sql(TAGS[node.name])
        if isinstance(node, ast.GameFilter) and node.name == "player" and len(node.args) == 1 \
                and isinstance(node.args[0], ast.Keyword):
            self.uses_games = True
            return S.col(node.args[0].name, "g")
        if isinstance(node, ast.Call) and node.name == "tag" and isinstance(node.args[0], ast.String):
            return self.tag_sql(node.args[0].value)
        return None

    def tag_sql(self, tag: str) -> exp.Expression:
        """The value of a PGN tag of the current game, NULL where it has none."""
        self.uses_games = True
        return exp.Bracket(this=S.col("tags", "g"), expressions=[S.text(tag)])

    def string_compare(self, node: ast.Compare, row: Row) -> Cond:
        terms = [self.text_term(operand, row) for operand in node.operands]
        if any(term is None for term in terms):
            return RESIDUAL
        sql: exp.Expression | None = None
        for op, a, b in zip(node.ops, terms, terms[1:]):
            sql = S.both(sql, S.cmp(op.strip("[]"), a, b))
        return Cond(S.definite(sql), True)

    def regex_cond(self, node: ast.Binary, row: Row) -> Cond:
        pattern = node.right.value if isinstance(node.right, ast.String) else None
        if pattern is None or not portable(pattern):
            return RESIDUAL
        left = node.left
        if isinstance(left, ast.GameFilter) and left.name == "player" and not left.args:
            if not row.top:
                return RESIDUAL
            self.uses_games = True
            texts = [S.col("white", "g"), S.col("black", "g")]
        else:
            text = self.text_term(left, row)
            if text is None or ("$" in pattern and text_is_comment(left)):
                return RESIDUAL  # Python's '$' also matches before a comment's last newline, RE2's not
            texts = [text]
        tests = [S.definite(exp.func("regexp_matches", t, S.text(pattern))) for t in texts]
        return Cond(S.either(*tests), True)

    def substring_cond(self, node: ast.Binary, row: Row) -> Cond:
        """``x in y`` of strings: x occurs in y."""
        part, whole = self.text_term(node.left, row), self.text_term(node.right, row)
        if part is None or whole is None:
            return RESIDUAL
        return Cond(S.definite(exp.func("contains", whole, part)), True)

    def text_present(self, node: ast.Node, row: Row) -> Cond:
        """A string filter alone: it matches where it has a value."""
        term = self.text_term(node, row)
        return RESIDUAL if term is None else Cond(S.not_null(term), True)
