"""Session transcripts: lossless JSON, Markdown, standalone HTML and JUnit XML.

The names below are imported on first use: the commands that only mask results
(export.masking) or write JUnit do not pay for the HTML and Markdown writers at start-up.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cfn_debug.export.formats import FORMATS, export_session
    from cfn_debug.export.json import load_session, load_transcript
    from cfn_debug.export.masking import WRITE_ONLY_MASK, Masker

__all__ = [
    "FORMATS",
    "WRITE_ONLY_MASK",
    "Masker",
    "export_session",
    "load_session",
    "load_transcript",
]

#: Each exported name and the module that defines it.
_MODULES = {
    "FORMATS": "formats",
    "export_session": "formats",
    "load_session": "json",
    "load_transcript": "json",
    "WRITE_ONLY_MASK": "masking",
    "Masker": "masking",
}


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module 'cfn_debug.export' has no attribute {name!r}")
    value = getattr(import_module(f"cfn_debug.export.{module}"), name)
    globals()[name] = value
    return value
