"""The --env-vars file (SAM's format): {"Parameters": {...}, "FunctionName": {...}}, each
variable checked to be one a process environment can hold."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cfn_debug.errors import EndpointError
from cfn_debug.filesafe import read_json
from cfn_debug.text.terminal import one_line


def load_env_vars(path: str | None) -> dict[str, Any] | None:
    """The --env-vars file: {"Parameters": {...}, "FunctionName": {...}} as SAM takes it."""
    if not path:
        return None
    data = read_json(Path(path).expanduser(), EndpointError)
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise EndpointError(
            'expected an object such as {"Parameters": {"VAR": "value"}, '
            '"FunctionName": {"VAR": "value"}}',
            path=path,
        )
    for section, values in data.items():
        for name, value in values.items():
            _check_env_var(path, str(section), name, value)
    return data


def _check_env_var(path: str, section: str, name: str, value: Any) -> None:
    """One variable of --env-vars: a name a process environment can hold (not empty, no ``=``,
    no NUL) and a value without NUL; else a one-line error naming the variable and the file."""
    problem = None
    if not name:
        problem = "expected a variable name, got an empty one"
    elif "=" in name or "\0" in name:
        problem = "a variable name cannot hold '=' or a NUL character"
    elif isinstance(value, str) and "\0" in value:
        problem = "a value cannot hold a NUL character"
    if problem is not None:
        raise EndpointError(problem, path=path, field=one_line(f"{section}.{name}"))
