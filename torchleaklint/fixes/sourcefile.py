"""Reading a file for fixing and writing it back without disturbing it: same encoding
(a BOM stays a BOM), line endings kept by libcst, permissions, owner and extended
attributes kept, replaced atomically (a crash mid-write leaves the old file, never half a
file), and never over an edit made since it was read.

Reading goes through the lint path's guarded reader (`read_regular_file`): a FIFO or device
swapped in between lint and fix is refused, not waited on. Just before the replace, the
file is read again and compared with the bytes the fix was computed on; if anything changed
(an editor saved, another fixer wrote), the file is left alone (`ChangedWhileFixing`). The
replacement is prepared completely before that check, so what remains between the check and
the rename is two system calls (no portable compare-and-swap of a file exists).

A file with several hard links is rewritten in place after the same check (as editors that
keep links do), because a replace would split the links; that write is not atomic against
a crash.
"""

from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import dataclass
from typing import Optional

from torchleaklint.source import MAX_FILE_BYTES, SourceError, decode, read_regular_file


class WriteError(Exception):
    """The fixed file could not be written (read-only, vanished directory...)."""


class ChangedWhileFixing(WriteError):
    """The file no longer holds the text the fix was computed on: left alone."""


@dataclass(frozen=True)
class SourceFile:
    path: str
    text: str
    encoding: str
    raw: Optional[bytes] = None  # the bytes read: what the file must still hold when written

    @classmethod
    def read(cls, path: str) -> "SourceFile":
        raw = read_regular_file(path, MAX_FILE_BYTES + 1)
        if len(raw) > MAX_FILE_BYTES:
            raise SourceError(f"file is larger than {MAX_FILE_BYTES // 1_000_000} MB")
        text, encoding = decode(raw)
        return cls(path, text, encoding, raw)

    def encode(self, text: str) -> bytes:
        # `utf-8-sig` (what tokenize reports for a BOM) writes the BOM back.
        return text.encode(self.encoding)

    def write(self, text: str) -> None:
        write_atomically(self.path, self.encode(text), expected=self.raw)


def write_atomically(path: str, data: bytes, expected: Optional[bytes] = None) -> None:
    """Replace `path`'s content with `data`; with `expected`, only if the file still holds
    exactly those bytes (else ChangedWhileFixing, and the file is untouched)."""
    target = os.path.realpath(path)  # replace what a symlink points at, not the link
    status = os.stat(target)
    mode = stat.S_IMODE(status.st_mode)
    # A file without write permission bits is read-only on purpose, even for root (who
    # os.access would let through): report it, never replace it.
    if not os.access(target, os.W_OK) or not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        raise WriteError(f"{path} is not writable")
    if status.st_nlink > 1 and stat.S_ISREG(status.st_mode):
        _write_in_place(path, target, data, expected)
        return
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
        _copy_xattrs(target, temp)
        _check_unchanged(path, target, expected)
        os.replace(temp, target)
    except (OSError, WriteError) as exc:
        if os.path.exists(temp):
            os.unlink(temp)
        if isinstance(exc, WriteError):
            raise
        raise WriteError(f"cannot write {path}: {exc.strerror or exc}") from exc


def _check_unchanged(path: str, target: str, expected: Optional[bytes]) -> None:
    if expected is None:
        return
    try:
        current = read_regular_file(target, len(expected) + 1)
    except OSError as exc:
        raise ChangedWhileFixing(f"{path} changed while fixing; not fixed") from exc
    if current != expected:
        raise ChangedWhileFixing(f"{path} changed while fixing; not fixed")


def _write_in_place(path: str, target: str, data: bytes, expected: Optional[bytes]) -> None:
    """Rewrite the file's own inode (its hard links see the fix), after checking through
    the same descriptor that it still holds `expected`."""
    try:
        fd = os.open(target, os.O_RDWR | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise WriteError(f"cannot write {path}: {exc.strerror or exc}") from exc
    with os.fdopen(fd, "r+b") as handle:
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise ChangedWhileFixing(f"{path} changed while fixing; not fixed")
            if expected is not None and handle.read(len(expected) + 1) != expected:
                raise ChangedWhileFixing(f"{path} changed while fixing; not fixed")
            handle.seek(0)
            handle.write(data)
            handle.truncate()
            handle.flush()
            os.fsync(fd)
        except OSError as exc:
            raise WriteError(f"cannot write {path}: {exc.strerror or exc}") from exc


def _copy_xattrs(source: str, destination: str) -> None:
    """Extended attributes (SELinux labels, macOS-style metadata, user.* tags) would be
    dropped by the replace; copy those this process may set."""
    if not hasattr(os, "listxattr"):
        return
    try:
        names = os.listxattr(source)
    except OSError:
        return
    for name in names:
        try:
            os.setxattr(destination, name, os.getxattr(source, name))
        except OSError:  # e.g. security.* without privilege: as cp --preserve=xattr does
            pass


def _keep_owner(temp: str, status: os.stat_result) -> None:
    """The replacement belongs to whoever owned the file (root fixing a user's checkout
    must not leave root-owned files behind); only a privileged process can do that."""
    if not hasattr(os, "chown") or (status.st_uid, status.st_gid) == (os.geteuid(), os.getegid()):
        return
    try:
        os.chown(temp, status.st_uid, status.st_gid)
    except PermissionError:  # an unprivileged user: the file becomes theirs, as with any editor
        pass
