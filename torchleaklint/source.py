"""Reading and decoding Python source the way the interpreter does, and column mapping."""

from __future__ import annotations

import errno
import io
import os
import re
import stat
import tokenize
from typing import List, Tuple

SYNTAX_ERROR = "TLL900"  # unreadable, undecodable, unparsable or skipped file
INTERNAL_ERROR = "TLL901"  # a bug in a rule or the semantic layer
MAX_FILE_BYTES = 5_000_000
_NEWLINE = re.compile(r"\r\n|\r|\n")


class SourceError(Exception):
    """The file cannot be read or decoded; becomes a TLL900 diagnostic."""

    def __init__(self, message: str, line: int = 1, col: int = 1):
        super().__init__(message)
        self.line = line
        self.col = col


def decode(raw: bytes) -> Tuple[str, str]:
    """Decode with the PEP 263 cookie or BOM (default UTF-8); returns (text, encoding)."""
    if b"\x00" in raw:
        raise SourceError("file contains a null byte (binary file?)")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError as exc:
        raise SourceError(f"bad encoding declaration: {exc}") from exc
    try:
        text = raw.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        line = raw[: getattr(exc, "start", 0)].count(b"\n") + 1
        raise SourceError(f"cannot decode as {encoding}: {exc}", line=line) from exc
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, encoding


def split_lines(text: str) -> List[str]:
    """Lines as the tokenizer counts them (only \\r\\n, \\r and \\n end a line)."""
    return _NEWLINE.split(text)


def char_column(line_text: str, byte_offset: int) -> int:
    """ast reports UTF-8 byte offsets; users and flake8 count characters."""
    if line_text.isascii():
        return byte_offset
    return len(line_text.encode("utf-8")[:byte_offset].decode("utf-8", errors="replace"))


def read_regular_file(path: str, limit: int) -> bytes:
    """At most `limit` bytes of `path`. A FIFO or device named `*.py` is refused instead of
    read (opening a FIFO for reading would wait forever for a writer)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        return handle.read(limit)
