"""`torchleaklint server`: the language server (LSP over stdio) for editors.

Built on `pygls` and `lsprotocol`, which are an optional extra (`pip install
"torchleaklint[lsp]"`) so that the command line and the pre-commit hook stay light; nothing
in this package imports them until the server starts.
"""

from __future__ import annotations

import sys

INSTALL_HINT = ('torchleaklint: error: `torchleaklint server` needs the language server dependencies '
                '(pygls, lsprotocol); install them with: pip install "torchleaklint[lsp]"')


def start() -> int:
    """Serve over stdin/stdout until the client exits; the exit status (2 when the extra
    is not installed, with a message saying how to get it)."""
    try:
        import lsprotocol  # noqa: F401
        import pygls  # noqa: F401
    except ImportError:
        sys.stderr.write(INSTALL_HINT + "\n")
        return 2
    from torchleaklint.server.app import serve

    serve()
    return 0
