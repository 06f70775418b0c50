"""The embedded Docker-free Lambda endpoint (`cfn-debug serve`): SAM's start-lambda for Python.

``EmbeddedEndpoint`` (server.py) serves the Invoke API; ``load_functions``/``FunctionSpec``
(template.py) read a project's functions. Imports are lazy so reading a template never pays for
the HTTP server.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cfn_debug.endpoint.server import EmbeddedEndpoint
    from cfn_debug.endpoint.template import FunctionSpec, load_functions

__all__ = ["EmbeddedEndpoint", "FunctionSpec", "load_functions"]


def __getattr__(name: str) -> Any:
    if name == "EmbeddedEndpoint":
        from cfn_debug.endpoint.server import EmbeddedEndpoint

        return EmbeddedEndpoint
    if name in ("FunctionSpec", "load_functions"):
        from cfn_debug.endpoint import template

        return getattr(template, name)
    raise AttributeError(name)
