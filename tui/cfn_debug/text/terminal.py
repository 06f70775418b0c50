"""Make text from handlers, files and transcripts safe to put on a terminal.

Anything cfn-debug did not write itself (a handler's log line or answer, an event or schema file,
a received transcript) may carry C0/C1 control characters: ESC starts CSI and OSC sequences that
clear the screen, set the window title or write the clipboard (OSC 52). It may also carry lone
surrogates (what ``os.fsdecode`` gives for a non-UTF-8 file name), which no encoder accepts.
``printable`` turns each such character into a visible escape (``\\x1b``, ``\\x9b``,
``\\udcff``), keeping newline and tab, so the text reads the same and can do nothing.
"""

from __future__ import annotations

import re

# C0 controls except tab (0x09) and newline (0x0a), DEL, C1 controls, and lone surrogates.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with every control character (but newline and tab) and lone surrogate escaped."""
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(_escape, text)


def is_printable(text: str) -> bool:
    """True when ``printable(text)`` would return ``text`` unchanged."""
    return _UNSAFE.search(text) is None


def one_line(text: str) -> str:
    """``printable(text)`` with newlines and tabs escaped as well: for a line made of names from
    a file (a schema's property names, its path), which must stay one line on the terminal."""
    return printable(text).replace("\n", "\\n").replace("\t", "\\t")


# DEL and C1 controls: JSON lets them stand raw in a string (json.dumps with ensure_ascii=False
# writes them so), and a terminal showing the document may act on them (U+009B is CSI).
_RAW_IN_JSON = re.compile("[\x7f-\x9f]")


def terminal_json(text: str) -> str:
    """JSON text (``json.dumps``'s) with DEL and C1 controls written as ``\\u`` escapes: the same
    JSON value, nothing a terminal acts on (C0 controls are always escaped by json.dumps)."""
    return _RAW_IN_JSON.sub(lambda match: f"\\u{ord(match.group()):04x}", text)
