"""``cqlindex serve``: a local web app and HTTP API over one or more indexes.

The modules, one job each: :mod:`~cqlindex.serve.server` (bind, say where, run uvicorn),
:mod:`~cqlindex.serve.app` (the routes), :mod:`~cqlindex.serve.request` (a request's query and
options, composed as the CLI composes them), :mod:`~cqlindex.serve.pool` (the worker processes
that run queries, with cancel and timeouts), :mod:`~cqlindex.serve.results` (the cache of
results and the pages cut from them), :mod:`~cqlindex.serve.games` (a game as JSON for the
viewer) and ``static/`` (the page: plain HTML, CSS and JavaScript, no build step, nothing
fetched from the internet).

Starlette and uvicorn are the ``serve`` extra (``pip install 'cqlindex[serve]'``) and are imported
by this package only, never by ``import cqlindex`` or the other commands.
"""

import sys
import types


class _Package(types.ModuleType):
    """This package, callable as :func:`cqlindex.serve`. The function and the package share the
    name ``cqlindex.serve``, and Python sets the package as that attribute once any of its
    modules is imported: without this, ``cqlindex.serve(...)`` would fail in a process that has
    imported the package (a second call in a notebook, say)."""

    def __call__(self, *args, **kwargs):
        from cqlindex.api import serve

        return serve(*args, **kwargs)


sys.modules[__name__].__class__ = _Package
