"""Find the handler's traceback in the lines it logged during one invocation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

TRACEBACK_HEADER = "Traceback (most recent call last):"


@dataclass(frozen=True)
class FoundTraceback:
    lines: tuple[str, ...]  # the header, the frames and the exception line
    exception: str  # the final exception line, e.g. "ZeroDivisionError: division by zero"


def last_traceback(logs: Sequence[str]) -> FoundTraceback | None:
    """The last Python traceback in ``logs``, or None.

    A log entry may hold several lines: the Lambda runtime writes a multi-line record as one
    entry joined with carriage returns, so entries are split on any line break. A header with a
    prefix (a log level, a timestamp) still counts; the block runs over the indented frame lines
    to the first unindented line, the exception.
    """
    lines = [line for entry in logs for line in entry.splitlines()]
    start = None
    for index in range(len(lines) - 1, -1, -1):
        if TRACEBACK_HEADER in lines[index]:
            start = index
            break
    if start is None:
        return None
    block = [lines[start][lines[start].index(TRACEBACK_HEADER) :]]
    exception = ""
    for line in lines[start + 1 :]:
        if line.startswith((" ", "\t")):
            block.append(line)
            continue
        if line.strip():
            block.append(line)
            exception = line.strip()
        break
    return FoundTraceback(tuple(block), exception)
