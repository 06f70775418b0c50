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
