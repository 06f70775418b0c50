"""Record every AWS API call a handler makes, from inside the worker, through botocore's events.

``install()`` adds three handlers to botocore's ``BUILTIN_HANDLERS``, the list every botocore
``Session`` registers on its event system when it is created. cloudformation-cli-python-lib
builds a new boto3 session for every invocation, and handlers may build their own: each one
gets the handlers, without any per-session hook. When botocore is not imported yet, the
handlers are added the moment ``botocore.handlers`` is (an import hook), so a handler that never
touches AWS pays nothing for it.

- ``provide-client-params``: the call starts; its parameters and start time go in the call's
  request context (a dict botocore passes to every event of one call).
- ``after-call``: the parsed answer (HTTP status, error code and message); the call is written.
- ``after-call-error``: no answer (connection refused, timeout); the call is written.

Each call is written as one line on file descriptor 1, the pipe the endpoint reads the
invocation's logs from: ``RECORD_MARK`` then a JSON object. The endpoint takes these lines out
of the log (see logs.LogBuffer) and keeps them with the invocation, so a call is attributed to
its invocation exactly as a log line is.

Parameters: only the request's top-level parameters are kept; a value the service model marks
``sensitive`` or whose name says it is a secret (``Password`` in a list of users, say) is masked
at any depth, bytes and streams are replaced by their size, and long values are cut. The engine
redacts credentials again.

Like worker_main.py, this file imports nothing from cfn_debug (it is loaded by path in the
worker) and importing it does nothing.
"""

from __future__ import annotations

import importlib.machinery
import itertools
import json
import os
import sys
import time
import weakref
from collections.abc import Callable, Sequence
from types import FunctionType, ModuleType
from typing import Any

RECORD_MARK = "\x1e__cfn_debug_aws__ "
#: The same text as cfn_debug.text.redact.REDACTED (a test keeps them equal).
MASKED = "***REDACTED***"
#: A string parameter longer than this is cut; a structured one whose JSON is longer is
#: replaced by a summary. Keeps one record well under the pipe's atomic write size.
MAX_STRING = 256
MAX_JSON = 1024
#: The longest record line (the endpoint reads the pipe in 64 KB chunks).
MAX_RECORD = 32_768
#: Parameter names that hold a secret whatever the service model says (lower case, substrings).
SECRET_NAME_PARTS = ("password", "secret", "passphrase", "privatekey", "credentials")
#: Tokens that are not secrets: paging, idempotency, request tokens.
PUBLIC_TOKENS = (
    "nexttoken",
    "continuationtoken",
    "clienttoken",
    "requesttoken",
    "paginationtoken",
    "idempotencytoken",
    "starttoken",
)

_T0 = "cfn_debug_t0"
_PARAMS = "cfn_debug_params"
_DONE = "cfn_debug_done"
_ID = "cfn_debug_id"
#: Call numbers, unique in the worker: a start record and the call's record share one.
_ids = itertools.count(1)

_state: dict[str, Any] = {"fd": 1, "installed": False}


# --- the botocore handlers ---------------------------------------------------------------------


def _on_params(params: Any = None, context: Any = None, **_: Any) -> None:
    """provide-client-params: remember the parameters and the start time. Returns None, so
    botocore keeps the parameters as they are."""
    if isinstance(context, dict):
        # a copy: botocore's own handlers replace some values later (S3 Body becomes a stream)
        context[_PARAMS] = dict(params) if isinstance(params, dict) else params
        context[_T0] = time.perf_counter()


def _on_after_call(
    http_response: Any = None,
    parsed: Any = None,
    model: Any = None,
    context: Any = None,
    **_: Any,
) -> None:
    if not isinstance(context, dict) or _T0 not in context or context.get(_DONE):
        return
    elapsed_ms = (time.perf_counter() - context[_T0]) * 1000.0
    context[_DONE] = True
    status = getattr(http_response, "status_code", None)
    code = message = None
    if isinstance(parsed, dict):
        error = parsed.get("Error")
        if isinstance(error, dict) and (status is None or status >= 300):
            code = _text(error.get("Code")) or None
            message = _text(error.get("Message")) or None
    if status is not None and status >= 300 and code is None:
        code = str(status)
    _write(model, context, status, code, message, elapsed_ms)


def _on_after_call_error(exception: Any = None, context: Any = None, **kwargs: Any) -> None:
    if not isinstance(context, dict) or _T0 not in context or context.get(_DONE):
        return
    elapsed_ms = (time.perf_counter() - context[_T0]) * 1000.0
    context[_DONE] = True
    model = context.get("cfn_debug_model")
    message = _text(exception)[:MAX_JSON] if exception is not None else None
    _write(
        model,
        context,
        None,
        type(exception).__name__,
        message or None,
        elapsed_ms,
        event_name=kwargs.get("event_name"),
    )


def _on_before_call(model: Any = None, context: Any = None, **_: Any) -> None:
    """before-call: the request is about to go out. A short start record names it, so a call
    that never gets its answer (the function timed out, or was killed) is still on record; and
    the model is kept for after-call-error, which carries none."""
    if not isinstance(context, dict):
        return
    context["cfn_debug_model"] = model
    call_id = context[_ID] = next(_ids)
    try:
        service, operation = _names(model, None)
        start = {"id": call_id, "start": True, "service": service, "operation": operation}
        line = RECORD_MARK + json.dumps(start, separators=(",", ":")) + "\n"
        os.write(_state["fd"], line.encode("utf-8", errors="replace"))
    except Exception:
        return


# --- the record --------------------------------------------------------------------------------


def _write(
    model: Any,
    context: dict[str, Any],
    status: int | None,
    code: str | None,
    message: str | None,
    elapsed_ms: float,
    event_name: str | None = None,
) -> None:
    try:
        service, operation = _names(model, event_name)
        record = {
            "id": context.get(_ID),
            "service": service,
            "operation": operation,
            "params": _top_level(context.get(_PARAMS), model, service, operation),
            "http_status": status,
            "error_code": code,
            "error_message": message,
            "duration_ms": round(elapsed_ms, 3),
            "attempts": _attempts(context),
        }
        text = json.dumps(record, default=str, separators=(",", ":"))
        if len(text) > MAX_RECORD:  # many large parameters: keep their names only
            record["params"] = {key: "<cut>" for key in record["params"]}
            text = json.dumps(record, default=str, separators=(",", ":"))[:MAX_RECORD]
        line = RECORD_MARK + text + "\n"
        os.write(_state["fd"], line.encode("utf-8", errors="replace"))
    except Exception:  # recording must never change what the handler's call does
        return


def _attempts(context: dict[str, Any]) -> int:
    """How many HTTP attempts botocore made (its endpoint counts them in the request context)."""
    retries = context.get("retries")
    attempt = retries.get("attempt") if isinstance(retries, dict) else None
    return attempt if isinstance(attempt, int) and attempt > 0 else 1


def _names(model: Any, event_name: str | None) -> tuple[str, str]:
    if model is not None:
        try:
            return str(model.service_model.service_name), str(model.name)
        except AttributeError:
            pass
    parts = (event_name or "").split(".")
    if len(parts) >= 3:
        return parts[1], parts[2]
    return "?", "?"


def _text(value: Any) -> str:
    try:
        return value if isinstance(value, str) else str(value)
    except Exception:
        return "?"


def _secret_name(name: str) -> bool:
    lowered = name.lower()
    if any(part in lowered for part in SECRET_NAME_PARTS):
        return True
    return "token" in lowered and not lowered.endswith(PUBLIC_TOKENS)


def _top_level(params: Any, model: Any, service: str, operation: str) -> dict[str, Any]:
    if not isinstance(params, dict):
        return {}
    try:
        shape = model.input_shape if model is not None else None
        members = shape.members if shape is not None else {}
    except Exception:
        members = {}
    out: dict[str, Any] = {}
    for name, value in params.items():
        key = str(name)
        if _secret_name(key):
            out[key] = MASKED
            continue
        out[key] = _value(value, members.get(key))
    return out


def _value(value: Any, shape: Any) -> Any:
    if _sensitive(shape):
        return MASKED
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        if len(value) <= MAX_STRING:
            return value
        return value[:MAX_STRING] + f"… ({len(value)} characters)"
    if isinstance(value, bytes | bytearray | memoryview):
        return f"<{len(value)} bytes>"
    if hasattr(value, "read"):
        return f"<stream {type(value).__name__}>"
    value = _mask(value, shape, 0)
    try:
        text = json.dumps(value, default=_opaque, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return f"<{type(value).__name__}>"
    if len(text) <= MAX_JSON:
        return json.loads(text)
    if isinstance(value, dict):
        return f"<object: {len(value)} keys, {len(text)} characters>"
    if isinstance(value, list | tuple):
        return f"<array: {len(value)} items, {len(text)} characters>"
    return f"<{type(value).__name__}: {len(text)} characters>"


def _opaque(value: Any) -> Any:
    if isinstance(value, bytes | bytearray):
        return f"<{len(value)} bytes>"
    if isinstance(value, set | frozenset):
        return sorted(map(str, value))
    return str(value)


# --- masking at any depth ------------------------------------------------------------------------
# The value is walked beside its shape (botocore's input shape, None where the value has none):
# a member whose shape is marked sensitive, or whose name says it holds a secret, is masked at
# any depth; a value nested deeper than _MAX_DEPTH is replaced as a whole, never kept unlooked.

_MAX_DEPTH = 64
_TOO_DEEP = "<nested too deep to record>"


def _sensitive(shape: Any) -> bool:
    try:
        return bool(shape is not None and shape.metadata.get("sensitive"))
    except Exception:
        return False


def _child(shape: Any, attribute: str, key: Any = None) -> Any:
    """The shape of a member (``attribute`` "members", by ``key``), list item or map value."""
    if shape is None:
        return None
    try:
        if attribute == "members":
            return shape.members.get(key) if shape.type_name == "structure" else None
        return getattr(shape, attribute) if shape.type_name in ("list", "map") else None
    except Exception:
        return None


def _mask(value: Any, shape: Any, depth: int) -> Any:
    if _sensitive(shape):
        return MASKED
    if isinstance(value, dict | list | tuple) and depth > _MAX_DEPTH:
        return _TOO_DEEP
    if isinstance(value, dict):
        kind = getattr(shape, "type_name", None)
        out: dict[Any, Any] = {}
        for key, item in value.items():
            if isinstance(key, str) and _secret_name(key):
                out[key] = MASKED
            elif kind == "map":
                out[key] = _mask(item, _child(shape, "value"), depth + 1)
            else:
                out[key] = _mask(item, _child(shape, "members", key), depth + 1)
        return out
    if isinstance(value, list | tuple):
        item_shape = _child(shape, "member")
        return [_mask(item, item_shape, depth + 1) for item in value]
    return value


# --- installation ------------------------------------------------------------------------------

HANDLERS: Sequence[tuple[str, Any]] = (
    ("provide-client-params", _on_params),
    ("before-call", _on_before_call),
    ("after-call", _on_after_call),
    ("after-call-error", _on_after_call_error),
)


def _register(handlers_module: ModuleType) -> None:
    builtin = getattr(handlers_module, "BUILTIN_HANDLERS", None)
    if isinstance(builtin, list) and HANDLERS[0] not in builtin:
        builtin.extend(HANDLERS)


def share_botocore_setup() -> None:
    """Sessions of this process share botocore's parsed data files and its checks of the
    built-in event handlers (see the two functions below): at once for the botocore modules
    imported already, the others right after they are imported. Idempotent."""
    _when_imported(SHARING)


def _share_data_files(loaders: ModuleType) -> None:
    """One parse of each botocore data file per worker, not one per session.

    Every new botocore Session has a new Loader, which lists the service directories (some 400
    stat calls) and parses endpoints.json and the service's model again: a handler that builds a
    session per request (cloudformation-cli-python-lib does) pays about 0.1 s per invocation
    for files that cannot change while the worker lives. The worker's Loaders share the listing
    and the parsed files, as one Loader shares them among the clients of its session. A
    botocore this does not know: sessions parse as they always did."""
    cls = getattr(loaders, "Loader", None)
    files = getattr(loaders, "JSONFileLoader", None)
    if cls is None or files is None or getattr(cls, "_cfn_debug_shared", False):
        return
    listed: dict[Any, Any] = {}
    parsed: dict[str, Any] = {}
    list_services, load_file = cls.list_available_services, files.load_file

    def list_available_services(self: Any, type_name: str) -> Any:
        key = (tuple(self.search_paths), type_name)
        if key not in listed:
            listed[key] = list_services(self, type_name)
        return list(listed[key])

    def shared_load_file(self: Any, file_path: str) -> Any:
        if file_path not in parsed:
            parsed[file_path] = load_file(self, file_path)
        return parsed[file_path]

    cls.list_available_services = list_available_services
    files.load_file = shared_load_file
    cls._cfn_debug_shared = True


def _share_event_checks(hooks: ModuleType) -> None:
    """One check of each built-in event handler per worker, not one per session.

    Every new botocore Session registers some 130 built-in handlers, and for each one asks
    whether the function takes ``**kwargs`` (inspect.getfullargspec) and translates the event
    name through the event aliases: about 15 ms per session, that is per invocation of a handler
    built on cloudformation-cli-python-lib. Both answers depend only on the function and on the
    event name (the aliases being botocore's own, a constant), so the worker's sessions share
    them, as one session shares them among its registrations. A botocore this does not know:
    sessions check as they always did."""
    aliaser = getattr(hooks, "EventAliaser", None)
    accepts = getattr(hooks, "accepts_kwargs", None)
    if aliaser is None or accepts is None or getattr(aliaser, "_cfn_debug_shared", False):
        return
    aliased: dict[str, str] = {}
    checked: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
    init = aliaser.__init__

    def shared_init(self: Any, event_emitter: Any, event_aliases: Any = None) -> None:
        init(self, event_emitter, event_aliases)
        if event_aliases is None and isinstance(getattr(self, "_alias_name_cache", None), dict):
            self._alias_name_cache = aliased  # botocore's aliases: the same answers

    def shared_accepts_kwargs(func: Any) -> Any:
        plain = getattr(func, "__func__", func)  # a bound method: its function's answer
        if not isinstance(plain, FunctionType):
            return accepts(func)
        if plain not in checked:
            checked[plain] = accepts(func)
        return checked[plain]

    aliaser.__init__ = shared_init
    hooks.accepts_kwargs = shared_accepts_kwargs
    aliaser._cfn_debug_shared = True


#: What share_botocore_setup does to each botocore module, once it is imported.
SHARING: dict[str, Callable[[ModuleType], None]] = {
    "botocore.loaders": _share_data_files,
    "botocore.hooks": _share_event_checks,
}


def _when_imported(actions: dict[str, Callable[[ModuleType], None]]) -> None:
    """Run each action on its module (by name): now when it is imported already, else right
    after its first import. This file never imports botocore: in a worker it is the handler's
    own, if it has one at all."""
    waiting = {}
    for name, action in actions.items():
        module = sys.modules.get(name)
        if module is not None:
            action(module)
        else:
            waiting[name] = action
    if not waiting:
        return
    finder = next((f for f in sys.meta_path if isinstance(f, _AfterImport)), None)
    if finder is not None:  # one finder waits for them all: a second call adds no second one
        finder._actions.update(waiting)
    else:
        sys.meta_path.insert(0, _AfterImport(waiting))


class _AfterImport:
    """Runs an action on a module right after it is first imported: a meta path finder by
    protocol (importlib.abc is not imported: it costs a worker's start more than this whole
    file), which leaves sys.meta_path once every module it waits for is imported."""

    def __init__(self, actions: dict[str, Callable[[ModuleType], None]]) -> None:
        self._actions = dict(actions)

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        action = self._actions.get(fullname)
        if action is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _ThenRun(spec.loader, action, lambda: self._done(fullname))
        return spec

    def _done(self, name: str) -> None:
        self._actions.pop(name, None)
        if not self._actions and self in sys.meta_path:
            sys.meta_path.remove(self)


class _ThenRun:
    """A module's loader that runs ``action`` on the module once it has been executed."""

    def __init__(
        self, loader: Any, action: Callable[[ModuleType], None], done: Callable[[], None]
    ) -> None:
        self._loader = loader
        self._action = action
        self._done = done

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        self._done()
        self._action(module)


#: the first botocore that reads AWS_ENDPOINT_URL (and AWS_ENDPOINT_URL_<SERVICE>) itself
ENDPOINT_VARIABLES_SINCE = (1, 31)


def _version(text: str) -> tuple[int, ...]:
    parts = []
    for part in text.split(".")[:2]:
        digits = "".join(itertools.takewhile(str.isdigit, part))
        parts.append(int(digits or 0))
    return tuple(parts)


def configured_endpoint(service_name: str, environ: Any = None) -> str | None:
    """The endpoint AWS_ENDPOINT_URL_<SERVICE> (else AWS_ENDPOINT_URL) gives ``service_name``;
    None when they are unset or ignored. <SERVICE> is the name upper-cased with ``_`` for ``-``
    (botocore 1.31+ derives it from the service id, the same text for most services)."""
    environ = os.environ if environ is None else environ
    if environ.get("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "").lower() == "true":
        return None
    own = "AWS_ENDPOINT_URL_" + service_name.upper().replace("-", "_").replace(" ", "_")
    return environ.get(own) or environ.get("AWS_ENDPOINT_URL") or None


def _route_to_configured_endpoint(session_module: ModuleType) -> None:
    """A botocore older than 1.31 ignores AWS_ENDPOINT_URL, which is how the endpoint points
    the handler's clients at the AWS of the session (a local one): a client it creates with no
    endpoint_url gets the configured one, as a newer botocore would give it. Idempotent."""
    botocore = sys.modules.get("botocore")
    version = getattr(botocore, "__version__", None)
    if not isinstance(version, str) or _version(version) >= ENDPOINT_VARIABLES_SINCE:
        return
    session_class = getattr(session_module, "Session", None)
    create_client = getattr(session_class, "create_client", None)
    if create_client is None or getattr(create_client, "_cfn_debug_routed", False):
        return

    def routed(self: Any, service_name: str, *args: Any, **kwargs: Any) -> Any:
        if len(args) < 5 and kwargs.get("endpoint_url") is None:  # endpoint_url: the 5th
            endpoint = configured_endpoint(service_name)
            if endpoint is not None:
                kwargs["endpoint_url"] = endpoint
        return create_client(self, service_name, *args, **kwargs)

    routed._cfn_debug_routed = True  # type: ignore[attr-defined]
    session_class.create_client = routed  # type: ignore[union-attr]


def install(fd: int = 1) -> None:
    """Record every AWS call made from now on, writing the records to ``fd``; point clients of
    a botocore older than 1.31 at AWS_ENDPOINT_URL as a newer one would. Idempotent."""
    _state["fd"] = fd
    if _state["installed"]:
        return
    _state["installed"] = True
    _when_imported(
        {
            "botocore.handlers": _register,
            "botocore.session": _route_to_configured_endpoint,
            **SHARING,
        }
    )


def parse_record(line: str) -> dict[str, Any] | None:
    """The call a record line holds (``RECORD_MARK`` + JSON), else None."""
    if not line.startswith(RECORD_MARK):
        return None
    try:
        record = json.loads(line[len(RECORD_MARK) :])
    except (ValueError, RecursionError):  # not ours, or nested deeper than any real record
        return None
    return record if isinstance(record, dict) else None
