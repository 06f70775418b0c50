"""endpoint/peer: the peer of a loopback connection, asked of the kernel by netlink and read
from /proc/net/tcp: both name the client's own socket, for an IPv4 and an IPv4-mapped IPv6
client, and neither names one once the client is gone."""

from __future__ import annotations

import os
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from cfn_debug.endpoint import peer

pytestmark = pytest.mark.skipif(not peer.available(), reason="Linux only (/proc/net/tcp)")


@contextmanager
def connected(family: int) -> Iterator[tuple[socket.socket, socket.socket]]:
    """(client, accepted) over loopback to a 127.0.0.1 listener; an AF_INET6 client connects
    to it by its IPv4-mapped address."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        with socket.socket(family) as client:
            client.connect(("::ffff:127.0.0.1" if family == socket.AF_INET6 else "127.0.0.1", port))
            accepted, _ = listener.accept()
            with accepted:
                yield client, accepted


@pytest.mark.parametrize("family", [socket.AF_INET, socket.AF_INET6])
def test_netlink_and_proc_name_the_clients_own_socket(family: int) -> None:
    with connected(family) as (client, accepted):
        ports = accepted.getpeername()[1], accepted.getsockname()[1]
        inode = os.fstat(client.fileno()).st_ino
        assert peer._diag_inode(*ports) == inode
        assert peer.proc_socket_inode(*ports) == inode
        assert peer.socket_inode(*ports) == inode
        assert peer.peer_in_tree(accepted, os.getpid())
        other = subprocess.Popen(["sleep", "30"])  # holds no copy of the client's socket
        try:
            assert not peer.peer_in_tree(accepted, other.pid)
        finally:
            other.kill()
            other.wait()


def test_a_port_nobody_holds_is_no_socket_for_either() -> None:
    with connected(socket.AF_INET) as (_client, accepted):
        listener_port = accepted.getsockname()[1]
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        free = unused.getsockname()[1]
    assert peer._diag_inode(free, listener_port) is None
    assert peer.proc_socket_inode(free, listener_port) is None


def test_without_netlink_the_proc_tables_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*_args: object) -> None:
        raise peer._Unanswered

    monkeypatch.setattr(peer, "_diag_inode", refused)
    with connected(socket.AF_INET) as (client, accepted):
        ports = accepted.getpeername()[1], accepted.getsockname()[1]
        assert peer.socket_inode(*ports) == os.fstat(client.fileno()).st_ino
