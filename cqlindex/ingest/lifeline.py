"""Parse workers end with the build that started them.

A build killed with SIGKILL (by a user, a job scheduler, the out-of-memory killer) cannot tell
its worker processes to stop, and they do not notice on their own: each of them holds the write
end of the task queue's pipe, so their read never sees end-of-file. They went on parsing their
batch and then waited forever. :func:`tie_to_parent` runs first in every worker:

* on Linux the kernel kills the worker when its parent dies (``prctl(PR_SET_PDEATHSIG)``);
* elsewhere a daemon thread checks once a second whether the worker has been orphaned.

Either way the worker also checks once, after arming, that the build is still alive: it may
have died between starting the worker and this call.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable

_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def tie_to_parent(build_pid: int | None) -> None:
    """Make this process exit when its parent does (a ``ProcessPoolExecutor`` initializer).

    ``build_pid`` is the build's process id when the build is this process's parent (the fork
    and spawn start methods), None otherwise (forkserver: the parent is the server, which itself
    ends with the build).
    """
    parent = os.getppid()
    if not _die_with_parent():
        threading.Thread(target=_watch, args=(parent,), name="cqlindex-lifeline", daemon=True).start()
    if build_pid is not None and os.getppid() != build_pid:
        os._exit(1)  # orphaned before the lifeline was armed


def _die_with_parent() -> bool:
    """Ask Linux to SIGKILL this process when its parent ends; False where that is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(1)


def lifeline_options(start: Callable[[int | None], None] = tie_to_parent) -> dict:
    """Keyword arguments for a ``ProcessPoolExecutor`` whose workers end with this process.

    ``start`` runs first in each worker, given the ``build_pid`` of :func:`tie_to_parent`; one
    that does more must call :func:`tie_to_parent` itself.
    """
    context = multiprocessing.get_context()
    build_pid = None if context.get_start_method() == "forkserver" else os.getpid()
    return {"mp_context": context, "initializer": start, "initargs": (build_pid,)}
