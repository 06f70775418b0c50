"""Report what the worker process looks like from inside: the facts a fork must not change."""

import os
import random
import signal
import sys
import threading
import time

IMPORTED_AT = time.time()


def _disposition(sig):
    handler = signal.getsignal(sig)
    if handler is signal.SIG_DFL:
        return "default"
    if handler is signal.SIG_IGN:
        return "ignore"
    return getattr(handler, "__name__", repr(handler))


def _terminal():
    """tty_nr of /proc/self/stat: 0 when the process has no controlling terminal."""
    with open("/proc/self/stat", "rb") as stat:
        return int(stat.read().rsplit(b")", 1)[1].split()[4])


def handler(event, context):
    stdin, null = os.fstat(0), os.stat(os.devnull)
    return {
        "pid": os.getpid(),
        "ppid": os.getppid(),
        "session_leader": os.getsid(0) == os.getpid(),
        "group_leader": os.getpgid(0) == os.getpid(),
        "session": os.getsid(0),
        "terminal": _terminal(),
        "local_zone": time.strftime("%Z", time.localtime(0)),
        "random": random.random(),
        "signals": {
            name: _disposition(getattr(signal, name))
            for name in ("SIGINT", "SIGTERM", "SIGCHLD", "SIGPIPE", "SIGHUP")
        },
        "blocked": sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, [])),
        "stdin_is_null": (stdin.st_dev, stdin.st_ino) == (null.st_dev, null.st_ino),
        "threads": threading.active_count(),
        "argv0": os.path.basename(sys.argv[0]),
        "sys_path_0": sys.path[0],
        "cwd": os.getcwd(),
        "yaml_loaded": "yaml" in sys.modules,
        "dont_write_bytecode": sys.dont_write_bytecode,
        "stdout": [sys.stdout.fileno(), sys.stdout.write_through, sys.stdout.encoding],
        "stderr": [sys.stderr.fileno(), sys.stderr.errors],
    }
