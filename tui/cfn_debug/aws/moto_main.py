"""The local AWS process: moto's server on 127.0.0.1, for as long as its parent keeps stdin open.

Run as ``python -m cfn_debug.aws.moto_main``. It prints one line, ``{"port": N}``, once it
listens, and stops when stdin reaches end of file: when cfn-debug closes it, or when cfn-debug
dies in any way (the kernel closes the pipe), so a local AWS never outlives its session.
moto serves behind cfn-debug's screen, its CORS off (moto_screen.py, moto_server.py): no web
page reaches it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
import threading
import warnings

# moto imports them: imported first, share_botocore_setup sets them up at once (see main)
import botocore.hooks
import botocore.loaders  # noqa: F401

from cfn_debug.endpoint.aws_recorder import share_botocore_setup


def _warm_up() -> None:
    # the request that needs them will say what is wrong, if anything
    with contextlib.suppress(Exception):
        # lazy: on a thread once the port is announced (with it, moto's CloudFormation parser)
        import moto.cloudformation.responses  # noqa: F401


def main() -> int:
    warnings.simplefilter("ignore")  # "not supported by moto" warnings: setup_stack reports them
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request
    # moto's EC2 models build three boto3 sessions at import, each parsing botocore's endpoint
    # data and EC2 model again: the sessions share them, as a handler's worker's do
    share_botocore_setup()
    try:
        # lazy: moto builds boto3 sessions when imported: after share_botocore_setup above
        from cfn_debug.aws import moto_server

        server = moto_server.serve("127.0.0.1")
    except ImportError as error:
        print(json.dumps({"error": f"moto's server is not installed: {error}"}), flush=True)
        return 2
    except OSError as error:
        print(json.dumps({"error": f"cannot listen on 127.0.0.1: {error}"}), flush=True)
        return 2
    port = int(server.server_address[1])
    serving = threading.Thread(target=server.serve_forever, name="moto", daemon=True)
    serving.start()
    print(json.dumps({"port": port}), flush=True)
    # The setup stack comes next: its CloudFormation parser imports most of moto's backends,
    # which takes longer than anything else here. Import them now, while cfn-debug loads boto3.
    threading.Thread(target=_warm_up, name="warm-up", daemon=True).start()
    try:
        while sys.stdin.buffer.read(4096):
            pass
    except (KeyboardInterrupt, OSError):
        pass
    # moto keeps everything in memory: nothing to save, so no shutdown() (which waits for the
    # serving loop's next poll, up to half a second); the process ends here
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
