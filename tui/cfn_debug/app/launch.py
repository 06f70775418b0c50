"""`cfn-debug ui` (and plain `cfn-debug [PROJECT_DIR]`): open the dashboard."""

from __future__ import annotations

import argparse
import sys

from cfn_debug.app.config import AppConfig


def ui_command(args: argparse.Namespace) -> int:
    config = AppConfig.from_args(args)
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
