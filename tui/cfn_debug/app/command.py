"""`cfn-debug ui` (and plain `cfn-debug [PROJECT_DIR]`): open the dashboard; `cfn-debug open
TRANSCRIPT`: show a saved session in it, read-only."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from cfn_debug.app.app import CfnDebugApp
from cfn_debug.app.config import AppConfig
from cfn_debug.app.opening import read_session
from cfn_debug.errors import ExitCode, JournalError
from cfn_debug.options import (
    add_aws_options,
    add_debug_options,
    add_hook_settings_option,
    add_target_options,
)


def add_ui_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `cfn-debug ui`."""
    parser.add_argument("project_dir", nargs="?", metavar="PROJECT_DIR")
    add_target_options(parser)
    add_hook_settings_option(parser)
    add_aws_options(parser)
    parser.add_argument("--watch", action="store_true", help="re-run on every save")
    add_debug_options(parser)
    parser.add_argument(
        "--no-read-back",
        action="store_true",
        help="do not READ the resource after a CREATE or UPDATE ends SUCCESS",
    )
    parser.add_argument(
        "--build",
        metavar="CMD",
        help="in watch mode: shell command run before each re-run (e.g. 'sam build'); "
        "a failed build is shown and nothing re-runs",
    )
    parser.add_argument(
        "--journal",
        metavar="FILE",
        help="write the session journal here (default: a new file under "
        "$XDG_STATE_HOME/cfn-debug/journals)",
    )
    parser.add_argument(
        "--screenshot-dir",
        metavar="DIR",
        help="where Ctrl+S saves screenshots (default: $XDG_STATE_HOME/cfn-debug/screenshots)",
    )


def ui_command(args: argparse.Namespace) -> int:
    return _run(AppConfig.from_args(args))


def add_open_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `cfn-debug open`."""
    parser.add_argument(
        "transcript", metavar="TRANSCRIPT", help="JSON transcript or session journal (.jsonl)"
    )
    parser.add_argument(
        "--screenshot-dir",
        metavar="DIR",
        help="where Ctrl+S saves screenshots (default: $XDG_STATE_HOME/cfn-debug/screenshots)",
    )


def open_command(args: argparse.Namespace) -> int:
    """Reopen a JSON transcript or a session journal: no endpoint starts, nothing runs."""
    path = Path(args.transcript)
    if not path.exists():
        raise JournalError(
            "no such file (expected a JSON transcript or a .jsonl session journal)",
            path=path,
        )
    # Read before the dashboard starts: a file that is no transcript is a one-line error, exit 2.
    saved = read_session(path)
    return _run(dataclasses.replace(AppConfig.from_args(args), transcript=path, saved=saved))


def _no_terminal() -> str | None:
    """Why the dashboard cannot draw here (no terminal on stdin or stdout), else None."""
    for name, stream in (("stdin", sys.stdin), ("stdout", sys.stdout)):
        try:
            if stream is None or not stream.isatty():
                return f"{name} is not a terminal"
        except (AttributeError, ValueError):  # closed or replaced
            return f"{name} is not a terminal"
    return None


def _run(config: AppConfig) -> int:
    missing = _no_terminal()
    if missing is not None:  # without one Textual would spin a core waiting for input
        print(
            f"cfn-debug: error: the dashboard needs a terminal ({missing}); "
            "use `cfn-debug run EVENT` for a headless run",
            file=sys.stderr,
        )
        return ExitCode.ERROR
    app = CfnDebugApp(config)
    try:
        app.run()
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED
    except Exception as error:  # the terminal went away, or similar: one line, no traceback
        print(
            f"cfn-debug: error: the dashboard stopped: {type(error).__name__}: {error}",
            file=sys.stderr,
        )
        return ExitCode.ERROR
    finally:
        journal = app.journal
        if journal is not None and journal.path.exists():
            print(f"cfn-debug: session journal: {journal.path}", file=sys.stderr)
    return app.return_code or 0
