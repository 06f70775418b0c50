"""The bundled demo's request policy: what a workspace opened on the demo (or a copy of it)
does to each run of an event file before sending it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cfn_debug.demo.runs import fresh_request
from cfn_debug.demo.seeds import restore_for
from cfn_debug.events import EventSpec

#: A request policy: (event, workspace) -> the event as a run of it sends it.
RequestPolicy = Callable[[EventSpec, Any], EventSpec]


def demo_requests(event: EventSpec, workspace: Any) -> EventSpec:
    """A new request (``runs.fresh_request``: a new clientRequestToken, a create's Name with a
    fresh suffix); with the embedded endpoint (the handlers' store is this machine's) the seed
    widgets are restored first and an update of a missing widget finds its Name free."""
    event = fresh_request(event)
    if workspace.embedded is not None:
        restore_for(event, workspace.aws.env_vars if workspace.aws is not None else None)
    return event
