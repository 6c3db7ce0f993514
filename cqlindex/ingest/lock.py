"""One build at a time per target: an advisory lock on a file beside it.

Two builds of the same target used to clean up after each other: the second removed the first's
temporary database as a leftover, and the first died at the end of all its work. The lock is
taken before anything at the target is touched and held until the new database is in place, so
leftovers found while holding it are truly those of killed builds (the kernel drops a killed
process's lock). The lock file is removed on release; a build that locked a file which was
removed meanwhile (the previous holder finishing) takes the lock again on the new file.

Without ``fcntl`` (Windows) builds are not locked.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from cqlindex.errors import BusyError, OutputError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


def lock_path(target: Path) -> Path:
    """The lock file of ``target``."""
    return target.with_name(f".{target.name}.lock")


class TargetLock:
    """The held lock of one target; :meth:`release` (idempotent) lets the next build in."""

    def __init__(self, path: Path, fd: int | None) -> None:
        self.path = path
        self._fd = fd

    def release(self) -> None:
        if self._fd is None:
            return
        self.path.unlink(missing_ok=True)  # before unlocking: no one can lock this file and keep it
        os.close(self._fd)
        self._fd = None


def lock_target(target: Path, *, wait: bool = False, on_wait: Callable[[str], None] | None = None) -> TargetLock:
    """Lock ``target`` for a build; BusyError if another build holds it (or wait for it with ``wait``)."""
    path = lock_path(target)
    if fcntl is None:
        return TargetLock(path, None)
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise OutputError(f"{path}: cannot create the lock file ({error.strerror})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            if not wait:
                os.close(fd)
                raise BusyError(f"{target}: another build{holder} is writing this index; run again when it has "
                                "finished, or add --wait to wait for it") from None
            if on_wait:
                on_wait(f"{target}: waiting for another build{holder} to finish")
            fcntl.flock(fd, fcntl.LOCK_EX)
        if _still_there(fd, path):
            break
        os.close(fd)
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return TargetLock(path, fd)


def _still_there(fd: int, path: Path) -> bool:
    try:
        return os.fstat(fd).st_ino == os.stat(path).st_ino
    except FileNotFoundError:
        return False


def _holder(fd: int) -> str:
    """`` (process N)`` as the lock file says, for the message; empty if it says nothing."""
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return ""
    return f" (process {text})" if text.isdigit() else ""
