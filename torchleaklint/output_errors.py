"""A report that cannot be written (a closed pipe: `torchleaklint . | head`; a full disk;
a quota) is one clear line on stderr and exit status 2, even with `--exit-zero`: the
caller did not get the findings, so the run did not succeed. Never a traceback."""

from __future__ import annotations

import errno
import os
import sys

# What writing to stdout raises when the output, not the program, is the problem.
OUTPUT_ERRNOS = frozenset({errno.EPIPE, errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})


def report_unwritable_output(exc: OSError) -> None:
    _silence(sys.stdout)  # what is still buffered would fail again when Python exits
    try:
        sys.stderr.write(f"torchleaklint: error: cannot write the report: {exc.strerror or exc}\n")
        sys.stderr.flush()
    except (OSError, ValueError):  # stderr is gone too: the exit status still says it
        _silence(sys.stderr)


def _silence(stream) -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
