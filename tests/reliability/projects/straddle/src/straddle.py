"""Print one long line in which the request's credentials start ``offset`` bytes before 64 KiB.

The endpoint reads a worker's output 65,536 bytes at a time, so each credential is cut by a read.
"""

from __future__ import annotations

import sys
from typing import Any

READ = 65_536


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    credentials = event["credentials"]
    offset = int(event["offset"])
    for key in ("accessKeyId", "secretAccessKey", "sessionToken"):
        value = credentials[key]
        line = "x" * (READ - offset) + value + " tail"
        sys.stdout.write(line + "\n")
    sys.stdout.flush()
    return {"status": "SUCCESS", "message": "", "resourceModel": {"Offset": offset}}
