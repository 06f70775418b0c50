"""Which process is at the other end of a loopback TCP connection, from Linux /proc.

A worker's Runtime API listens on 127.0.0.1 and must serve only the worker's own runtime: the
worker process or one of its descendants (a Node, Go or Java runtime the worker started). Loopback
TCP carries no credentials, so the listener asks the kernel: the peer's socket is the entry of
/proc/net/tcp (or tcp6, for an IPv4-mapped peer) whose local port is the connection's remote port
and whose remote port is the listener's; its inode names the socket, and the process holding it
has a ``socket:[INODE]`` link under /proc/PID/fd. Only the worker and its descendants are looked
at (the worker first: it is the usual caller), so a check costs one read of the socket table and
a few readlinks, once per new connection (the runtime clients keep theirs alive).

It imports nothing from cfn_debug but proctree (which imports nothing either). Off Linux (no
/proc/net/tcp) nothing can be looked up: ``peer_in_tree`` then answers True, and the Host,
Origin and Sec-Fetch screen is what remains (see runtime_api).
"""

from __future__ import annotations

import os
import socket

from cfn_debug.endpoint import proctree

TABLES = ("/proc/net/tcp", "/proc/net/tcp6")
#: The remote address of a peer's socket connected to 127.0.0.1 (as /proc/net/tcp writes it),
#: and the same as an IPv4-mapped IPv6 address (/proc/net/tcp6).
_LOOPBACK_V4 = "0100007F"
_LOOPBACK_MAPPED = "0000000000000000FFFF00000100007F"


def available() -> bool:
    """Whether this system has the socket table the check reads (Linux)."""
    return os.path.exists(TABLES[0])


def socket_inode(peer_port: int, listener_port: int) -> int | None:
    """The inode of the socket bound to ``peer_port`` and connected to ``listener_port`` on
    127.0.0.1, None when no such socket is listed (the peer is gone, or not on loopback)."""
    local_suffix = f":{peer_port:04X}"
    remotes = (f"{_LOOPBACK_V4}:{listener_port:04X}", f"{_LOOPBACK_MAPPED}:{listener_port:04X}")
    for table in TABLES:
        try:
            with open(table, encoding="ascii", errors="replace") as handle:
                next(handle, None)  # the column titles
                for line in handle:
                    fields = line.split()
                    if len(fields) < 10:
                        continue
                    if fields[1].endswith(local_suffix) and fields[2] in remotes:
                        inode = int(fields[9])
                        return inode or None
        except (OSError, ValueError):
            continue
    return None


def holds(pid: int, inode: int) -> bool:
    """Whether process ``pid`` has socket ``inode`` open (False when it cannot be looked at)."""
    target = f"socket:[{inode}]"
    directory = f"{proctree.PROC}/{pid}/fd"
    try:
        entries = os.listdir(directory)
    except OSError:
        return False
    for entry in entries:
        try:
            if os.readlink(f"{directory}/{entry}") == target:
                return True
        except OSError:
            continue
    return False


def peer_in_tree(sock: socket.socket, root: int | None) -> bool:
    """Whether the peer of the accepted loopback ``sock`` is process ``root`` or one of its
    descendants. False when ``root`` is unknown or the peer cannot be found; True off Linux,
    where it cannot be looked up (see the module docstring)."""
    if not available():
        return True
    if root is None:
        return False
    try:
        peer_port = int(sock.getpeername()[1])
        listener_port = int(sock.getsockname()[1])
    except (OSError, IndexError, TypeError, ValueError):
        return False
    inode = socket_inode(peer_port, listener_port)
    if inode is None:
        return False
    if holds(root, inode):
        return True
    return any(holds(pid, inode) for pid in sorted(proctree.members([root])))
