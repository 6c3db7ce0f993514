"""The filter catalogue holds to its own rules, and every declaration to what the parser and planner do.

Each declaration's example is parsed: a supported one must parse to its node, a refused one must
be refused naming it (or the filter it belongs to); a supported filter's declared SQL verdict
must be the planner's on its example.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from cqlindex.cql import ast
from cqlindex.cql.parser import Parser, parse
from cqlindex.errors import CqlUnsupportedError
from cqlindex.evaluate.core import evaluated_nodes
from cqlindex.filters import catalogue
from cqlindex.filters.catalogue import CatalogueError, check
from cqlindex.filters.spec import EXACT, NARROWED, PYTHON, Traits
from cqlindex.plan import planner

VERDICTS = {planner.SQL_DECIDES: EXACT, planner.PYTHON_OUTPUT: EXACT, planner.SQL_NARROWS: NARROWED,
            planner.PYTHON_ONLY: PYTHON}
DECLS = list(catalogue.declarations())


def ident(decl) -> str:
    return f"{decl.family}:{decl.where}:{decl.name}"


def test_the_catalogue_passes_its_own_check() -> None:
    check(tuple(DECLS))
    assert len({decl.key for decl in DECLS}) == len(DECLS)


@pytest.mark.parametrize("change, complaint", [
    (lambda d: d, "declared twice"),
    (lambda d: replace(d, name="zz", kind="colour"), "no value kind"),
    (lambda d: replace(d, name="zz", refused=""), "without a reason"),
    (lambda d: replace(d, name="zz", sql=None), "how SQL treats it"),
    (lambda d: replace(d, name="zz", traits=Traits(pure=None)), "trait unsaid"),
    (lambda d: replace(d, name="zz", traits=Traits(colour_swap="stalemate")), "colour-swap image"),
    (lambda d: replace(d, name="zz", where="move", sql=None), "parameter is parsed by its filter"),
    (lambda d: replace(d, name="zz", where="move"), "only a supported filter has an SQL verdict"),
    (lambda d: replace(d, name="zz", refused="later", at_once=True), "refused at once"),
])
def test_the_check_can_fail(change, complaint: str) -> None:
    mate = catalogue.lookup("mate")
    with pytest.raises(CatalogueError, match=complaint):
        check((mate, change(mate)))


def test_names_for_did_you_mean() -> None:
    names = catalogue.names()
    assert names == sorted(set(names))
    assert {"move", "flipcolor", "line", "consecutivemoves", "variations", "firstmatch"} <= set(names)


@pytest.mark.parametrize("decl", [d for d in DECLS if d.grammar], ids=ident)
def test_every_grammar_is_a_parser_method(decl) -> None:
    assert callable(getattr(Parser, decl.grammar, None))


@pytest.mark.parametrize("decl", [d for d in DECLS if d.supported and d.is_filter], ids=ident)
def test_supported_means_evaluated(decl) -> None:
    assert decl.node in evaluated_nodes()


@pytest.mark.parametrize("decl", DECLS, ids=ident)
def test_example(decl) -> None:
    assert decl.example, "every declaration shows itself in use"
    if not decl.supported:
        with pytest.raises(CqlUnsupportedError) as caught:
            parse(decl.example)
        first_line = str(caught.value).splitlines()[0]
        assert decl.name in first_line or f"'{decl.where}'" in first_line
        return
    query = parse(decl.example)
    if not decl.is_filter:
        return
    assert any(type(node) is decl.node for node in ast.walk(query.body))
    plan = planner.plan(query, False)
    assert VERDICTS[plan.verdicts[0][1]] == decl.sql


def test_reads_other_positions_comes_from_the_traits() -> None:
    body = parse("parent:check ply > 2 move legal").body.items
    assert [catalogue.reads_other_positions(item) for item in body] == [True, False, False]
    assert catalogue.reads_other_positions(ast.Keyword(body[0].span, "terminal"))


def test_cqlindex_filters_lists_the_catalogue() -> None:
    from typer.testing import CliRunner

    from cqlindex.cli import app

    result = CliRunner().invoke(app, ["filters"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert sum(1 for line in lines if line.startswith("  ")) == len(DECLS)
    assert any(line.split()[:3] == ["check", "supported", "decided"] for line in lines)
    assert any(line.split()[:3] == ["similarposition", "supported", "decided"] for line in lines)
    moves = CliRunner().invoke(app, ["filters", "--family", "moves"])
    assert moves.output.splitlines()[0] == "moves:" and "flipcolor" not in moves.output
    unknown = CliRunner().invoke(app, ["filters", "--family", "nope"])
    assert unknown.exit_code != 0 and "no family 'nope'" in unknown.output
