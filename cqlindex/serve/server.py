"""Start the server: open the indexes, bind the socket, say where it listens, serve until Ctrl-C.

The socket is bound here rather than by uvicorn so that ``--port 0`` (a free port, as the tests
use) is known before the line that names it is printed. It binds 127.0.0.1 unless told
otherwise: the indexes are the user's, and another machine reaches them only when asked.
"""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

from cqlindex.errors import InputError


def _frameworks():
    """Starlette and uvicorn, or a clear message naming the extra that brings them."""
    try:
        import starlette  # noqa: F401
        import uvicorn
    except ImportError:
        raise InputError("cqlindex serve needs its extra: pip install 'cqlindex[serve]' (Starlette and uvicorn)"
                         ) from None
    return uvicorn


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host``:``port`` (port 0: any free one); InputError when taken."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        raise InputError(f"cannot listen on {host}:{port} ({error.strerror}); choose another --port or --host"
                         ) from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def run_server(databases: list[Path], *, host: str = "127.0.0.1", port: int = 8765, workers: int | None = None,
               timeout: float = 60.0) -> None:
    """Serve ``databases`` until interrupted (see :mod:`cqlindex.serve.app` for the routes)."""
    uvicorn = _frameworks()
    from cqlindex.serve.app import create_app

    if not databases:
        raise InputError("cqlindex serve: name at least one index")
    if timeout <= 0:
        raise InputError("--timeout takes a positive number of seconds")
    workers = workers or max(2, min(4, os.cpu_count() or 2))
    # The socket first: the app starts its worker processes, and a start that fails after them
    # (an address that cannot be bound) left them reading from a parent already gone, each
    # printing a traceback (CI saw it).
    sock = bind(host, port)
    try:
        app = create_app(databases, workers=workers, timeout=timeout)
    except BaseException:
        sock.close()
        raise
    where = sock.getsockname()
    shown = f"[{where[0]}]" if ":" in where[0] else where[0]
    names = ", ".join(str(d) for d in databases)
    print(f"cqlindex serve: {names} at http://{shown}:{where[1]}/ (read-only; {workers} query workers, "
          f"{timeout:g} s per query; Ctrl-C stops)", flush=True)
    if host not in ("127.0.0.1", "localhost", "::1"):
        print(f"cqlindex serve: listening on {host}: other machines of the network can read these indexes",
              file=sys.stderr, flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
