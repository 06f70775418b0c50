"""The Runtime API's peer check per new connection (endpoint/peer.peer_in_tree): the peer's
socket looked up by netlink's socket diagnostics against the /proc/net/tcp scan it falls back to.

Each round connects a client to a loopback listener in this process (the "worker": the check
then finds the client's socket among this process's descriptors, as it finds the runtime's in a
worker) and times ``peer_in_tree`` on the accepted connection; the median over the rounds is
printed for each route, with the number of TCP sockets the /proc scan reads (its cost grows with
them).

    python bench/peer_check.py [--rounds N]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import time
from collections.abc import Callable

from cfn_debug.endpoint import peer


def _median_us(rounds: int) -> float:
    times = []
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        for _ in range(rounds):
            with socket.create_connection(listener.getsockname()) as _client:
                accepted, _ = listener.accept()
                with accepted:
                    start = time.perf_counter()
                    found = peer.peer_in_tree(accepted, os.getpid())
                    times.append(time.perf_counter() - start)
                    if not found:
                        raise SystemExit("the peer check did not find this process's own socket")
    return statistics.median(times) * 1e6


def _proc_only() -> Callable[[int, int], int | None]:
    def unanswered(_peer_port: int, _listener_port: int) -> int | None:
        raise peer._Unanswered

    return unanswered


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=300)
    args = parser.parse_args()
    with open(peer.TABLES[0], encoding="ascii") as table:
        sockets = sum(1 for _ in table) - 1
    netlink = _median_us(args.rounds)
    original = peer._diag_inode
    peer._diag_inode = _proc_only()
    try:
        proc = _median_us(args.rounds)
    finally:
        peer._diag_inode = original
    print(f"peer check per new connection (median of {args.rounds}; {sockets} IPv4 TCP sockets)")
    print(f"  netlink sock_diag: {netlink:8.1f} us")
    print(f"  /proc/net/tcp:     {proc:8.1f} us  ({proc / netlink:.0f}x)")


if __name__ == "__main__":
    main()
