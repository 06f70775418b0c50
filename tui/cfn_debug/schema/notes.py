"""A problem with a schema that does not stop cfn-debug from using it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SchemaNote:
    """A problem with the schema that does not stop cfn-debug from using it.

    ``level``: "error" (the schema is wrong and cfn-debug works around it), "warning" (a
    published schema may do this; said once) or "note". ``pointer`` is a JSON pointer into the
    schema document.
    """

    pointer: str
    level: str
    message: str
