"""Process trees from Linux /proc: the descendants of a worker, their memory, and killing them all.

Used on both sides of the fork server: by the endpoint (memory of a worker and its children) and by
the fork server program (killing a worker with everything it started). It imports nothing from
cfn_debug, because the fork server runs it in the project's interpreter, where cfn_debug may not be
installed. Off Linux (no /proc) every function answers "nothing found".

Which processes belong to a worker: every descendant by parent pid (setsid children included),
plus every process in a session or process group the worker leads (a worker leads its process
group, in the endpoint's session). A forked worker is a child subreaper, so an orphan among its
descendants (a double-forked, setsid daemon) is reparented to the worker and stays in its tree.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterable
from typing import Any

PROC = "/proc"


def _stat(pid: str) -> tuple[int, int, int, str] | None:
    """(ppid, pgid, sid, state) of a process, None when it is gone."""
    try:
        with open(f"{PROC}/{pid}/stat", "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    fields = data.rsplit(b")", 1)[-1].split()
    try:
        return int(fields[1]), int(fields[2]), int(fields[3]), fields[0].decode("ascii", "replace")
    except (IndexError, ValueError):
        return None


def table() -> dict[int, tuple[int, int, int, str]]:
    """pid -> (ppid, pgid, sid, state) of every live process (zombies included)."""
    found: dict[int, tuple[int, int, int, str]] = {}
    try:
        entries = os.listdir(PROC)
    except OSError:
        return found
    for entry in entries:
        if entry.isdigit():
            info = _stat(entry)
            if info is not None:
                found[int(entry)] = info
    return found


def members(
    roots: Iterable[int], procs: dict[int, tuple[int, int, int, str]] | None = None
) -> set[int]:
    """The descendants of ``roots`` by parent pid, plus every process in a session or process
    group one of them leads (and their descendants); the roots themselves excluded."""
    procs = table() if procs is None else procs
    heads = set(roots)
    children: dict[int, list[int]] = {}
    stack = list(heads)
    for pid, (ppid, pgid, sid, _state) in procs.items():
        children.setdefault(ppid, []).append(pid)
        if pgid in heads or sid in heads:
            stack.append(pid)
    found: set[int] = set()
    while stack:
        pid = stack.pop()
        if pid not in heads:
            found.add(pid)
        for child in children.get(pid, ()):
            if child not in found and child not in heads:
                found.add(child)
                stack.append(child)
    return found


def _signal_all(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            continue


def kill_tree(root: int, *, include_root: bool = True, rounds: int = 20) -> set[int]:
    """SIGKILL ``root`` and every process of its tree; returns the pids signalled.

    Each process found is stopped (SIGSTOP) before the next scan, so nothing in the tree can fork
    a new child between a scan and the kill; scanning repeats until a scan finds nothing new.
    """
    frozen: set[int] = set()
    if include_root:
        _signal_all([root], signal.SIGSTOP)
    for _ in range(rounds):
        fresh = members([root, *frozen]) - frozen
        if not fresh:
            break
        _signal_all(fresh, signal.SIGSTOP)
        frozen |= fresh
    doomed = frozen | ({root} if include_root else set())
    _signal_all(doomed, signal.SIGKILL)
    _signal_all(doomed, signal.SIGCONT)  # a stopped process dies only once it runs again
    return doomed


def own_group() -> dict[str, Any]:
    """subprocess.Popen's arguments for a child that leads a process group of its own in our
    session (see worker_main.leave_terminal); Python 3.10 has no ``process_group``: a session."""
    if sys.version_info >= (3, 11):
        return {"process_group": 0}
    return {"start_new_session": True}


def rss_kb(pid: int) -> int | None:
    """VmRSS of one process in kB, None when it cannot be read."""
    return _status_kb(pid, "VmRSS:")


def tree_memory_kb(root: int) -> int | None:
    """Memory a worker holds with its children: its resident set plus each descendant's private
    (anonymous) resident memory, so pages a forked child still shares are not counted twice."""
    own = rss_kb(root)
    if own is None:
        return None
    return own + sum(_status_kb(pid, "RssAnon:") or 0 for pid in members([root]))


def _status_kb(pid: int, key: str) -> int | None:
    try:
        with open(f"{PROC}/{pid}/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith(key):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None
