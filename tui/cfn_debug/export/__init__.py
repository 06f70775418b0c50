"""Session transcripts: lossless JSON, Markdown, standalone HTML and JUnit XML."""

from __future__ import annotations

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
