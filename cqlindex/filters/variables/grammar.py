"""The grammar of echo, variables, assignments, persistent and atomic (functions: function_grammar)."""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.cql.kinds import LOGICAL, NUMBER, POSITION, SET, STRING, kind_of
from cqlindex.cql.reader import ASSIGN_OPS
from cqlindex.cql.tokens import Kind, Token
from cqlindex.filters.variables.function_grammar import FunctionGrammar
from cqlindex.suggest import hint


class VariablesGrammar(FunctionGrammar):
    """The variables family's grammar."""

    def parse_echo(self, token: Token) -> ast.Node:
        quiet = False
        if self.at_word("quiet"):
            self.next()
            quiet = True
        self.expect_op("(", "after 'echo' (write: echo (source target) filter)")
        names = []
        for _ in range(2):
            name = self.next()
            if name.kind is not Kind.WORD:
                raise self.error("expected a variable name in echo's '(source target)'", name)
            names.append(name.text)
        self.expect_op(")", "after echo's two variable names")
        include_all = False
        if self.at_word("in"):
            self.next()
            if not self.at_word("all"):
                raise self.error("expected 'all' after 'in'", self.peek())
            self.next()
            include_all = True
        saved = {name: self.bind(name, POSITION) for name in names}
        body = self.parse_filter()
        for name, kind in saved.items():
            self.unbind_after(name, kind)
        return ast.Echo(token.span.to(body.span), names[0], names[1], quiet, include_all, body)

    def parse_variable(self, token: Token) -> ast.Node:
        name = token.text
        if name in self.dictionaries and self.at_op("["):
            return self.parse_subscript(token)
        if name in self.functions and self.at_op("(") and name not in self.variables:
            return self.parse_call_of_function(token)
        if name not in self.variables and self.at_word("in") and self.written(self.peek()) != "in":
            return self.parse_square_iteration(token, every=False)  # 'x ∊ S', 'x [element] S': not 'x in S'
        if self.at_op(*ASSIGN_OPS):
            op = self.next()
            # The right side binds like unary minus: 'v = k or q' is '{v = k} or q'.
            self.assigning.append(name)
            try:
                value = self.parse_additive()
            finally:
                self.assigning.pop()
            self.check_assignment(token, op, value)
            return ast.Assign(token.span.to(value.span), name, op.text, value)
        if name in self.variables:
            return ast.Variable(token.span, name)
        if name in self.assigning:
            # The reference reads an assignment's value before it makes the variable, so a new
            # name is unknown inside its own first value ('x = path -- pathcount <= x').
            raise self.error(f"'{name}' has no value yet: it gets its first one from this assignment", token)
        if name in self.ended:
            self.unbound_uses.append(token.span)  # refused by parse_body, as the reference's run refuses it
            return ast.Variable(token.span, name)
        raise self.error(f"unknown filter or variable '{name}'{hint(name)}", token)

    def check_assignment(self, name: Token, op: Token, value: ast.Node) -> None:
        """A variable gets its type from its first assignment and keeps it; a filter without a value
        cannot be assigned; '=?' takes a set; '+=' ... need an existing number (or string for '+=')."""
        kind = self.value_kind(value)
        known = self.variables.get(name.text)
        if kind == LOGICAL:
            raise self.error(f"a filter without a value cannot be assigned to '{name.text}'", value.span)
        if name.text in self.piece_variables:
            raise self.error(f"'{name.text}' is a piece variable: only 'piece {name.text} = ...' rebinds it", name)
        if op.text == "=?" and kind not in (SET, "any"):
            raise self.error("'=?' assigns a set", value.span)
        if op.text in ("=", "=?"):
            if known not in (None, "any") and kind != "any" and kind != known:
                raise self.error(f"'{name.text}' holds a {known}: it cannot be assigned a {kind}", value.span)
            if known in (None, "any"):
                self.variables[name.text] = kind
            return
        if known is None:
            raise self.error(f"'{op.text}' needs a variable that already has a value: '{name.text}' has none", name)
        allowed = (NUMBER, STRING) if op.text == "+=" else (NUMBER,)
        if known not in (*allowed, "any") or kind not in (*allowed, "any") or (
                "any" not in (known, kind) and known != kind):
            raise self.error(f"'{op.text}' needs numbers{' or strings' if op.text == '+=' else ''}", value.span)

    def parse_persistent(self, token: Token) -> ast.Node:
        """``persistent [quiet] x = v`` (or ``+=`` ...), ``atomic x = v``: variables that outlive a position."""
        quiet = token.text == "persistent" and self.at_word("quiet")
        if quiet:
            self.next()
        name = self.next()
        if name.kind is not Kind.WORD:
            raise self.error(f"expected a variable name after '{token.text}'", name)
        allowed = ("=",) if token.text == "atomic" else ("=", "+=", "-=", "*=", "/=", "%=")
        if not self.at_op(*allowed):
            raise self.error(f"expected {' or '.join(repr(a) for a in allowed)} after '{token.text} {name.text}'",
                             self.peek())
        op = self.next()
        value = self.parse_additive()
        kind = kind_of(value, self.variables)
        if kind in (LOGICAL, POSITION) and not (token.text == "atomic" and kind == POSITION):
            raise self.error(f"a {token.text} variable cannot hold a {kind}", value.span)
        if op.text != "=" and kind not in ((NUMBER, STRING, "any") if op.text == "+=" else (NUMBER, "any")):
            raise self.error(f"'{op.text}' needs a number", value.span)
        lasting = self.lasting_variables.get(name.text)
        if token.text == "persistent" and name.text in self.variables and lasting != "persistent":
            raise self.error(f"'{name.text}' is already an ordinary variable", name)
        self.lasting_variables.setdefault(name.text, token.text)
        self.variables.setdefault(name.text, kind if kind != "any" else NUMBER)
        assign = ast.Assign(token.span.to(value.span), name.text, op.text, value)
        return assign if token.text == "atomic" else ast.Lasting(assign.span, quiet, assign)

    def parse_binding_test(self, token: Token) -> ast.Node:
        """``isbound x``, ``isunbound x``, ``unbind x``."""
        name = self.next()
        if name.kind is not Kind.WORD:
            raise self.error(f"expected a variable name after '{token.text}'", name)
        if token.text == "unbind" and name.text not in self.variables:
            raise self.error(f"'unbind {name.text}': no such variable", name)
        if token.text == "unbind" and name.text in self.dictionaries and self.at_op("["):
            if self.dictionaries[name.text][1] is None:
                # the reference refuses an entry of a dictionary nothing was stored in yet: its keys
                # have no type ('dictionary v unbind v["key"]')
                raise self.error(f"'unbind {name.text}[...]': nothing is stored in '{name.text}' yet", self.peek())
            entry = self.parse_subscript(name)
            if not isinstance(entry, ast.Subscript):
                raise self.error("'unbind X[key]' takes no '= value'", entry.span)
            return ast.Call(token.span.to(entry.span), token.text, (entry,))
        return ast.Call(token.span.to(name.span), token.text, (ast.Variable(name.span, name.text),))
