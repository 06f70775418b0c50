"""Test helpers: a real Lambda Invoke API server on loopback whose functions are Python callables,
and a real resource type written with cloudformation-cli-python-lib to put behind it."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from cloudformation_cli_python_lib import (
    Action,
    OperationStatus,
    ProgressEvent,
    Resource,
)
from cloudformation_cli_python_lib.interface import BaseModel


@dataclass
class Reply:
    """A raw answer: status, body and headers exactly as given."""

    body: bytes = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)


Function = Callable[[dict[str, Any]], "dict[str, Any] | list[Any] | Reply"]


@dataclass
class Received:
    function: str
    headers: dict[str, str]
    payload: Any


class LambdaStub:
    """POST /2015-03-31/functions/{name}/invocations -> the registered callable's answer."""

    def __init__(self) -> None:
        self.functions: dict[str, Function] = {}
        self.received: list[Received] = []
        self.release = threading.Event()  # set on stop: frees handlers that block
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                parts = self.path.split("/")
                name = parts[3] if len(parts) > 4 else ""
                payload = json.loads(raw) if raw else None
                stub.received.append(Received(name, dict(self.headers), payload))
                function = stub.functions.get(name)
                if function is None:
                    reply = Reply(
                        json.dumps(
                            {"Type": "User", "Message": f"Function not found: {name}"}
                        ).encode(),
                        404,
                        {"x-amzn-errortype": "ResourceNotFound"},
                    )
                else:
                    answer = function(payload)
                    reply = (
                        answer
                        if isinstance(answer, Reply)
                        else Reply(json.dumps(answer).encode(), 200)
                    )
                self.send_response(reply.status)
                headers = {"Content-Type": "application/json", **reply.headers}
                headers.setdefault("x-amzn-RequestId", f"req-{len(stub.received)}")
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> LambdaStub:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.release.set()
        self._server.shutdown()
        self._server.server_close()


# --- a real resource type, written with cloudformation-cli-python-lib ---------------------------


@dataclass
class Widget(BaseModel):
    Name: str | None = None
    WidgetId: str | None = None
    Size: int | None = None
    Secret: str | None = None

    @classmethod
    def _deserialize(cls, json_data: Any) -> Widget | None:
        if not json_data:
            return None
        return cls(
            Name=json_data.get("Name"),
            WidgetId=json_data.get("WidgetId"),
            Size=json_data.get("Size"),
            Secret=json_data.get("Secret"),
        )


@dataclass
class Behaviour:
    """How the widget handlers behave; tests change it between runs."""

    in_progress_steps: int = 2  # IN_PROGRESS answers before SUCCESS
    delay_s: int = 0  # callbackDelaySeconds of every IN_PROGRESS answer
    seen: list[dict[str, Any]] = field(default_factory=list)  # (context, desired) per call


def widget_resource(behaviour: Behaviour) -> Resource:
    resource = Resource("Test::Cfn::Widget", Widget)

    @resource.handler(Action.CREATE)
    def create(_session: Any, request: Any, callback_context: dict[str, Any]) -> ProgressEvent:
        model = request.desiredResourceState
        behaviour.seen.append(
            {
                "context": dict(callback_context),
                "desired": model._serialize() if model else None,
                "token": request.clientRequestToken,
            }
        )
        done = int(callback_context.get("done", 0))
        if model.WidgetId is None:
            model.WidgetId = "w-1"
        if done < behaviour.in_progress_steps:
            return ProgressEvent(
                status=OperationStatus.IN_PROGRESS,
                resourceModel=model,
                callbackContext={"done": done + 1},
                callbackDelaySeconds=behaviour.delay_s,
            )
        return ProgressEvent(status=OperationStatus.SUCCESS, resourceModel=model)

    @resource.handler(Action.READ)
    def read(_session: Any, request: Any, _callback_context: dict[str, Any]) -> ProgressEvent:
        raise RuntimeError("read is broken")

    return resource


def serve_resource(stub: LambdaStub, resource: Resource) -> None:
    """Both entrypoints, under the function names `cfn init` templates use."""
    stub.functions["TestEntrypoint"] = lambda event: resource.test_entrypoint(event, None)
    stub.functions["TypeFunction"] = lambda event: resource(event, None)
