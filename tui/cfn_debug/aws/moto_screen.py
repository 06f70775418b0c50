"""The local AWS's screen: what a web page sends is refused before moto sees the request.

moto's server answers any Host, and with its global CORS on it echoes a page's Origin, so any web
page the developer opens could read everything the handlers stored (``/moto-api/data.json``) or
drive its recorder, which writes files into moto's working directory. The screen below wraps
moto's WSGI application and refuses, with 403:

- a request carrying ``Origin`` or any ``Sec-Fetch-*`` header (only browsers send them; boto3,
  the AWS CLI and the handlers' SDKs never do), CORS preflights included;
- a ``Host`` that is not loopback's (``localhost``, a loopback address) or the bound address: a
  DNS-rebound page names its own host;
- moto's recorder and reset routes, which cfn-debug never uses (its own tests may open the
  recorder with ``CFN_DEBUG_LOCAL_AWS_RECORDER=1`` in the local AWS's environment).

The same rules as the endpoint's (cfn_debug.endpoint.guard), applied to WSGI's environ. moto's
own CORS must be off as well (``MOTO_DISABLE_GLOBAL_CORS``, read when moto is imported): see
moto_server.py, which serves moto behind this screen.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from typing import Any

from cfn_debug.endpoint.guard import host_allowed

RECORDER_ENV = "CFN_DEBUG_LOCAL_AWS_RECORDER"
#: Paths refused whatever the headers (prefixes): moto's recorder and its resets.
REFUSED_PATHS = ("/moto-api/recorder/", "/moto-api/reset")
_RECORDER = "/moto-api/recorder/"

StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


def refusal(environ: dict[str, Any], bound: str = "127.0.0.1") -> str | None:
    """Why the request of ``environ`` is refused, None when it may reach moto."""
    for key in environ:
        if key == "HTTP_ORIGIN" or key.startswith("HTTP_SEC_FETCH_"):
            return f"a browser's request ({key[5:].replace('_', '-').title()}) is refused"
    if not host_allowed(environ.get("HTTP_HOST"), bound):
        return "the Host header does not name this machine"
    path = str(environ.get("PATH_INFO") or "")
    for prefix in REFUSED_PATHS:
        if path.startswith(prefix):
            if prefix == _RECORDER and os.environ.get(RECORDER_ENV) == "1":
                continue
            return f"{prefix} is not served by cfn-debug's local AWS"
    return None


def screened(app: WsgiApp, bound: str = "127.0.0.1") -> WsgiApp:
    """``app`` behind the screen (see the module docstring)."""

    def screen(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        reason = refusal(environ, bound)
        if reason is None:
            return app(environ, start_response)
        body = json.dumps({"message": reason}).encode()
        start_response(
            "403 Forbidden",
            [
                ("Content-Type", "application/json"),
                ("Content-Length", str(len(body))),
                ("Connection", "close"),
            ],
        )
        return [body]

    return screen
