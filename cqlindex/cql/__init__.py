"""The CQL front end: text → tokens → AST with source spans (lexer, parser, ast)."""
