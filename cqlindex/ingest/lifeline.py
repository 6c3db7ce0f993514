"""Parse workers end with the build that started them.

A build killed with SIGKILL (by a user, a job scheduler, the out-of-memory killer) cannot tell
its worker processes to stop, and they do not notice on their own: each of them holds the write
end of the task queue's pipe, so their read never sees end-of-file. They went on parsing their
batch and then waited forever. :func:`tie_to_parent` runs first in every worker:

* on Linux the kernel kills the worker when its parent dies (``prctl(PR_SET_PDEATHSIG)``);
* a worker whose parent is a fork server rather than the build watches the build itself: the
  server lives as long as any worker does (each holds its keep-alive pipe), so it would not end
  with the build and take them along. A daemon thread waits on a pidfd of the build (Linux), or
  checks once a second whether it is still there;
* elsewhere a daemon thread checks once a second whether the worker has been orphaned.

The worker also checks once, after arming, that the build is still alive: it may have died
between starting the worker and this call.

Workers are never forked from the process that wants them (:func:`clean_context`): that process
may run threads (DuckDB's, a server's, a query's), and a forked child inherits their locks
without the threads that would release them. CI saw parse workers crash that way, four builds
in one run. A child started clean re-imports the parent's main script unless it is hidden
(:func:`main_hidden`).
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import select
import signal
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def tie_to_parent(build_pid: int) -> None:
    """Make this process exit when the build ``build_pid`` does (a ``ProcessPoolExecutor``
    initializer); the build is this process's parent, or its fork server's."""
    parent = os.getppid()
    armed = _die_with_parent()
    if parent != build_pid:
        _watch_build(parent, build_pid)
    elif not armed:
        threading.Thread(target=_watch, args=(parent,), name="cqlindex-lifeline", daemon=True).start()
    if parent != build_pid and _parent_of(parent) not in (build_pid, None):
        os._exit(1)  # the build ended before the watch began
    if parent == build_pid and os.getppid() != build_pid:
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


def _watch_build(server: int, build_pid: int) -> None:
    """A daemon thread that ends this process when the build does. The pidfd is opened before the
    caller checks that the server's parent is still the build, so it cannot name a newcomer
    that took a dead build's pid."""
    try:
        handle = os.pidfd_open(build_pid)
    except (AttributeError, OSError):
        handle = None
    target = _wait_pidfd if handle is not None else _poll_pid
    threading.Thread(target=target, args=(handle if handle is not None else build_pid,), name="cqlindex-lifeline",
                     daemon=True).start()


def _wait_pidfd(handle: int) -> None:
    select.select([handle], [], [])  # readable once the process has ended (a zombie too)
    os._exit(1)


def _poll_pid(pid: int) -> None:
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            os._exit(1)
        except PermissionError:
            pass
        time.sleep(1.0)


def _parent_of(pid: int) -> int | None:
    """``pid``'s parent process, from /proc; None where that cannot be read."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def clean_context(preload: tuple[str, ...] = ()) -> multiprocessing.context.BaseContext:
    """The start method for workers: a fork server where the platform has one (each worker a fork
    of a process that runs no threads, ``preload`` imported there once), else spawn."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    if preload:
        context.set_forkserver_preload(list(preload))
    return context


@contextmanager
def main_hidden() -> Iterator[None]:
    """``__main__`` replaced by an empty module while workers start: what multiprocessing then tells
    a clean child to import first is nothing (it would run a script's top level again, which a
    script without an ``if __name__ == "__main__"`` guard does not survive)."""
    main = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = main


def lifeline_options(start: Callable[[int | None], None] = tie_to_parent,
                     context: multiprocessing.context.BaseContext | None = None) -> dict:
    """Keyword arguments for a ``ProcessPoolExecutor`` whose workers end with this process.

    ``start`` runs first in each worker, given the ``build_pid`` of :func:`tie_to_parent`; one
    that does more must call :func:`tie_to_parent` itself. ``context`` defaults to
    :func:`clean_context`.
    """
    return {"mp_context": context or clean_context(), "initializer": start, "initargs": (os.getpid(),)}
