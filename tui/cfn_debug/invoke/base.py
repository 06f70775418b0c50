"""What every invoker offers the chain: one async call that never raises for endpoint trouble."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from cfn_debug.records import InvokeResult

#: request id -> the handler's log lines for that invocation (the embedded endpoint's logs_for).
LogsHook = Callable[[str], list[str]]


class Invoker(Protocol):
    label: str

    async def invoke(self, function_name: str, payload: dict[str, Any]) -> InvokeResult:
        """Invoke once; every outcome (even "nothing answers") comes back as an InvokeResult."""
        ...

    async def aclose(self) -> None: ...
