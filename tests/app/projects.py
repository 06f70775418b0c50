"""Small resource-type projects generated for dashboard tests (handlers without the library)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

#: CREATE answers IN_PROGRESS (no delay) until it has been invoked ``limit`` times, then SUCCESS.
COUNTING_HANDLER = textwrap.dedent(
    """
    import time

    LIMIT = {limit}
    PAUSE_S = {pause}


    def test_entrypoint(event, context):
        time.sleep(PAUSE_S)
        count = (event.get("callbackContext") or {{}}).get("count", 0) + 1
        model = dict(event["request"].get("desiredResourceState") or {{}})
        model["ThingId"] = "thing-1"
        if count >= LIMIT:
            return {{"status": "SUCCESS", "resourceModel": model, "message": "",
                     "callbackDelaySeconds": 0}}
        return {{"status": "IN_PROGRESS", "resourceModel": model, "message": "",
                 "callbackContext": {{"count": count}}, "callbackDelaySeconds": 0}}
    """
)

SCHEMA = {
    "typeName": "Test::Chain::Thing",
    "description": "A resource whose create handler re-invokes itself N times.",
    "properties": {"ThingId": {"type": "string"}, "Name": {"type": "string"}},
    "additionalProperties": False,
    "required": ["Name"],
    "readOnlyProperties": ["/properties/ThingId"],
    "primaryIdentifier": ["/properties/ThingId"],
    "handlers": {
        "create": {"permissions": [], "timeoutInMinutes": 120},
        "read": {"permissions": []},
        "delete": {"permissions": []},
    },
}

TEMPLATE = """\
AWSTemplateFormatVersion: "2010-09-09"
Transform: AWS::Serverless-2016-10-31
Resources:
  TestEntrypoint:
    Type: AWS::Serverless::Function
    Properties:
      Handler: test_chain.handlers.test_entrypoint
      Runtime: python3.11
      CodeUri: src/
      Timeout: 60
"""


def counting_project(root: Path, invocations: int, *, pause_s: float = 0.0) -> Path:
    """A project whose create.json chain has exactly ``invocations`` steps (each invocation
    sleeps ``pause_s`` first: a chain a test can act on while it runs)."""
    package = root / "src" / "test_chain"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "handlers.py").write_text(COUNTING_HANDLER.format(limit=invocations, pause=pause_s))
    (root / "test-chain-thing.json").write_text(json.dumps(SCHEMA, indent=2))
    (root / ".rpdk-config").write_text(
        json.dumps(
            {
                "typeName": SCHEMA["typeName"],
                "language": "python311",
                "runtime": "python3.11",
                "entrypoint": "test_chain.handlers.resource",
                "testEntrypoint": "test_chain.handlers.test_entrypoint",
            }
        )
    )
    (root / "template.yml").write_text(TEMPLATE)
    events = root / "sample_events"
    events.mkdir()
    event = {
        "action": "CREATE",
        "request": {
            "desiredResourceState": {"Name": "thing"},
            "logicalResourceIdentifier": "Thing",
        },
        "callbackContext": None,
    }
    (events / "create.json").write_text(json.dumps(event, indent=2))
    return root
