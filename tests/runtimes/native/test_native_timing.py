"""The dashboard's Timing tab says how much of a Java step was the JVM's start (not counted
against the limit), and the Go runtime runs the binary its runtime names."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from cfn_debug.app.render import timing_renderable
from cfn_debug.app.themes import DARK, palette_for
from cfn_debug.endpoint.runtimes.base import RuntimeOptions
from cfn_debug.endpoint.runtimes.provided import ProvidedRuntime
from cfn_debug.endpoint.template import FunctionSpec
from cfn_debug.records import Action, InvokeResult, OutcomeKind, Step

from .conftest import GO_NOTE


def _text(start: float | None) -> str:
    result = InvokeResult(OutcomeKind.PROGRESS, 0.45, {"status": "SUCCESS"}, runtime_start_s=start)
    step = Step(0, Action.CREATE, "TestEntrypoint", {}, result, "2026-01-01T00:00:00Z", 60.0)
    console = Console(width=160, record=True, color_system=None)
    console.print(timing_renderable(None, [step], None, palette_for(DARK), deterministic=True))
    return console.export_text()


def test_the_timing_tab_shows_the_jvms_start_apart() -> None:
    assert "of which the JVM's start" in _text(0.31)
    assert "JVM" not in _text(None)


def test_go1x_runs_the_binary_its_handler_names_and_provided_runs_bootstrap() -> None:
    code = GO_NOTE / "bin"
    for runtime, handler, binary in (
        ("go1.x", "handler", "handler"),
        ("provided.al2", "x", "bootstrap"),
    ):
        spec = FunctionSpec("TypeFunction", handler, code, 60, 256, runtime)
        assert ProvidedRuntime(spec, Path(GO_NOTE), RuntimeOptions()).binary == code / binary
