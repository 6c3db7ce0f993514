"""Byte ranges of the games' source files, read again for the PGN output.

The games table says where each game's text is (``source_file``, ``byte_offset``, counted in
the decompressed stream :func:`cqlindex.ingest.streams.open_binary` gives). A plain file seeks
to it. A compressed one cannot seek: reaching an offset means decompressing everything before
it, so going back meant starting the file again. The PGN writer reads a batch's games in file
order, then the few it leaves to python-chess in file order again; those often lie between
games already read. The bytes read last (:data:`KEPT` of them at least) are therefore kept in
memory, and a read that goes back into them costs a copy, not a second pass over the file: on
100,000 gnuchess games from the ``.zst`` file, that took a quarter off the write's time
(30.1-30.4 -> 22.7-22.9 s, alternating runs).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import BinaryIO

from cqlindex.ingest.streams import open_binary

#: Bytes of a compressed source kept behind the read position (up to twice this many are held).
KEPT = 8 << 20
#: Largest read while skipping forward.
_STEP = 1 << 20


class Sources:
    """Reads byte ranges of the source files, one open file at a time, best in file order.

    Indexes name their sources by absolute path. Older ones named them as the build was given
    them, relative to where it ran: such a name is tried from here, then from the index's folder
    (where the PGN usually sits beside its index).
    """

    def __init__(self, base: Path | None = None) -> None:
        self.base = base
        self.path: str | None = None
        self.stream: BinaryIO | None = None
        #: where ``stream`` is, in bytes of its text
        self.position = 0
        #: whether ``stream`` seeks for free (a plain file, not a decompressor)
        self.plain = False
        #: the bytes just before ``position`` (a compressed stream's only)
        self.kept = bytearray()
        #: times a file was opened (again): what :data:`KEPT` saves, for the tests
        self.opened = 0

    def read(self, path: str, offset: int, end: int | None) -> bytes:
        """The bytes from ``offset`` to ``end`` (to the end of the file when None) of ``path``'s
        text; InputError if the file is gone, EOFError if it is compressed and cut short."""
        if path != self.path or self.stream is None or (
                not self.plain and offset < self.position - len(self.kept)):
            self._open(path)
        stream = self.stream
        assert stream is not None
        if self.plain:
            stream.seek(offset)
            data = stream.read(-1 if end is None else max(end - offset, 0))
            self.position = offset + len(data)
            return data
        if offset < self.position:  # in the kept bytes
            start = offset - (self.position - len(self.kept))
            if end is not None and end <= self.position:
                return bytes(self.kept[start:start + max(end - offset, 0)])
            head = bytes(self.kept[start:])
            return head + self._forward(None if end is None else end - self.position)
        while self.position < offset:
            if not self._forward(min(offset - self.position, _STEP)):
                return b""  # the file ends before the offset
        return self._forward(None if end is None else end - offset)

    def _open(self, path: str) -> None:
        self.close()
        self.stream = open_binary(self.locate(path))  # InputError if it is gone
        self.path, self.position, self.opened = path, 0, self.opened + 1
        self.plain = isinstance(getattr(self.stream, "raw", None), io.FileIO)

    def _forward(self, size: int | None) -> bytes:
        """The next ``size`` bytes of the compressed stream (the rest when None), kept."""
        assert self.stream is not None
        data = self.stream.read(-1 if size is None else size)
        self.position += len(data)
        kept = self.kept
        kept += data
        if len(kept) > 2 * KEPT:  # trimmed in bulk: each byte is moved about once
            del kept[:len(kept) - KEPT]
        return data

    def locate(self, path: str) -> Path:
        """Where the file the games table calls ``path`` is (see the class docstring)."""
        name = Path(path)
        if name.is_absolute() or name.exists() or self.base is None:
            return name
        for beside in (self.base / name, self.base / name.name):
            if beside.exists():
                return beside
        return name

    def close(self) -> None:
        if self.stream is not None:
            self.stream.close()
        self.path, self.stream, self.position, self.plain = None, None, 0, False
        self.kept = bytearray()
