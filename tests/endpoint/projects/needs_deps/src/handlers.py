"""A handler that imports a package only the project's requirements.txt provides."""

from __future__ import annotations

from typing import Any

import termcolor


def colour(event: dict[str, Any], context: Any) -> dict[str, Any]:
    model = {"Module": termcolor.__name__, "Coloured": termcolor.colored("ok", "green")}
    return {"status": "SUCCESS", "message": "", "resourceModel": model}
