"""Runs of the bundled demo that reproduce: a fresh request every time, and a state one key resets.

The demo's create is idempotent by clientRequestToken and refuses a second widget with the same
Name (AlreadyExists), as a real type does. A sample event sent twice as written therefore answers
the second time with the first run's widget or with AlreadyExists, and a fault stops reproducing.
So every run of a demo event file is a new request (a new token, and for a create a Name with a
fresh suffix) unless the event pins them (an event edited in the session is sent as written; a
create that names a seed widget keeps that Name), and ``reset_state`` empties the demo's store
(its seed widgets come back on the next invocation). The decision is the engine's
(``Workspace.request_for``): the dashboard's runs, its watch re-runs, ``run`` and ``run --watch``
all send what it returns.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import os
import shutil
import tempfile
import uuid
from pathlib import Path
from typing import Any

from cfn_debug.demo import PROJECT_DIR, TYPE_NAME
from cfn_debug.events import EventSpec
from cfn_debug.records import Action

#: The handler's own variable and default (src/cfndebug_demo_widget/store.py): it never
#: imports cfn_debug and cfn_debug does not import it, so the two names are kept equal here.
STATE_ENV = "CFN_DEBUG_DEMO_STATE"
DEFAULT_DIR_NAME = "cfn-debug-demo-state"


def default_state_dir() -> Path:
    """<tempdir>/cfn-debug-demo-state-<uid>: one user's widgets, not every user's of the machine
    (another user's directory in a shared /tmp is not writable, and its widgets are not yours)."""
    user = str(os.getuid()) if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    return Path(tempfile.gettempdir()) / f"{DEFAULT_DIR_NAME}-{user}"


#: What the store keeps in its state directory (store.py's layout).
STATE_ENTRIES = ("widgets", "names", "tokens", "locks", "store.lock", ".seeded")
#: The schema's Name: ^[a-z][a-z0-9-]{2,62}$ (maxLength 63).
NAME_MAX = 63
SUFFIX_LEN = 6


def is_demo(project_root: Path | str | None) -> bool:
    if project_root is None:
        return False
    try:
        return Path(project_root).resolve() == PROJECT_DIR
    except OSError:
        return False


def is_demo_type(type_name: str | None) -> bool:
    """Whether a project's schema is the demo's (the bundled project or a copy of it)."""
    return type_name == TYPE_NAME


@functools.cache
def seeded_names() -> frozenset[str]:
    """The Names of the widgets every demo state starts with (store.py's SEED_WIDGETS)."""
    path = PROJECT_DIR / "src" / "cfndebug_demo_widget" / "store.py"
    spec = importlib.util.spec_from_file_location("_cfn_debug_demo_store", path)
    if spec is None or spec.loader is None:
        return frozenset()
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return frozenset(str(seed["Name"]) for seed in module.SEED_WIDGETS)


def fresh_request(event: EventSpec) -> EventSpec:
    """``event`` as a new request: a new clientRequestToken, and for a create a unique Name.

    A Name the demo seeds is pinned: the event means that widget (a fault that needs the Name
    taken, such as FailedWithoutErrorCode, names a seed widget on purpose)."""
    norm = event.normalized
    changes: dict[str, Any] = {"client_request_token": str(uuid.uuid4())}
    desired = norm.desired
    if event.action is Action.CREATE and isinstance(desired, dict):
        name = desired.get("Name")
        if isinstance(name, str) and name and name not in seeded_names():
            suffix = uuid.uuid4().hex[:SUFFIX_LEN]
            base = name[: NAME_MAX - SUFFIX_LEN - 1]
            changes["desired"] = {**desired, "Name": f"{base}-{suffix}"}
    return dataclasses.replace(event, normalized=dataclasses.replace(norm, **changes))


def state_dir(env_vars: dict[str, Any] | None) -> Path:
    """The demo's state directory as its handlers will see it (--env-vars first, then the
    environment, then the handler's default under the temporary directory)."""
    for scope in (env_vars or {}).values():
        if isinstance(scope, dict) and str(scope.get(STATE_ENV) or "").strip():
            return Path(str(scope[STATE_ENV]).strip())
    chosen = os.environ.get(STATE_ENV, "").strip()
    return Path(chosen) if chosen else default_state_dir()


def reset_state(env_vars: dict[str, Any] | None) -> Path:
    """Forget every widget the demo's runs created; the seed widgets return on the next
    invocation. Returns the directory reset."""
    root = state_dir(env_vars)
    for entry in STATE_ENTRIES:
        path = root / entry
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()
    return root


def requested_name(request: dict[str, Any] | None) -> str | None:
    """The Name a create request asked for, in either payload shape."""
    if not isinstance(request, dict):
        return None
    body = request.get("request")
    if isinstance(body, dict):
        desired = body.get("desiredResourceState")
    else:
        data = request.get("requestData")
        desired = data.get("resourceProperties") if isinstance(data, dict) else None
    name = desired.get("Name") if isinstance(desired, dict) else None
    return name if isinstance(name, str) else None
