"""Which process is at the other end of a loopback TCP connection (Linux: netlink, /proc).

A worker's Runtime API listens on 127.0.0.1 and must serve only the worker's own runtime: the
worker process or one of its descendants (a Node, Go or Java runtime the worker started). Loopback
TCP carries no credentials, so the listener asks the kernel: the peer's socket is the one whose
local port is the connection's remote port and whose remote port is the listener's (IPv4, or
IPv4-mapped IPv6), looked up by netlink's socket diagnostics (sock_diag), or where that cannot be
asked found in /proc/net/tcp (and tcp6); its inode names the socket, and the process holding it
has a ``socket:[INODE]`` link under /proc/PID/fd. Only the worker and its descendants are looked
at (the worker first: it is the usual caller), so a check costs one lookup and a few readlinks,
once per new connection (the runtime clients keep theirs alive).

It imports nothing from cfn_debug but proctree (which imports nothing either). Off Linux (no
/proc/net/tcp) nothing can be looked up: ``peer_in_tree`` then answers True, and the Host,
Origin and Sec-Fetch screen is what remains (see runtime_api).
"""

from __future__ import annotations

import errno
import os
import socket
import struct

from cfn_debug.endpoint import proctree

TABLES = ("/proc/net/tcp", "/proc/net/tcp6")
#: The remote address of a peer's socket connected to 127.0.0.1 (as /proc/net/tcp writes it),
#: and the same as an IPv4-mapped IPv6 address (/proc/net/tcp6).
_LOOPBACK_V4 = "0100007F"
_LOOPBACK_MAPPED = "0000000000000000FFFF00000100007F"


def available() -> bool:
    """Whether this system has the socket table the check reads (Linux)."""
    return os.path.exists(TABLES[0])


#: Netlink's socket-diagnostics protocol, its request type and flag (linux/sock_diag.h,
#: linux/netlink.h), and the "no cookie" value of an exact lookup (linux/inet_diag.h).
NETLINK_SOCK_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
NLM_F_REQUEST = 1
NLMSG_ERROR = 2
_NO_COOKIE = 0xFFFFFFFF
_ALL_STATES = 0xFFFFFFFF
#: The peer's address as the kernel keys the socket: 127.0.0.1 (AF_INET, padded to 16 bytes) and
#: the same IPv4-mapped (AF_INET6).
_DIAG_ADDRESSES = (
    (socket.AF_INET, socket.inet_pton(socket.AF_INET, "127.0.0.1") + bytes(12)),
    (socket.AF_INET6, socket.inet_pton(socket.AF_INET6, "::ffff:127.0.0.1")),
)
#: Where inet_diag_msg (after the 16-byte netlink header) holds idiag_inode.
_INODE_AT = 16 + 68


class _Unanswered(Exception):
    """Netlink socket diagnostics cannot be asked here (no AF_NETLINK, refused, odd answer)."""


def _diag_inode(peer_port: int, listener_port: int) -> int | None:
    """``socket_inode`` asked of the kernel by netlink (sock_diag, one exact lookup per address
    family); _Unanswered when it cannot be asked."""
    try:
        channel = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_SOCK_DIAG)
    except (AttributeError, OSError) as error:
        raise _Unanswered from error
    with channel:
        for family, address in _DIAG_ADDRESSES:
            sockid = struct.pack("!HH", peer_port, listener_port) + address + address
            sockid += struct.pack("=III", 0, _NO_COOKIE, _NO_COOKIE)
            request = struct.pack("=BBBBI", family, socket.IPPROTO_TCP, 0, 0, _ALL_STATES)
            body = request + sockid
            header = struct.pack("=IHHII", 16 + len(body), SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST, 1, 0)
            try:
                channel.send(header + body)
                answer = channel.recv(8192)
            except OSError as error:
                raise _Unanswered from error
            if len(answer) < 20:
                raise _Unanswered
            kind = struct.unpack_from("=H", answer, 4)[0]
            if kind == SOCK_DIAG_BY_FAMILY and len(answer) >= _INODE_AT + 4:
                inode = int(struct.unpack_from("=I", answer, _INODE_AT)[0])
                return inode or None
            if kind != NLMSG_ERROR:
                raise _Unanswered
            code = -struct.unpack_from("=i", answer, 16)[0]
            if code != errno.ENOENT:  # not "no such socket": the question was not answered
                raise _Unanswered
    return None


def socket_inode(peer_port: int, listener_port: int) -> int | None:
    """The inode of the socket bound to ``peer_port`` and connected to ``listener_port`` on
    127.0.0.1, None when there is no such socket (the peer is gone, or not on loopback). Asked
    of the kernel by netlink (sock_diag: one exact lookup), or read from /proc/net/tcp where
    netlink cannot be asked (a scan of every socket on the machine)."""
    try:
        return _diag_inode(peer_port, listener_port)
    except _Unanswered:
        return proc_socket_inode(peer_port, listener_port)


def proc_socket_inode(peer_port: int, listener_port: int) -> int | None:
    """``socket_inode`` from the /proc/net/tcp and tcp6 tables."""
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
