"""Run debugpy's adapter with a screen on the port the IDE attaches to (``--debug-port``).

The worker starts debugpy's adapter through this script (debughook sets debugpy's ``python`` to
a wrapper that runs it): ``python debugpy_screen.py ADAPTER_DIR ARGS...`` runs the adapter as
``python ADAPTER_DIR ARGS...`` would, with one change: a connection to the IDE port is handed to
the adapter only when its first bytes are a Debug Adapter Protocol header (``Content-Length:``,
what every IDE sends first). A web page can make a browser connect to 127.0.0.1:PORT, but what
it sends always begins with an HTTP request line (``POST / HTTP/1.1``), which debugpy would
otherwise skip over, taking the page's body for a request of its own. Such a connection, or one
that sends nothing within ``FIRST_BYTES_S``, is closed unread.

It runs in the adapter's process, with the handler's interpreter: it imports nothing from
cfn_debug. If debugpy's internals differ from what it patches, it says so on stderr and runs the
adapter unscreened.
"""

from __future__ import annotations

import contextlib
import os
import runpy
import socket
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

#: What a Debug Adapter Protocol client sends first.
DAP_HEADER = b"Content-Length:"
#: How long a new connection may take to send its first bytes.
FIRST_BYTES_S = 10.0


def speaks_dap(sock: socket.socket, wait_s: float = FIRST_BYTES_S) -> bool:
    """Whether the first bytes ``sock`` received (peeked, not consumed) are a DAP header."""
    deadline = time.monotonic() + wait_s
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            sock.settimeout(left)
            seen = sock.recv(len(DAP_HEADER), socket.MSG_PEEK)
            if not seen or not DAP_HEADER.startswith(seen):
                return False
            if len(seen) == len(DAP_HEADER):
                return True
            time.sleep(0.01)  # a header cut short: wait for the rest
    except OSError:
        return False
    finally:
        with contextlib.suppress(OSError):
            sock.settimeout(None)


def screened(handler: Callable[[socket.socket], Any]) -> Callable[[socket.socket], None]:
    """``handler`` for connections that speak DAP; any other is closed. Each new connection
    is looked at on a thread of its own, so one that sends nothing holds up no other."""

    def look(sock: socket.socket) -> None:
        if speaks_dap(sock):
            handler(sock)
            return
        with contextlib.suppress(OSError):
            sock.close()

    def accept(sock: socket.socket) -> None:
        threading.Thread(target=look, args=(sock,), daemon=True).start()

    return accept


def _patch(adapter_dir: str) -> None:
    root = os.path.dirname(os.path.dirname(os.path.abspath(adapter_dir)))
    sys.path.insert(0, root)
    try:  # lazy: debugpy's adapter, found by path, only when --debug-port is given
        from debugpy.common import sockets
    finally:
        del sys.path[0]
    serve = sockets.serve

    def serve_screened(name: str, handler: Any, *args: Any, **kwargs: Any) -> Any:
        if name == "Client":  # the IDE's port (debugpy/adapter/clients.py)
            handler = screened(handler)
        return serve(name, handler, *args, **kwargs)

    sockets.serve = serve_screened


def main() -> None:
    adapter_dir = sys.argv[1]
    try:
        _patch(adapter_dir)
    except Exception as error:  # another debugpy: run its adapter as it is
        print(
            f"[cfn-debug] the debug port is not screened from web pages ({error!r})",
            file=sys.stderr,
            flush=True,
        )
    sys.argv = sys.argv[1:]
    runpy.run_path(adapter_dir, run_name="__main__")


if __name__ == "__main__":
    main()
