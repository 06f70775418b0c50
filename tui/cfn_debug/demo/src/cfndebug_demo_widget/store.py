"""The widget "service": one JSON file per widget in a local state directory.

Layout of the state directory (``CFN_DEBUG_DEMO_STATE``, or
``<tempdir>/cfn-debug-demo-state-<uid>``)::

    widgets/<WidgetId>.json    the widget record (see ``new_record``)
    names/<Name>               claim of a Name (the natural key): holds the WidgetId
    tokens/<token>             claim of a create clientRequestToken: holds the WidgetId
    store.lock, locks/         lock files
    .seeded                    marker: the demo widgets were seeded into this directory once

Every write goes to a temporary file in the same directory and is moved into place with
``os.replace``, so a concurrent reader sees the old or the new record, never half of one.
Claiming a Name or a token happens under a store-wide lock and a read-modify-write of one
record under a per-widget lock (``fcntl.flock``; where the platform has no fcntl the locks are
no-ops), so concurrent invokes cannot create two widgets from one token or one Name.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # pragma: no cover - not on Windows
    fcntl = None  # type: ignore[assignment]

STATE_ENV = "CFN_DEBUG_DEMO_STATE"
DEFAULT_DIR_NAME = "cfn-debug-demo-state"


def default_state_dir() -> Path:
    """<tempdir>/cfn-debug-demo-state-<uid>: one user's widgets, not every user's of the machine
    (another user's directory in a shared /tmp is not writable, and its widgets are not yours)."""
    user = str(os.getuid()) if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    return Path(tempfile.gettempdir()) / f"{DEFAULT_DIR_NAME}-{user}"


WIDGET_ID_RE = re.compile(r"^wdg-[a-z0-9]{8,16}$")
# Claims are files named after the claimed value (a Name, a token): safe file names only.
_SAFE_NAME_RE = re.compile(r"^[A-Za-z0-9._-]{1,128}$")

#: Widgets every fresh state directory starts with, so the sample read/update/delete events
#: have a widget to act on. Their ids are fixed; their values are obviously fake.
SEED_ARN_PREFIX = "arn:aws:cfndebug-demo:us-east-1:123456789012:widget/"
SEED_WIDGETS: list[dict[str, Any]] = [
    {
        "WidgetId": "wdg-demo0001",
        "Name": "demo-widget-one",
        "Size": 3,
        "Color": "blue",
        "Tags": [{"Key": "team", "Value": "demo"}],
        "Labels": ["first", "seeded"],
        "Secret": "demo-secret-not-real-1",
        "Settings": {"Mode": "safe", "Retries": 2},
    },
    {
        "WidgetId": "wdg-demo0002",
        "Name": "demo-widget-two",
        "Size": 5,
        "Color": "green",
        "Secret": "demo-secret-not-real-2",
    },
    {
        "WidgetId": "wdg-demo0003",
        "Name": "demo-widget-three",
        "Size": 8,
        "Color": "red",
        "Labels": ["third"],
    },
]


def new_widget_id() -> str:
    """A fresh identifier: "wdg-" and 12 hex digits."""
    return "wdg-" + secrets.token_hex(6)


def make_arn(partition: str, region: str, account: str, widget_id: str) -> str:
    return f"arn:{partition}:cfndebug-demo:{region}:{account}:widget/{widget_id}"


ACTIVE, CREATING, DELETING = "ACTIVE", "CREATING", "DELETING"


def new_record(
    model: dict[str, Any], *, secret: str | None, token: str | None, status: str
) -> dict[str, Any]:
    """A widget record: the model as applied so far (never the Secret), the Secret apart, the
    desired state a create chain is still applying, its status and stage, its create token."""
    return {
        "model": model,
        "secret": secret,
        "desired": None,
        "status": status,
        "stage": 0,
        "token": token,
    }


def state_dir() -> Path:
    """Where the widgets live: $CFN_DEBUG_DEMO_STATE, or <tempdir>/cfn-debug-demo-state-<uid> if
    unset or empty (the template's default is the empty string)."""
    chosen = os.environ.get(STATE_ENV, "").strip()
    return Path(chosen) if chosen else default_state_dir()


class Store:
    """The widgets of one state directory."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root if root is not None else state_dir()
        self.widgets = self.root / "widgets"
        self.names = self.root / "names"
        self.tokens = self.root / "tokens"
        self.locks = self.root / "locks"
        for directory in (self.widgets, self.names, self.tokens, self.locks):
            directory.mkdir(parents=True, exist_ok=True)
        self._seed_once()

    # --- records ---

    def _widget_path(self, widget_id: str) -> Path:
        if not WIDGET_ID_RE.match(widget_id):
            raise ValueError(f"not a widget id: {widget_id!r}")
        return self.widgets / f"{widget_id}.json"

    def get(self, widget_id: str) -> dict[str, Any] | None:
        """The widget record, or None when there is no such widget."""
        if not WIDGET_ID_RE.match(widget_id):
            return None
        try:
            text = self._widget_path(widget_id).read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        record: dict[str, Any] = json.loads(text)
        return record

    def put(self, record: dict[str, Any]) -> None:
        """Write a widget record atomically."""
        _atomic_write(self._widget_path(record["model"]["WidgetId"]), json.dumps(record, indent=2))

    def all_ids(self) -> list[str]:
        """Every widget id, sorted (the order list pages follow)."""
        ids = (p.stem for p in self.widgets.glob("wdg-*.json"))
        return sorted(i for i in ids if WIDGET_ID_RE.match(i))

    # --- creation: the Name (natural key) and the create token (idempotency) ---

    def create(self, record: dict[str, Any], token: str | None) -> tuple[str, str]:
        """Store a new widget unless its token or its Name is already held by a live widget.

        Returns ("created", id), ("token", id of the widget this token already created) or
        ("name", id of the widget that holds the Name). Runs under the store lock, so two
        concurrent creates cannot both take the same token or Name.
        """
        widget_id: str = record["model"]["WidgetId"]
        name: str = record["model"]["Name"]
        with self._store_lock():
            if token is not None:
                holder = self._holder(self.tokens, token)
                if holder is not None:
                    return "token", holder
            holder = self._holder(self.names, name)
            if holder is not None:
                return "name", holder
            self.put(record)
            _atomic_write(_claim_path(self.names, name), widget_id)
            if token is not None:
                _atomic_write(_claim_path(self.tokens, token), widget_id)
        return "created", widget_id

    def remove(self, widget_id: str) -> dict[str, Any] | None:
        """Delete a widget with its Name and token claims; returns the record it removed."""
        with self._store_lock():
            record = self.get(widget_id)
            if record is None:
                return None
            for directory, key in (
                (self.names, record["model"].get("Name")),
                (self.tokens, record.get("token")),
            ):
                if isinstance(key, str) and self._holder(directory, key) == widget_id:
                    _claim_path(directory, key).unlink()
            with contextlib.suppress(FileNotFoundError):
                self._widget_path(widget_id).unlink()
        return record

    def _holder(self, directory: Path, key: str) -> str | None:
        """The live widget holding a claim; a claim whose widget is gone counts as free."""
        try:
            holder = _claim_path(directory, key).read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None
        return holder if self.get(holder) is not None else None

    @contextlib.contextmanager
    def _store_lock(self) -> Iterator[None]:
        with _flock(self.root / "store.lock"):
            yield

    @contextlib.contextmanager
    def locked(self, widget_id: str) -> Iterator[None]:
        """Hold the widget's lock for a read-modify-write of its record."""
        self._widget_path(widget_id)  # validates the id before it names a file
        with _flock(self.locks / f"{widget_id}.lock"):
            yield

    # --- seeding ---

    def _seed_once(self) -> None:
        marker = self.root / ".seeded"
        if marker.exists():
            return
        with self._store_lock():
            if marker.exists():
                return
            for seed in SEED_WIDGETS:
                model = {k: v for k, v in seed.items() if k != "Secret"}
                model["Arn"] = SEED_ARN_PREFIX + seed["WidgetId"]
                self.put(new_record(model, secret=seed.get("Secret"), token=None, status=ACTIVE))
                _atomic_write(_claim_path(self.names, seed["Name"]), seed["WidgetId"])
            _atomic_write(marker, "seeded\n")


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _claim_path(directory: Path, key: str) -> Path:
    """The claim file of a key: the key itself when it is a safe file name, else its digest."""
    if _SAFE_NAME_RE.match(key) and not key.startswith("."):
        return directory / key
    return directory / ("sha256-" + hashlib.sha256(key.encode("utf-8")).hexdigest())


@contextlib.contextmanager
def _flock(path: Path) -> Iterator[None]:
    """An exclusive lock between processes (a no-op where there is no fcntl)."""
    if fcntl is None:  # pragma: no cover
        yield
        return
    with open(path, "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
