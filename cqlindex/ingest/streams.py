"""Open a PGN source as the bytes of its text: decompressed, UTF-16 made UTF-8, binary refused.

What a file holds is decided by its first bytes, never by its name: a text file called
``x.pgn.gz`` is read as text, and a gzip file called ``x.pgn`` is decompressed. Everything after
this module sees one byte stream in which a line ends with ``\\n`` and text is UTF-8 or a
single-byte encoding, so the splitter's byte offsets stay meaningful: they count bytes of that
stream (the decompressed file, or its UTF-8 form for UTF-16 files) and the PGN output reads a
game back through the same function.

A compressed file that is cut short raises ``EOFError`` at its end, for all three formats:
gzip and bzip2 do it themselves; zstandard's ``stream_reader`` and ``read_to_iter`` simply stop
at a truncated frame, so zstd frames are read here with its ``decompressobj``, whose ``eof``
says whether a frame was complete.
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import io
from pathlib import Path
from typing import BinaryIO

from cqlindex.errors import InputError

_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\x28\xb5\x2f\xfd", "zstd"))
#: Bytes that text never holds (NUL and most C0 controls; tab, line breaks, form feed, ESC and
#: DOS's end-of-file Ctrl-Z are allowed).
_CONTROL = frozenset(range(0x20)) - {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1A, 0x1B}
_SNIFF = 8192


def open_raw(path: Path) -> BinaryIO:
    """The file's own bytes; InputError if it cannot be read."""
    try:
        return path.open("rb")
    except OSError as error:
        raise InputError(f"{path}: cannot read ({error.strerror})") from None


def open_binary(path: Path) -> BinaryIO:
    """The text bytes of ``path`` (see the module docstring); closing it closes the file."""
    return decoded(open_raw(path))


def decoded(raw: BinaryIO) -> BinaryIO:
    """``raw`` decompressed by its magic bytes and, if it is UTF-16, as UTF-8."""
    stream = _decompressed(raw)
    head = stream.peek(4)[:4]
    encoding = _utf16(head, stream.peek(_SNIFF)[:_SNIFF])
    if encoding is None:
        return stream
    reader = codecs.getreader(encoding)(stream)
    return io.BufferedReader(_Utf8(reader, stream), buffer_size=1 << 16)


def compression(head: bytes) -> str | None:
    """``gzip``, ``bzip2``, ``zstd`` or None (plain), from a file's first bytes."""
    return next((name for magic, name in _MAGIC if head.startswith(magic)), None)


def not_text(stream: BinaryIO) -> str | None:
    """Why ``stream`` (as :func:`decoded` gives it) is not text, or None if its start looks like text."""
    head = stream.peek(_SNIFF)[:_SNIFF]
    controls = sum(1 for byte in head if byte in _CONTROL)
    if b"\x00" in head or controls > len(head) // 100:
        return "binary data, not PGN text (compressed PGN is read as gzip, bzip2 or zstd)"
    return None


def _decompressed(raw: BinaryIO) -> BinaryIO:
    kind = compression(raw.peek(4)[:4])
    if kind == "gzip":
        return gzip.GzipFile(fileobj=raw)  # type: ignore[return-value]
    if kind == "bzip2":
        return bz2.BZ2File(raw)  # type: ignore[return-value]
    if kind == "zstd":
        return io.BufferedReader(_ZstdFrames(raw), buffer_size=1 << 20)
    return raw


def _utf16(head: bytes, sample: bytes) -> str | None:
    """The UTF-16 codec of a stream starting with ``head``: by its byte-order mark, else by the
    zero bytes that ASCII text has at every other position in UTF-16."""
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"  # the codec reads the mark and drops it
    pairs = len(sample) // 2
    if pairs >= 8:
        even, odd = sample[0:pairs * 2:2].count(0), sample[1:pairs * 2:2].count(0)
        if odd > pairs * 0.9 and even < pairs * 0.1:
            return "utf-16-le"
        if even > pairs * 0.9 and odd < pairs * 0.1:
            return "utf-16-be"
    return None


class _Chunks(io.RawIOBase):
    """A readable raw stream over the byte chunks :meth:`_next` returns (b"" at the end)."""

    def __init__(self, inner: BinaryIO) -> None:
        self._inner = inner
        self._pending = b""

    def _next(self) -> bytes:
        raise NotImplementedError

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        while not self._pending:
            self._pending = self._next()
            if not self._pending:
                return 0
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size

    def close(self) -> None:
        self._inner.close()
        super().close()


class _Utf8(_Chunks):
    """The UTF-8 bytes of a text reader (UTF-16 decoded); undecodable units become U+FFFD."""

    def __init__(self, reader: codecs.StreamReader, inner: BinaryIO) -> None:
        super().__init__(inner)
        reader.errors = "replace"
        self._reader = reader

    def _next(self) -> bytes:
        return self._reader.read(1 << 15).encode("utf-8")


class _ZstdFrames(_Chunks):
    """zstd frames one after another; EOFError if the last one is cut short (module docstring)."""

    def __init__(self, raw: BinaryIO) -> None:
        import zstandard

        super().__init__(raw)
        self._new = zstandard.ZstdDecompressor().decompressobj
        self._frame = self._new()
        self._started = False  # has the current frame received input?

    def _next(self) -> bytes:
        out = b""
        while not out:
            chunk = self._inner.read(1 << 20)
            if not chunk:
                if self._started:
                    raise EOFError("compressed file ended before the end-of-stream marker was reached")
                return b""
            while chunk:
                self._started = True
                out += self._frame.decompress(chunk)
                chunk = b""
                if self._frame.eof:
                    chunk = self._frame.unused_data
                    self._frame, self._started = self._new(), False
        return out
