"""Reading a file for fixing and writing it back without disturbing it: same encoding
(a BOM stays a BOM), line endings kept by libcst, permissions kept, replaced atomically
(a crash mid-write leaves the old file, never half a file)."""

from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import dataclass

from torchleaklint.source import decode


class WriteError(Exception):
    """The fixed file could not be written (read-only, vanished directory...)."""


@dataclass(frozen=True)
class SourceFile:
    path: str
    text: str
    encoding: str

    @classmethod
    def read(cls, path: str) -> "SourceFile":
        with open(path, "rb") as handle:
            raw = handle.read()
        text, encoding = decode(raw)
        return cls(path, text, encoding)

    def encode(self, text: str) -> bytes:
        # `utf-8-sig` (what tokenize reports for a BOM) writes the BOM back.
        return text.encode(self.encoding)

    def write(self, text: str) -> None:
        write_atomically(self.path, self.encode(text))


def write_atomically(path: str, data: bytes) -> None:
    target = os.path.realpath(path)  # replace what a symlink points at, not the link
    status = os.stat(target)
    mode = stat.S_IMODE(status.st_mode)
    # A file without write permission bits is read-only on purpose, even for root (who
    # os.access would let through): report it, never replace it.
    if not os.access(target, os.W_OK) or not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        raise WriteError(f"{path} is not writable")
    directory = os.path.dirname(target) or "."
    try:
        fd, temp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(target)}.", suffix=".tlltmp")
    except OSError as exc:
        raise WriteError(f"cannot write next to {path}: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        _keep_owner(temp, status)
        os.replace(temp, target)
    except OSError as exc:
        if os.path.exists(temp):
            os.unlink(temp)
        raise WriteError(f"cannot write {path}: {exc.strerror or exc}") from exc


def _keep_owner(temp: str, status: os.stat_result) -> None:
    """The replacement belongs to whoever owned the file (root fixing a user's checkout
    must not leave root-owned files behind); only a privileged process can do that."""
    if not hasattr(os, "chown") or (status.st_uid, status.st_gid) == (os.geteuid(), os.getegid()):
        return
    try:
        os.chown(temp, status.st_uid, status.st_gid)
    except PermissionError:  # an unprivileged user: the file becomes theirs, as with any editor
        pass
