"""Each run of a demo event file starts from the state its sample events were written against.

The sample events act on the widgets the demo's store seeds (``wdg-demo0001`` ...) and on Names
nobody holds. A run changes that state: ``delete.json`` deletes its seed widget (the next run is
``NotFound``, correct, and the fault no longer shows), ``fault-update-upserts.json`` creates a
widget that holds its Name (the next run is ``AlreadyExists``). So before every run of a demo event
file (``Workspace.request_for``: ``run``, ``run --watch``, the dashboard), :func:`restore_for`
puts the seed widgets back as seeded and, for an update of a widget that does not exist, frees the
Name it asks for. Widgets the session created otherwise are left alone: an ``inputs_N_update``
still finds what its ``inputs_N_create`` made.

The store's layout is the handler's (``src/cfndebug_demo_widget/store.py``); it is loaded from
its file, as :func:`cfn_debug.demo.runs.seeded_names` does, so the two never disagree.
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

from cfn_debug.demo import PROJECT_DIR
from cfn_debug.demo.runs import state_dir
from cfn_debug.events import EventSpec
from cfn_debug.records import Action


@functools.cache
def _store_module() -> ModuleType | None:
    path = PROJECT_DIR / "src" / "cfndebug_demo_widget" / "store.py"
    spec = importlib.util.spec_from_file_location("_cfn_debug_demo_store_seeds", path)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def restore_seeds(root: Path) -> None:
    """The seed widgets of the store at ``root`` as the store seeds them (re-created when
    deleted, their values, Names and Secrets as first seeded)."""
    store_module = _store_module()
    if store_module is None:
        return
    store = store_module.Store(root)  # seeds a fresh directory itself
    with store._store_lock():
        for seed in store_module.SEED_WIDGETS:
            widget_id = seed["WidgetId"]
            model = {k: v for k, v in seed.items() if k != "Secret"}
            model["Arn"] = store_module.SEED_ARN_PREFIX + widget_id
            record = store_module.new_record(
                model, secret=seed.get("Secret"), token=None, status=store_module.ACTIVE
            )
            with store.locked(widget_id):
                if store.get(widget_id) != record:
                    store.put(record)
            claim = store_module._claim_path(store.names, seed["Name"])
            holder = claim.read_text(encoding="utf-8").strip() if claim.is_file() else None
            if holder != widget_id:
                store_module._atomic_write(claim, widget_id)


def _free_name(root: Path, name: str) -> None:
    """Delete the widget holding ``name`` (unless it is a seed's): what an earlier run of an
    upserting update made."""
    store_module = _store_module()
    if store_module is None:
        return
    store = store_module.Store(root)
    claim = store_module._claim_path(store.names, name)
    holder = claim.read_text(encoding="utf-8").strip() if claim.is_file() else ""
    seeds = {seed["WidgetId"] for seed in store_module.SEED_WIDGETS}
    if holder and holder not in seeds and store_module.WIDGET_ID_RE.match(holder):
        store.remove(holder)


def restore_for(event: EventSpec, env_vars: dict[str, Any] | None) -> None:
    """Before a run of the demo event file ``event``: the seeds restored, and an update of a
    widget that does not exist finds the Name it asks for free. Best effort: a state directory
    that cannot be written leaves the run to say what it finds."""
    root = state_dir(env_vars)
    try:
        restore_seeds(root)
        desired = event.normalized.desired
        if event.action is not Action.UPDATE or not isinstance(desired, dict):
            return
        widget_id, name = desired.get("WidgetId"), desired.get("Name")
        store_module = _store_module()
        if store_module is None or not isinstance(widget_id, str) or not isinstance(name, str):
            return
        if store_module.Store(root).get(widget_id) is None:
            _free_name(root, name)
    except (OSError, ValueError):
        return
