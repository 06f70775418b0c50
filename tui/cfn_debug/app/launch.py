"""`cfn-debug ui` (and plain `cfn-debug [PROJECT_DIR]`): open the dashboard; `cfn-debug open
TRANSCRIPT`: show a saved session in it, read-only."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cfn_debug.app.config import AppConfig
from cfn_debug.errors import JournalError


def ui_command(args: argparse.Namespace) -> int:
    return _run(AppConfig.from_args(args))


def open_command(args: argparse.Namespace) -> int:
    """Reopen a JSON transcript or a session journal: no endpoint starts, nothing runs."""
    from cfn_debug.export.json import load_session

    path = Path(args.transcript)
    if not path.exists():
        raise JournalError(
            "no such file (expected a JSON transcript or a .jsonl session journal)",
            path=path,
        )
    # A file that is no transcript (or a FIFO, or garbage) is one line and exit 2 here, before any
    # screen is drawn; the dashboard loads it again (a valid session only).
    load_session(path)
    return _run(AppConfig(transcript=path))


def _run(config: AppConfig) -> int:
    from cfn_debug.app.app import CfnDebugApp

    app = CfnDebugApp(config)
    try:
        app.run()
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # the terminal went away, or similar: one line, no traceback
        print(
            f"cfn-debug: error: the dashboard stopped: {type(error).__name__}: {error}",
            file=sys.stderr,
        )
        return 2
    return app.return_code or 0
