"""The project's own typed errors. Every one names what was wrong, where, and what was expected."""

from __future__ import annotations

from enum import IntEnum
from pathlib import Path


class CfnDebugError(Exception):
    """Base of every error cfn-debug reports to the user as a one-line message (exit 2)."""

    def __init__(self, message: str, *, path: str | Path | None = None, field: str | None = None):
        self.path = str(path) if path is not None else None
        self.field = field
        self.detail = message
        where = ": ".join(p for p in (self.path, field) if p)
        super().__init__(f"{where}: {message}" if where else message)


class EventError(CfnDebugError):
    """An event file that cannot be read, parsed or converted."""


class SchemaError(CfnDebugError):
    """A resource schema that cannot be loaded or is not a valid resource schema."""


class ProjectError(CfnDebugError):
    """A resource-type project (template.yml, .rpdk-config) that cannot be understood."""


class EndpointError(CfnDebugError):
    """The embedded endpoint cannot start (port taken, no functions, ...)."""


class JournalError(CfnDebugError):
    """A session journal or transcript that cannot be read."""


class ExitCode(IntEnum):
    """cfn-debug's exit status: a bug in cfn-debug never exits FINDINGS."""

    OK = 0  # clean
    FINDINGS = 1  # the handler broke a MUST of the contract (or the schema has an error)
    ERROR = 2  # usage, infrastructure or internal error
    INTERRUPTED = 130  # Ctrl-C (128 + SIGINT), the only way watch mode ends
