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
    path = Path(args.transcript)
    if not path.is_file():
        raise JournalError(
            "no such file (expected a JSON transcript or a .jsonl session journal)",
            path=path,
        )
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
