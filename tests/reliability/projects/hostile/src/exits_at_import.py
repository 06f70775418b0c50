"""A handler module that kills its own process while being imported."""

import os
import sys

print("exits_at_import: leaving during import", flush=True)
sys.stdout.flush()
os._exit(7)


def handler(event, context):  # never reached
    return {"status": "SUCCESS"}
