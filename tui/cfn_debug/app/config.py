"""How the dashboard was asked to start: the `cfn-debug ui` options, plus test/snapshot knobs."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from cfn_debug.aws.session import AwsOptions
from cfn_debug.debugger.options import break_point
from cfn_debug.errors import CfnDebugError

Mode = Literal["auto", "step", "stop"]
MODES: tuple[Mode, ...] = ("auto", "step", "stop")


@dataclass
class AppConfig:
    project_dir: Path | None = None
    endpoint: str | None = None
    function_name: str | None = None
    schema: Path | None = None
    region: str | None = None
    profile: str | None = None
    max_reinvoke: int = 100
    max_delay: float | None = None
    watch: bool = False
    #: Shell command run before each watch re-run (`--build`, e.g. "sam build").
    build: str | None = None
    #: The session journal (`--journal`); None: session.default_journal_path().
    journal: Path | None = None
    #: `cfn-debug open TRANSCRIPT`: show this saved session read-only (no endpoint, no runs).
    transcript: Path | None = None
    #: The saved session already read from ``transcript`` (`open` reads it before starting).
    saved: Any = None
    #: Where Ctrl+S writes screenshots (`--screenshot-dir`); None: the state directory.
    screenshot_dir: Path | None = None
    mode: Mode = "auto"
    #: Passed to the embedded endpoint (SAM's --env-vars shape), e.g. the demo's state dir.
    env_vars: dict[str, dict[str, str]] | None = None
    #: `--python PATH`: the interpreter the embedded endpoint runs handlers with.
    python: str | None = None
    #: `--node PATH`: the node executable the embedded endpoint runs Node handlers with.
    node: str | None = None
    #: Snapshots and docs: durations rounded, clock times, ids and ports masked, no animation.
    deterministic: bool = False
    theme: str = "cfn-debug-dark"
    #: READ after a CREATE/UPDATE SUCCESS (`ui --no-read-back`: False); see cfn_debug.readback
    read_back: bool = True
    extra: dict[str, object] = field(default_factory=dict)
    #: --local-aws, --aws-endpoint-url, --env-vars, --export, --setup (engine: cfn_debug.aws)
    aws: AwsOptions | None = None
    #: --debug-port: the handler's worker waits for an IDE (debugpy) on 127.0.0.1:PORT.
    debug_port: int | None = None
    #: --break-at FILE:LINE, resolved: pdb breakpoints in every worker (the Debugger panel).
    break_at: tuple[tuple[str, int], ...] = ()
    #: `--type-configuration`: a hook's settings (cfn_debug.hooks)
    type_configuration: str | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> AppConfig:
        project = getattr(args, "project_dir", None) or getattr(args, "project", None)
        schema = getattr(args, "schema", None)
        journal = getattr(args, "journal", None)
        transcript = getattr(args, "transcript", None)
        shots = getattr(args, "screenshot_dir", None)
        return cls(
            aws=AwsOptions.from_args(args),
            project_dir=Path(project) if project else None,
            endpoint=getattr(args, "endpoint", None),
            function_name=getattr(args, "function_name", None),
            schema=Path(schema) if schema else None,
            region=getattr(args, "region", None),
            profile=getattr(args, "profile", None),
            max_reinvoke=getattr(args, "max_reinvoke", 100),
            max_delay=getattr(args, "max_delay", None),
            watch=bool(getattr(args, "watch", False)),
            build=getattr(args, "build", None),
            journal=Path(journal) if journal else None,
            transcript=Path(transcript) if transcript else None,
            python=getattr(args, "python", None),
            node=getattr(args, "node", None),
            read_back=not getattr(args, "no_read_back", False),
            screenshot_dir=Path(shots) if shots else None,
            debug_port=getattr(args, "debug_port", None),
            break_at=_break_at(args, project),
            type_configuration=getattr(args, "type_configuration", None),
        )


def _break_at(args: argparse.Namespace, project: str | None) -> tuple[tuple[str, int], ...]:
    points = []
    for text in getattr(args, "break_at", None) or []:
        try:
            points.append(break_point(text))
        except CfnDebugError:
            if project is None:
                raise
            points.append(break_point(text, Path(project)))
    return tuple(points)
