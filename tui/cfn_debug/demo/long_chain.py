"""A generated resource-type project whose create chain has exactly N steps (handlers without the
library): the dashboard's long-chain tests (tests/app/projects.py) and bench/tui.py build theirs
with :func:`long_chain_project`, so both measure and test the same chain.

The create handler answers IN_PROGRESS (callbackDelaySeconds 0, its count in callbackContext)
until it has been invoked N times, then SUCCESS; each invocation can sleep first, so a test can act
on a chain while it runs.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

HANDLER = textwrap.dedent(
    """
    import time

    LIMIT = {limit}
    PAUSE_S = {pause}


    def test_entrypoint(event, context):
        if PAUSE_S:
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

TEMPLATE = textwrap.dedent(
    """
    AWSTemplateFormatVersion: "2010-09-09"
    Transform: AWS::Serverless-2016-10-31
    Globals:
      Function:
        Timeout: 60
        MemorySize: 256
    Resources:
      TestEntrypoint:
        Type: AWS::Serverless::Function
        Properties:
          Handler: {package}.handlers.test_entrypoint
          Runtime: python3.11
          CodeUri: src/
    """
)


def schema(type_name: str) -> dict[str, Any]:
    return {
        "typeName": type_name,
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


def long_chain_project(
    root: Path,
    invocations: int,
    *,
    pause_s: float = 0.0,
    type_name: str = "Test::Chain::Thing",
    package: str = "test_chain",
    name: str = "thing",
    token: str | None = None,
    credentials: dict[str, str] | None = None,
) -> Path:
    """Write the project into ``root`` (created): its sample_events/create.json chain has exactly
    ``invocations`` steps, each sleeping ``pause_s`` first. ``token`` and ``credentials`` go into
    the event when given (else the payload's defaults apply)."""
    code = root / "src" / package
    code.mkdir(parents=True)
    (code / "__init__.py").write_text("")
    (code / "handlers.py").write_text(HANDLER.format(limit=invocations, pause=pause_s))
    file_name = type_name.lower().replace("::", "-") + ".json"
    (root / file_name).write_text(json.dumps(schema(type_name), indent=2))
    (root / ".rpdk-config").write_text(
        json.dumps(
            {
                "typeName": type_name,
                "language": "python311",
                "runtime": "python3.11",
                "entrypoint": f"{package}.handlers.resource",
                "testEntrypoint": f"{package}.handlers.test_entrypoint",
            }
        )
    )
    (root / "template.yml").write_text(TEMPLATE.format(package=package))
    request: dict[str, Any] = {}
    if token is not None:
        request["clientRequestToken"] = token
    request["desiredResourceState"] = {"Name": name}
    request["logicalResourceIdentifier"] = "Thing"
    event: dict[str, Any] = {}
    if credentials is not None:
        event["credentials"] = credentials
    event.update({"action": "CREATE", "request": request, "callbackContext": None})
    events = root / "sample_events"
    events.mkdir()
    (events / "create.json").write_text(json.dumps(event, indent=2))
    return root
