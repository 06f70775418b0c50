"""Stopping inside a handler, on the worker's side: ``breakpoint()``, ``pdb.set_trace()``,
``--break-at`` and ``--debug-port``.

A worker has no terminal (its stdin is /dev/null): a plain ``breakpoint()`` there reads EOF and
raises ``bdb.BdbQuit`` into the handler. ``install`` replaces that with, by the environment the
endpoint gives the worker (the variables are removed from ``os.environ`` so the handler sees
Lambda's environment):

- ``CFN_DEBUG_PDB`` = the path of the endpoint's Unix socket (endpoint/debugchannel.py): pdb
  speaks to cfn-debug over it (the terminal of ``cfn-debug run``, the dashboard's Debugger
  panel), one JSON object per line each way (see ``ChannelPdb``).
- none: a breakpoint is skipped, as ``PYTHONBREAKPOINT=0`` would, with one notice in the log.
- ``CFN_DEBUG_BREAK_AT`` = a JSON list of ``[path, line]``: pdb breakpoints set at start, kept
  for the worker's life (so for every invocation it serves).
- ``CFN_DEBUG_DEBUGPY_PORT`` = PORT: debugpy listens on 127.0.0.1:PORT and the worker waits for
  a client before it asks for its first invocation; ``breakpoint()`` then pauses in that client.

Time spent stopped is not the handler's: around every stop (pdb waiting for input, a debugpy
client paused, the wait for the client) the worker writes a STOPPED and a RESUMED line with the
monotonic clock (system-wide on Linux) to its log channel; the endpoint strips those lines and
takes the time out of the invocation's deadline and duration (endpoint/worker.py). ``q`` in pdb
writes QUIT and ends the worker: the invocation ends as a crash the user asked for.

Like worker_main.py, this file imports nothing from cfn_debug (it is loaded by path).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import shlex
import shutil
import socket
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

PDB_ENV = "CFN_DEBUG_PDB"
BREAK_AT_ENV = "CFN_DEBUG_BREAK_AT"
#: A file: pdb stops at the first line of the first function of it that runs (a replay's entry).
BREAK_ENTRY_ENV = "CFN_DEBUG_BREAK_ENTRY"
DEBUGPY_PORT_ENV = "CFN_DEBUG_DEBUGPY_PORT"
#: Where cfn-debug's own debugpy lives, tried when the handler's interpreter has none.
DEBUGPY_PATH_ENV = "CFN_DEBUG_DEBUGPY_PATH"
ENV_NAMES = (PDB_ENV, BREAK_AT_ENV, BREAK_ENTRY_ENV, DEBUGPY_PORT_ENV, DEBUGPY_PATH_ENV)

#: The lines the worker writes on its log channel (each followed by time.monotonic() and "\n").
MARK_PREFIX = "\x1e__cfn_debug_dbg_"
STOPPED = MARK_PREFIX + "stopped__ "
RESUMED = MARK_PREFIX + "resumed__ "
QUIT = MARK_PREFIX + "quit__ "
#: The worker's exit status after ``q``.
QUIT_EXIT_CODE = 3
#: Frames pdb never stops in: the runtime loop around the handler.
SKIP = ["worker_main", "awslambdaric", "awslambdaric.*", "_cfn_debug_*", "bdb", "pdb"]
SKIP_NOTICE = (
    "[cfn-debug] breakpoint at {where} skipped: this run has no terminal to stop in (as "
    "PYTHONBREAKPOINT=0 does); run `cfn-debug run` in a terminal, the dashboard, or "
    "--debug-port PORT with an IDE to stop there"
)

Mark = Callable[[str], None]


def _no_mark(_line: str) -> None:
    return None


class _State:
    mark: Mark = _no_mark
    channel_path: str | None = None
    pdb: Any = None  # the ChannelPdb, made at the first stop (or at start for --break-at)
    noticed = False
    debugpy: Any = None  # the module, once listening
    stops = 0  # nesting of stopped windows (pdb inside a debugpy pause never happens, but...)


def stopped() -> None:
    """The handler stops here (the endpoint's clock for it pauses)."""
    _State.stops += 1
    if _State.stops == 1:
        _State.mark(f"{STOPPED}{time.monotonic():.6f}")


def resumed() -> None:
    """The handler runs again."""
    if _State.stops <= 0:
        return
    _State.stops -= 1
    if _State.stops == 0:
        _State.mark(f"{RESUMED}{time.monotonic():.6f}")


# --- the channel to cfn-debug -------------------------------------------------------------------


class Channel:
    """One connection to the endpoint's debug socket, opened at first use, kept for the worker's
    life. Worker -> cfn-debug: ``hello``, ``out`` (pdb's output), ``stop`` (where it stopped),
    ``input`` (pdb waits for a line; where it is now), ``go`` (it runs again), ``quit``.
    cfn-debug -> worker: ``line`` (one command). A closed channel reads as EOF (pdb quits)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._sock: socket.socket | None = None
        self._reader: Any = None

    def _connect(self) -> socket.socket:
        if self._sock is None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(self.path)
            self._sock = sock
            self._reader = sock.makefile("rb")
            self.send({"op": "hello", "pid": os.getpid()})
        return self._sock

    def send(self, message: dict[str, Any]) -> None:
        try:
            sock = self._connect()
            sock.sendall(json.dumps(message).encode() + b"\n")
        except OSError:
            self.close()

    def read_line(self) -> str:
        """The next command line ("" at EOF)."""
        try:
            self._connect()
            raw = self._reader.readline()
        except OSError:
            raw = b""
        if not raw:
            self.close()
            return ""
        try:
            message = json.loads(raw)
        except ValueError:
            return "\n"
        text = message.get("text") if isinstance(message, dict) else None
        return (text if isinstance(text, str) else "").rstrip("\n") + "\n"

    def close(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.close()


class _Out:
    def __init__(self, channel: Channel) -> None:
        self._channel = channel
        self.encoding = "utf-8"

    def write(self, text: str) -> int:
        if text:
            self._channel.send({"op": "out", "text": text})
        return len(text)

    def flush(self) -> None:
        return None

    def isatty(self) -> bool:
        return False


class _In:
    def __init__(self, channel: Channel, where: Callable[[], dict[str, Any]]) -> None:
        self._channel = channel
        self._where = where

    def readline(self) -> str:
        self._channel.send({"op": "input", **self._where()})
        return self._channel.read_line()


def _skip() -> list[str]:
    """SKIP, and ``__main__`` when that is worker_main.py (a worker started as a program)."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None) or ""
    return [*SKIP, "__main__"] if os.path.basename(path) == "worker_main.py" else list(SKIP)


def _pdb_module() -> Any:
    """The pdb module, None where it cannot be imported."""
    try:  # lazy: pdb (cmd, bdb, code) only in a worker whose breakpoints cfn-debug handles
        import pdb
    except ImportError:
        return None
    return pdb


def _make_pdb(channel: Channel) -> Any:
    """A ChannelPdb on ``channel``; None without pdb."""
    pdb = _pdb_module()
    if pdb is None:
        return None

    class ChannelPdb(pdb.Pdb):
        """pdb with its input and output on the channel, its stops timed as not the handler's."""

        def __init__(self) -> None:
            super().__init__(
                stdin=_In(channel, self._where),  # type: ignore[arg-type]
                stdout=_Out(channel),  # type: ignore[arg-type]
                skip=_skip(),
                nosigint=True,
                readrc=False,
            )
            self.use_rawinput = False
            self.prompt = "(Pdb) "

        def _where(self) -> dict[str, Any]:
            try:
                frame, line = self.stack[self.curindex]
            except (AttributeError, IndexError, TypeError):
                return {}
            return {
                "file": frame.f_code.co_filename,
                "line": line,
                "function": frame.f_code.co_name,
            }

        def interaction(self, frame: Any, tb: Any) -> None:
            stopped()
            try:
                if frame is not None:
                    line = tb.tb_lineno if tb is not None else frame.f_lineno
                    channel.send(
                        {
                            "op": "stop",
                            "file": frame.f_code.co_filename,
                            "line": line,
                            "function": frame.f_code.co_name,
                        }
                    )
                super().interaction(frame, tb)
            finally:
                channel.send({"op": "go"})
                resumed()

        def do_quit(self, arg: str) -> bool | None:
            """End the invocation: the worker exits (a crash the user asked for)."""
            _State.mark(f"{QUIT}{time.monotonic():.6f}")
            channel.send({"op": "quit"})
            channel.close()
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()
            os._exit(QUIT_EXIT_CODE)

        do_q = do_exit = do_quit

        def do_EOF(self, arg: str) -> bool | None:
            """cfn-debug went away, or the user sent end-of-file: as ``q``."""
            return self.do_quit(arg)

    return ChannelPdb()


def _debugger() -> Any:
    if _State.pdb is None and _State.channel_path is not None:
        _State.pdb = _make_pdb(Channel(_State.channel_path))
    return _State.pdb


def _where(frame: Any) -> str:
    return f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}"


def breakpoint_hook(*_args: Any, **_kwargs: Any) -> None:
    """sys.breakpointhook: stop in the connected IDE, else in pdb on the channel, else skip."""
    frame = sys._getframe(1)
    if (
        _State.debugpy is not None
        and getattr(_State.debugpy, "is_client_connected", lambda: False)()
    ):
        _State.debugpy.breakpoint()
        return
    debugger = _debugger()
    if debugger is None:
        if not _State.noticed:
            _State.noticed = True
            print(SKIP_NOTICE.format(where=_where(frame)), file=sys.stderr, flush=True)
        return
    debugger.set_trace(frame)


def _set_trace(*, header: str | None = None) -> None:
    """pdb.set_trace, routed like breakpoint()."""
    frame = sys._getframe(1)
    debugger = _debugger() if _State.debugpy is None else None
    if debugger is None:
        breakpoint_hook()
        return
    if header is not None:
        debugger.message(header)
    debugger.set_trace(frame)


def _break_at(entries: Any) -> None:
    """pdb breakpoints from ``--break-at``: set now, in a tracer that stops only there."""
    debugger = _debugger()
    if debugger is None or not isinstance(entries, list):
        return
    placed = False
    for entry in entries:
        if not (isinstance(entry, list) and len(entry) == 2):
            continue
        path, line = entry
        if not isinstance(path, str) or not isinstance(line, int):
            continue
        error = debugger.set_break(os.path.abspath(path), line)
        if error:
            print(f"[cfn-debug] --break-at {path}:{line}: {error}", file=sys.stderr, flush=True)
        else:
            placed = True
    if not placed:
        return
    # What Bdb.set_trace does, in "continue" mode: trace every frame, stop only at a breakpoint.
    frame = sys._getframe(2)
    debugger.reset()
    while frame is not None:
        frame.f_trace = debugger.trace_dispatch
        debugger.botframe = frame
        frame = frame.f_back
    debugger._set_stopinfo(debugger.botframe, None, -1)
    sys.settrace(debugger.trace_dispatch)


def _break_entry(path: str) -> None:
    """Stop at the first line of the first function of ``path`` that runs, once: a tracer that
    looks only at calls (no line events) until then."""
    if _debugger() is None:
        return
    target = os.path.realpath(path)
    seen: dict[str, bool] = {}

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        if event != "call":
            return None
        filename = frame.f_code.co_filename
        hit = seen.get(filename)
        if hit is None:
            hit = seen[filename] = os.path.realpath(filename) == target
        if not hit or frame.f_code.co_name == "<module>":
            return None
        sys.settrace(None)
        debugger = _debugger()
        debugger.set_trace(frame)  # stops at the next line event of this frame: its first line
        return debugger.trace_dispatch

    sys.settrace(tracer)


def _patch_pydevd() -> None:
    """Time the debugpy client's pauses: every suspension of a thread goes through
    PyDB.do_wait_suspend, which returns when the client resumes it."""
    pydevd = sys.modules.get("pydevd")
    cls = getattr(pydevd, "PyDB", None) if pydevd is not None else None
    original = getattr(cls, "do_wait_suspend", None)
    if original is None or getattr(original, "_cfn_debug", False):
        return

    def do_wait_suspend(self: Any, *args: Any, **kwargs: Any) -> Any:
        stopped()
        try:
            return original(self, *args, **kwargs)
        finally:
            resumed()

    do_wait_suspend._cfn_debug = True  # type: ignore[attr-defined]
    cls.do_wait_suspend = do_wait_suspend


def _needs_tracing(pydb: Any) -> bool:
    """Whether the IDE asked for anything only a traced thread can give: a line or function
    breakpoint, or a stop on raised exceptions."""
    return bool(
        any(getattr(pydb, "breakpoints", {}).values())
        or getattr(pydb, "function_breakpoint_name_to_breakpoint", None)
        or getattr(pydb, "break_on_caught_exceptions", None)
        or getattr(pydb, "break_on_user_uncaught_exceptions", None)
        or getattr(pydb, "has_plugin_line_breaks", False)
    )


def _trace_as_needed() -> None:
    """Trace the handler's thread for this invocation only when the IDE has something to stop
    at: a traced thread runs every Python call through pydevd's tracer (several times slower),
    which a handler with no breakpoint set should not pay. breakpoint() traces on its own."""
    constants = sys.modules.get("_pydevd_bundle.pydevd_constants")
    pydb = constants.get_global_debugger() if constants is not None else None
    if pydb is None:
        return
    try:
        if _needs_tracing(pydb):
            pydb.enable_tracing()
        else:
            pydb.disable_tracing()
    except Exception:
        return


def _wrap_handler(name: str) -> None:
    """Import the handler's module now and put a wrapper in place of the handler that decides,
    at each invocation, whether its thread is traced (see _trace_as_needed). A module that does
    not import is left to the runtime, which reports it as it always does."""
    module_name, _, attr = name.rpartition(".")
    if not module_name:
        return
    try:
        module = importlib.import_module(module_name.replace("/", "."))
    except BaseException:
        return
    original = getattr(module, attr, None)
    if original is None or not callable(original):
        return

    def handler(event: Any, context: Any) -> Any:
        _trace_as_needed()
        return original(event, context)

    setattr(module, attr, handler)


#: Runs debugpy's adapter with a screen on the IDE's port (see debugpy_screen.py).
SCREEN_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "debugpy_screen.py")


def _screened_adapter(debugpy: Any) -> str | None:
    """Have ``debugpy.listen`` start its adapter through debugpy_screen.py: a launcher (a shell
    script in a private temporary directory, mode 0700) set as debugpy's ``python``. Returns the
    launcher's path (remove its directory once ``listen`` returns), or None where it cannot be
    set (no POSIX shell, a debugpy without ``configure``): the adapter then runs unscreened."""
    if os.name != "posix" or not os.path.exists(SCREEN_SCRIPT):
        return None
    directory = tempfile.mkdtemp(prefix="cfn-debug-debugpy-")
    launcher = os.path.join(directory, "python")
    try:
        with open(launcher, "w", encoding="utf-8") as out:
            out.write(
                f'#!/bin/sh\nexec {shlex.quote(sys.executable)} {shlex.quote(SCREEN_SCRIPT)} "$@"\n'
            )
        os.chmod(launcher, 0o700)
        debugpy.configure(python=launcher)
    except Exception:
        shutil.rmtree(directory, ignore_errors=True)
        return None
    return launcher


def _listen(debugpy: Any, port: int) -> bool:
    """``debugpy.listen`` on 127.0.0.1:PORT, its adapter behind the screen; where the screened
    adapter cannot start (its launcher cannot run, say /tmp mounted noexec) debugpy's own, with
    a line saying the port is unscreened. False (with a line saying why) when it cannot listen."""
    wrapper = _screened_adapter(debugpy)
    try:
        debugpy.listen(("127.0.0.1", port))
        return True
    except Exception as error:  # the port is taken (another warm worker holds it), ...
        failure: Exception = error
    finally:
        if wrapper is not None:  # the adapter has started (or never will): its launcher goes
            shutil.rmtree(os.path.dirname(wrapper), ignore_errors=True)
    if wrapper is not None:
        try:
            debugpy.configure(python=sys.executable)
            debugpy.listen(("127.0.0.1", port))
        except Exception as error:
            failure = error
        else:
            print(
                f"[cfn-debug] debugpy listens on 127.0.0.1:{port} unscreened: the screened "
                f"adapter did not start ({failure})",
                file=sys.stderr,
                flush=True,
            )
            return True
    print(
        f"[cfn-debug] debugpy cannot listen on 127.0.0.1:{port} in this worker: {failure}",
        file=sys.stderr,
        flush=True,
    )
    return False


def _debugpy_module() -> Any:
    """The debugpy module the interpreter finds on ``sys.path``; ImportError when none."""
    import debugpy  # lazy: only for --debug-port

    return debugpy


def _import_debugpy() -> Any:
    """The handler's debugpy, else cfn-debug's own (from DEBUGPY_PATH_ENV); ImportError when
    there is neither."""
    extra = os.environ.get(DEBUGPY_PATH_ENV)
    try:
        return _debugpy_module()
    except ImportError:
        if not extra:
            raise
    sys.path.append(extra)  # only for this import: the handler's path stays its own
    try:
        return _debugpy_module()
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(extra)


def _start_debugpy(port: int, handler: str | None = None) -> None:
    debugpy = _import_debugpy()
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # no note about frozen modules
    if not _listen(debugpy, port):
        return
    _State.debugpy = debugpy
    _patch_pydevd()
    print(
        f"[cfn-debug] waiting for a debugger to attach on 127.0.0.1:{port} (pid {os.getpid()})",
        file=sys.stderr,
        flush=True,
    )
    stopped()
    try:
        debugpy.wait_for_client()
    finally:
        resumed()
    if handler:
        _wrap_handler(handler)


def install(
    mark: Mark | None = None, environ: dict[str, str] | None = None, handler: str | None = None
) -> None:
    """Take over breakpoint() and pdb.set_trace() in this worker; ``mark`` writes one line to the
    worker's log channel (the STOPPED/RESUMED/QUIT lines); ``handler`` (MODULE.ATTR) is the one
    the worker runs (wrapped under --debug-port, see _wrap_handler)."""
    env = os.environ if environ is None else environ
    values = {name: env.pop(name, None) for name in ENV_NAMES}
    _State.mark = mark or _no_mark
    _State.channel_path = values[PDB_ENV] or None
    if values[DEBUGPY_PATH_ENV]:
        env[DEBUGPY_PATH_ENV] = values[DEBUGPY_PATH_ENV]  # read by _start_debugpy only
    # A PYTHONBREAKPOINT of the function's own environment stands (sys.__breakpointhook__
    # reads it); --debug-port and --break-at work either way.
    if not env.get("PYTHONBREAKPOINT"):
        sys.breakpointhook = breakpoint_hook
        pdb = _pdb_module()
        if pdb is not None:
            pdb.set_trace = _set_trace
    port = values[DEBUGPY_PORT_ENV]
    if port and port.isdigit():
        try:
            _start_debugpy(int(port), handler)
        except ImportError:
            print(
                "[cfn-debug] --debug-port: debugpy is not installed for this interpreter "
                f"({sys.executable})",
                file=sys.stderr,
                flush=True,
            )
    env.pop(DEBUGPY_PATH_ENV, None)
    if values[BREAK_ENTRY_ENV] and _State.debugpy is None:
        _break_entry(values[BREAK_ENTRY_ENV])
    if values[BREAK_AT_ENV] and _State.debugpy is None:
        try:
            entries = json.loads(values[BREAK_AT_ENV])
        except ValueError:
            entries = None
        _break_at(entries)
