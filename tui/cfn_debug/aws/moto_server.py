"""moto's threaded server behind cfn-debug's screen (moto_screen.py), its global CORS off.

Imported by the local AWS process only (moto_main.py), after it has set botocore up: moto's
models build boto3 sessions when they are imported. moto reads ``MOTO_DISABLE_GLOBAL_CORS``
when it is imported, so this module sets it before importing moto.
"""

from __future__ import annotations

import os
from typing import Any

os.environ["MOTO_DISABLE_GLOBAL_CORS"] = "true"  # before moto is imported, just below

from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from werkzeug.serving import make_server

from cfn_debug.aws.moto_screen import screened


def serve(address: str = "127.0.0.1") -> Any:
    """moto's threaded server on ``address`` (a free port), CORS off, behind the screen; not yet
    serving (call ``serve_forever`` on a thread)."""
    app = DomainDispatcherApplication(create_backend_app)
    return make_server(
        address, 0, screened(app, address), threaded=True, request_handler=MotoRequestHandler
    )
