"""The lossless JSON transcript: a session that loads back to equal records.

```
{"format": "cfn-debug-transcript", "version": 1,
 "meta": {"project": ..., "endpoint": ..., "version": ..., "created": ...},
 "scenarios": [scenario summary, ...],   (only when the session ran scenarios)
 "masking": {"credentials": "redacted", "write_only": "masked" | "revealed" | "unknown"},
 "runs": [RunRecord.to_dict(), ...]}
```

The runs are written one at a time to the file object, so a long session never exists twice in
memory as one string.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TextIO

from cfn_debug.errors import JournalError
from cfn_debug.export.collector import collector_paused
from cfn_debug.export.masking import Masker
from cfn_debug.export.source import session_from
from cfn_debug.export.stream import JsonStreamError, load
from cfn_debug.filesafe import open_regular, read_text
from cfn_debug.journal.session import Session, load_journal
from cfn_debug.journal.validation import check_run
from cfn_debug.records import RunRecord
from cfn_debug.text.jsondigits import TOO_MANY_DIGITS, is_digit_limit

FORMAT = "cfn-debug-transcript"
VERSION = 1


def masking_note(masker: Masker) -> dict[str, str]:
    if masker.reveal_write_only:
        write_only = "revealed"
    elif masker.masks_write_only:
        write_only = "masked"
    else:
        write_only = "unknown"  # no schema named writeOnly properties
    return {"credentials": "redacted", "write_only": write_only}


def write_json(
    runs: Iterable[RunRecord], meta: Mapping[str, Any], out: TextIO, masker: Masker
) -> None:
    """Write the transcript of ``runs`` (masked by ``masker``) to ``out``."""
    meta = dict(meta)
    scenarios = meta.pop("scenarios", None)
    out.write(f'{{"format": "{FORMAT}", "version": {VERSION}, "meta": ')
    out.write(terminal_safe_json(json.dumps(meta, ensure_ascii=False, default=str)))
    if scenarios:  # the scenario results the session holds (cfn_debug.scenarios.summary)
        out.write(', "scenarios": ')
        out.write(terminal_safe_json(json.dumps(scenarios, ensure_ascii=False, default=str)))
    out.write(', "masking": ')
    out.write(json.dumps(masking_note(masker)))
    out.write(', "runs": [')
    for i, run in enumerate(runs):
        out.write(",\n" if i else "\n")
        for part in masker.run_json_parts(run):
            out.write(terminal_safe_json(part))
    out.write("\n]}\n")


# DEL and the C1 controls: JSON lets them stand raw in a string, and a terminal that shows the
# transcript (`cat`, `less -R`) may act on them (U+009B is CSI).
_RAW_CONTROLS = re.compile("[\x7f-\x9f]")


def terminal_safe_json(text: str) -> str:
    """JSON text with DEL and C1 controls written as ``\\u`` escapes: the same JSON value."""
    if _RAW_CONTROLS.search(text) is None:
        return text
    return _RAW_CONTROLS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def is_transcript(data: Any) -> bool:
    return isinstance(data, dict) and data.get("format") == FORMAT


def transcript_from_data(data: Any, path: Path) -> Session:
    """Turn a parsed transcript document into its runs and metadata, or a JournalError."""
    if not isinstance(data, dict):
        raise JournalError(f"expected a JSON object with format {FORMAT!r}", path=path)
    if data.get("format") != FORMAT:
        raise JournalError(
            f"expected {FORMAT!r}, got {data.get('format')!r}", path=path, field="format"
        )
    if data.get("version") != VERSION:
        raise JournalError(
            f"expected transcript version {VERSION}, got {data.get('version')!r} "
            "(written by another cfn-debug version?)",
            path=path,
            field="version",
        )
    meta = data.get("meta", {})
    if not isinstance(meta, dict):
        raise JournalError("expected an object of session metadata", path=path, field="meta")
    runs = data.get("runs")
    if not isinstance(runs, list):
        raise JournalError("expected a list of runs", path=path, field="runs")
    records = []
    with collector_paused():
        for i, run in enumerate(runs):
            check_run(run, path, f"runs[{i}]")
            records.append(RunRecord.from_dict(run))
    scenarios = data.get("scenarios")
    if scenarios is not None and not isinstance(scenarios, list):
        raise JournalError("expected a list of scenario results", path=path, field="scenarios")
    if scenarios:
        meta = {**meta, "scenarios": scenarios}
    return session_from(records, meta, path)


def load_transcript(path: str | Path) -> Session:
    """Load a JSON transcript written by :func:`write_json` as the Session it was written from.

    Read a step at a time (export.stream): a callbackContext that repeats from step to step is
    kept once, as the journal keeps it, not once per step and the file's text besides."""
    path = Path(path)
    return transcript_from_data(_stream(path, "expected JSON"), path)


def _stream(path: Path, what: str, *, suffix: str = "") -> Any:
    """The JSON value of the transcript at ``path`` (export.stream.load), or a JournalError:
    ``what`` starts the message of a JSON fault, ``suffix`` ends it."""
    try:
        with open_regular(path) as file, collector_paused():
            return load(file)
    except OSError as error:
        raise JournalError(f"cannot read the transcript: {error.strerror}", path=path) from None
    except UnicodeDecodeError:
        raise JournalError("expected UTF-8 text", path=path) from None
    except JsonStreamError as error:
        raise JournalError(
            f"{what}: {error.msg} at line {error.lineno} column {error.colno}{suffix}", path=path
        ) from None
    except RecursionError:
        raise JournalError(
            "expected JSON nested at most a few hundred levels deep: this file nests deeper "
            "than cfn-debug ever writes",
            path=path,
        ) from None
    except ValueError as error:
        if not is_digit_limit(error):
            raise
        raise JournalError(TOO_MANY_DIGITS, path=path) from None


def _parse(text: str, path: Path) -> Any:
    """``json.loads(text)``; nesting too deep or an integer too long is a JournalError (a
    JSONDecodeError is left to the caller, which may try the text as a journal)."""
    try:
        with collector_paused():
            return json.loads(text)
    except RecursionError:
        raise JournalError(
            "expected JSON nested at most a few hundred levels deep: this file nests deeper "
            "than cfn-debug ever writes",
            path=path,
        ) from None
    except ValueError as error:
        if not is_digit_limit(error):
            raise
        raise JournalError(TOO_MANY_DIGITS, path=path) from None


def _looks_like_transcript(text: str) -> bool:
    """Whether ``text`` starts as :func:`write_json` starts a transcript (a journal's first line
    is a ``{"type": "session", ...}`` entry instead)."""
    return text.lstrip()[:200].replace(" ", "").startswith(f'{{"format":"{FORMAT}"')


def load_session(path: Path) -> Session:
    """A saved session: a JSON transcript (by its format marker), or else a JSONL journal.

    What `cfn-debug export` and `cfn-debug open` take as input.
    """
    try:
        with open_regular(path) as file:
            head = file.read(512)
    except FileNotFoundError:
        raise JournalError("no such file; expected a journal or transcript", path=path) from None
    except OSError as error:
        raise JournalError(f"cannot read: {error.strerror}", path=path) from None
    if _looks_like_transcript(head.decode("utf-8", "replace")):
        data = _stream(
            path,
            "a truncated or damaged transcript",
            suffix=" (expected the whole JSON document)",
        )
        return transcript_from_data(data, path)
    try:
        text = read_text(path, max_bytes=None)
    except FileNotFoundError:
        raise JournalError("no such file; expected a journal or transcript", path=path) from None
    except OSError as error:
        raise JournalError(f"cannot read: {error.strerror}", path=path) from None
    except UnicodeDecodeError:
        raise JournalError(
            "expected UTF-8 text (a journal or a JSON transcript)", path=path
        ) from None
    try:
        data = _parse(text, path)
    except json.JSONDecodeError as error:
        if _looks_like_transcript(text):
            raise JournalError(
                f"a truncated or damaged transcript: {error.msg} at line {error.lineno} "
                f"column {error.colno} (expected the whole JSON document)",
                path=path,
            ) from None
        data = None  # several JSON lines: a journal
    if is_transcript(data) or (isinstance(data, dict) and "format" in data and "runs" in data):
        return transcript_from_data(data, path)
    return load_journal(path)
