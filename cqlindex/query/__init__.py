"""The query stage between the parser and the engines: prepare, rewrite, analyse, once per run."""
