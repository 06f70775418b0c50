"""The engine as the dashboard drives it after its first frame: opening the workspace (the
endpoint, the local AWS, the handlers' environment), what the user should know once it opened
(schema warnings, the workspace's notices), the session's journal, the bundled demo's state,
the watchers every chain runs through (``watching``: the chain and watch engines), and the
editing of the project's events and of a callbackContext (``event_editing``: the JSON editor,
the event's checks).

This module imports all of that at its top. The UI loads it in one place,
``opening.engine_support()``, first called in the worker thread that opens the project; the code
that runs once the project is open finds it loaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfn_debug.app import event_editing, watching
from cfn_debug.app.messages import DebuggerEvent
from cfn_debug.debugger.options import DebugOptions
from cfn_debug.demo.runs import requested_name, reset_state
from cfn_debug.journal.session import Journal
from cfn_debug.schema.command import schema_warning_lines
from cfn_debug.workspace import Workspace

if TYPE_CHECKING:
    from cfn_debug.app.config import AppConfig
    from cfn_debug.app.opening import OpenProgress
    from cfn_debug.endpoint.debugchannel import DebugSession

__all__ = ["event_editing", "requested_name", "reset_state", "watching"]  # re-exported


class PanelFeed:
    """The pdb front-end of the dashboard (debugchannel's ``on_session``): every event of every
    session goes to ``post`` as a DebuggerEvent (post_message is safe from any thread)."""

    def __init__(self, post: Any) -> None:
        self.post = post

    def on_session(self, session: DebugSession) -> None:
        session.listener = lambda s, e: self.post(DebuggerEvent(s, e))


def open_workspace(config: AppConfig, progress: OpenProgress) -> Workspace:
    """Blocking: discovers the project and starts the endpoint. Run it in a thread."""
    debug = DebugOptions(PanelFeed(progress.post).on_session, config.debug_port, config.break_at)
    return Workspace.open(
        config.project_dir,
        endpoint=config.endpoint,
        function_name=config.function_name,
        schema_path=config.schema,
        region=config.region,
        profile=config.profile,
        env_vars=config.env_vars,
        python=config.python,
        node=config.node,
        aws=config.aws,
        type_configuration=config.type_configuration,
        progress=progress.setup,
        on_env_progress=progress.env,
        debug=debug,
    )


def workspace_notices(workspace: Workspace) -> list[str]:
    """What the user should know before the first event: schema warnings, the workspace's
    notices (a handler's models.py that does not match the schema)."""
    lines: list[str] = []
    if workspace.schema is not None:
        try:
            lines += schema_warning_lines(workspace.schema)
        except Exception as error:  # a notice must never keep the dashboard from opening
            lines.append(f"schema warnings could not be listed: {error}")
    try:
        lines += list(workspace.notices)
    except Exception as error:
        lines.append(f"notices could not be listed: {error}")
    return lines


def open_journal(requested: Path | None, workspace: Workspace) -> Journal:
    """The session's journal for the project opened: at ``requested`` (`--journal`), else a new
    file in the state directory (created with its first line)."""
    return Journal(
        requested, project=str(workspace.project.root), endpoint=workspace.endpoint_label
    )
