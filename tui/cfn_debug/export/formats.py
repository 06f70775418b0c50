"""The export formats by name, and the one call that writes a session in any of them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TextIO

from cfn_debug.export.collector import collector_paused
from cfn_debug.export.html import write_html
from cfn_debug.export.json import write_json
from cfn_debug.export.junit import write_junit
from cfn_debug.export.markdown import write_markdown
from cfn_debug.export.masking import Masker
from cfn_debug.export.source import runs_and_meta
from cfn_debug.records import RunRecord
from cfn_debug.text.redact import redact

Writer = Callable[[Iterable[RunRecord], Mapping[str, Any], TextIO, Masker], None]

#: --format name -> (writer, usual file suffix)
FORMATS: dict[str, tuple[Writer, str]] = {
    "json": (write_json, ".json"),
    "md": (write_markdown, ".md"),
    "html": (write_html, ".html"),
    "junit": (write_junit, ".xml"),
}


def export_session(
    session: Any,
    fmt: str,
    out: TextIO,
    *,
    write_only: Iterable[str] = (),
    reveal_write_only: bool = False,
) -> None:
    """Write ``session`` (a Session or a list of RunRecords) to ``out`` as ``fmt``.

    Credentials are always redacted; the values at the ``write_only`` model pointers (a
    ResourceSchema's ``write_only``) are masked unless ``reveal_write_only``.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; expected one of {', '.join(FORMATS)}")
    runs, meta = runs_and_meta(session)
    _escape_surrogates(out)
    with collector_paused():
        masker = Masker(write_only, reveal_write_only=reveal_write_only, runs=runs)
        FORMATS[fmt][0](runs, redact(meta), out, masker)


def _escape_surrogates(out: TextIO) -> None:
    """Make ``out`` write a lone surrogate (a handler's answer can hold one; ``os.fsdecode`` makes
    them of non-UTF-8 file names) as its escape ``\\udcff`` instead of failing mid-export. Writers
    only put text in strings, where that escape is JSON's own: the transcript loads back equal."""
    reconfigure = getattr(out, "reconfigure", None)
    if callable(reconfigure):
        reconfigure(errors="backslashreplace")
