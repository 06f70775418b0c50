"""Pure rendering helpers: records in, Rich text out. No widgets, no state, no protocol logic.

Every function takes a ``Palette`` (colours taken from the active theme) and a ``deterministic``
flag: when it is set, measured durations are hidden and clock times, request ids, random
identifiers and ports are masked, so a snapshot of the screen never depends on the clock.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Group, RenderableType
from rich.json import JSON
from rich.padding import Padding
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from cfn_debug.records import (
    WARN_FRACTION,
    Change,
    ChangeKind,
    Finding,
    Level,
    OutcomeKind,
    RunRecord,
    Step,
)
from cfn_debug.text.terminal import printable

#: Past this many characters a JSON document is shown truncated (a 5 MB model stays responsive).
MAX_JSON_CHARS = 200_000


@dataclass(frozen=True)
class Palette:
    """The few colours the renderers need, resolved from the current Textual theme."""

    ok: str = "green"
    warn: str = "yellow"
    error: str = "red"
    accent: str = "cyan"
    muted: str = "grey50"


_UUID = re.compile(
    r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
)
_ISO_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?")
_HEX_ID = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{8,}(?![0-9A-Za-z])")
_PORT = re.compile(r"\b(127\.0\.0\.1|localhost):\d+")
_SECONDS = re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|s)\b")


def scrub(text: str) -> str:
    """Mask what changes from run to run: ids, clock times, ports, measured durations."""
    text = _UUID.sub("<uuid>", text)
    text = _ISO_TIME.sub("<time>", text)
    text = _HEX_ID.sub("<id>", text)
    text = _PORT.sub(r"\1:<port>", text)
    return _SECONDS.sub("<t>", text)


def format_duration(seconds: float, *, deterministic: bool = False) -> str:
    if deterministic:
        return "- s"  # measured times never reach a snapshot
    if seconds < 1.0:
        return f"{seconds * 1000:.0f} ms"
    return f"{seconds:.2f} s"


def timing_style(fraction: float, palette: Palette) -> str:
    """Green below the warning fraction of the limit, yellow up to the limit, red past it."""
    if fraction > 1.0:
        return palette.error
    if fraction >= WARN_FRACTION:
        return palette.warn
    return palette.ok


#: The log scale's left end: a bar starts filling at a millisecond.
BAR_FLOOR_S = 0.001
#: Marks drawn on every duration bar (besides the limit, which is its right end).
BAR_MARKS_S = (1.0, 10.0)


def bar_position(seconds: float, limit_s: float, width: int) -> int:
    """Cells of a ``width``-cell log-scale bar from 1 ms to ``limit_s`` that ``seconds`` fills."""
    if seconds <= BAR_FLOOR_S or limit_s <= BAR_FLOOR_S or width <= 0:
        return 0
    span = math.log10(limit_s / BAR_FLOOR_S)
    return max(1, min(width, round(math.log10(seconds / BAR_FLOOR_S) / span * width)))


def duration_bar(
    seconds: float,
    limit_s: float,
    palette: Palette,
    *,
    width: int = 16,
    deterministic: bool = False,
    label: bool = True,
) -> Text:
    """A log-scale bar from 1 ms to ``limit_s`` (its right end), with marks at 1 s and 10 s, so
    a 12 ms step and a 25 s step both read at a glance; its colour says whether the time is
    fine, close to the limit or over it."""
    shown = 0.0 if deterministic else seconds
    fraction = shown / limit_s if limit_s > 0 else 0.0
    filled = bar_position(shown, limit_s, width)
    style = timing_style(fraction, palette)
    marks = {
        bar_position(mark, limit_s, width) - 1
        for mark in BAR_MARKS_S
        if BAR_FLOOR_S < mark < limit_s
    }
    bar = Text()
    for cell in range(width):
        if cell < filled:
            bar.append("█", style=style)
        elif cell in marks:
            bar.append("┊", style=palette.accent)
        else:
            bar.append("·", style=palette.muted)
    if label:
        bar.append(f" {format_duration(seconds, deterministic=deterministic)}", style=style)
        bar.append(f" / {limit_s:.0f} s", style=palette.muted)
    return bar


def bar_legend(limit_s: float, palette: Palette, *, width: int = 16) -> Text:
    """The scale under a bar: where 1 s, 10 s and the limit fall."""
    line = [" "] * (width + 8)
    for mark, text in ((1.0, "1s"), (10.0, "10s")):
        if BAR_FLOOR_S < mark < limit_s:
            at = bar_position(mark, limit_s, width) - 1
            for i, ch in enumerate(text):
                if 0 <= at + i < len(line):
                    line[at + i] = ch
    end = f"{limit_s:.0f}s"
    for i, ch in enumerate(end):
        if width - 1 + i < len(line):
            line[width - 1 + i] = ch
    return Text("".join(line).rstrip(), style=palette.muted)


def step_status(step: Step) -> str:
    """The status word of a step: the ProgressEvent status, else the outcome kind."""
    if step.result.kind is OutcomeKind.PROGRESS:
        return step.result.status or "NO STATUS"
    return step.result.kind.value.upper().replace("_", " ")


def status_text(status: str | None, palette: Palette) -> Text:
    status = status or "-"
    if status == "SUCCESS":
        style = f"bold {palette.ok}"
    elif status in ("IN_PROGRESS", "PENDING"):
        style = palette.accent
    else:
        style = f"bold {palette.error}"
    return Text(status, style=style)


def level_text(level: Level, palette: Palette) -> Text:
    return Text(level.value, style=f"bold {palette.error if level is Level.MUST else palette.warn}")


def changed_properties(step: Step) -> int:
    """How many top-level properties the step changed compared with the step before it."""
    return len({_top(c.pointer) for c in step.diff_previous})


def _top(pointer: str) -> str:
    parts = pointer.split("/")
    return parts[1] if len(parts) > 1 else pointer


def json_renderable(data: Any, *, deterministic: bool = False) -> RenderableType:
    """Highlighted JSON, truncated when huge (the text stays selectable, the UI responsive)."""
    text = json.dumps(data, indent=2, sort_keys=False, default=str)
    if deterministic:
        text = scrub(text)
    if len(text) > MAX_JSON_CHARS:
        return Text(
            text[:MAX_JSON_CHARS] + f"\n... [{len(text) - MAX_JSON_CHARS:,} more characters]"
        )
    try:
        return JSON(text)
    except ValueError:  # scrubbing never breaks JSON, but a renderer must not raise
        return Text(text)


def run_tally(steps: Sequence[Step], run: RunRecord | None, palette: Palette) -> Text:
    """The run's findings counted from its record (what the status line counts too): a step's
    tab never reads "No findings" while the run has MUST findings elsewhere."""
    findings = run.findings if run is not None else [f for s in steps for f in s.findings]
    musts = [f for f in findings if f.level is Level.MUST]
    shoulds = len(findings) - len(musts)
    where = sorted({f.step for f in musts if f.step is not None})
    line = Text("This run" if run is not None else "This run so far", style="bold")
    line.append(f": {len(findings)} finding{'s' if len(findings) != 1 else ''}, ")
    line.append(f"{len(musts)} MUST", style=f"bold {palette.error}" if musts else palette.muted)
    line.append(f", {shoulds} SHOULD", style=palette.warn if shoulds else palette.muted)
    if where:
        shown = ", ".join(f"#{i}" for i in where[:8]) + (" …" if len(where) > 8 else "")
        line.append(f"  (MUST on step {shown})", style=palette.muted)
    return line


def findings_renderable(
    findings: Sequence[Finding],
    contract_of: Callable[[str], str | None],
    palette: Palette,
    *,
    title: str,
    deterministic: bool = False,
) -> RenderableType:
    """Each finding as a block: level, rule id, pointer; the message; the contract sentence."""
    clean = scrub if deterministic else _same
    parts: list[RenderableType] = [Text(title, style="bold")]
    if not findings:
        parts.append(Text("  No findings.", style=palette.ok))
        return Group(*parts)
    for finding in findings:
        head = Text("  ")
        head.append_text(level_text(finding.level, palette))
        head.append(f"  {finding.rule_id}", style=f"bold {palette.accent}")
        if finding.pointer:
            head.append(f"  {printable(clean(finding.pointer))}", style=palette.muted)
        parts.append(head)
        message = printable(clean(finding.message).rstrip("\n")).split("\n")
        for is_traceback, block in traceback_blocks(message):
            shown = traceback_renderable(block) if is_traceback else Text("\n".join(block))
            parts.append(Padding(shown, (0, 0, 0, 4)))  # a wrapped line keeps the indent
        sentence = contract_of(finding.rule_id)
        if sentence:
            parts.append(
                Padding(
                    Text(f"Contract: “{sentence}”", style=f"italic {palette.muted}"), (0, 0, 0, 4)
                )
            )
        parts.append(Text(""))
    return Group(*parts)


def _same(text: str) -> str:
    return text


def _value(value: Any, clean: Callable[[str], str]) -> str:
    return clean(json.dumps(value, default=str))


def changes_renderable(
    changes: Iterable[Change], palette: Palette, *, title: str, deterministic: bool = False
) -> RenderableType:
    """A coloured diff: + added, - removed, ~ changed, with the schema's note for each pointer."""
    clean = scrub if deterministic else _same
    items = list(changes)
    parts: list[RenderableType] = [Text(f"{title} ({len(items)})", style="bold")]
    if not items:
        parts.append(Text("  No differences.", style=palette.muted))
    for change in items:
        line = Text("  ")
        if change.kind is ChangeKind.ADDED:
            line.append(f"+ {printable(change.pointer)}", style=f"bold {palette.ok}")
            line.append(f"  {_value(change.after, clean)}", style=palette.ok)
        elif change.kind is ChangeKind.REMOVED:
            line.append(f"- {printable(change.pointer)}", style=f"bold {palette.error}")
            line.append(f"  {_value(change.before, clean)}", style=palette.error)
        else:
            line.append(f"~ {printable(change.pointer)}", style=f"bold {palette.warn}")
            line.append(f"  {_value(change.before, clean)}", style=palette.error)
            line.append(" → ", style=palette.muted)
            line.append(_value(change.after, clean), style=palette.ok)
        if change.note:
            line.append(f"   ({change.note})", style=f"italic {palette.muted}")
        parts.append(line)
    return Group(*parts)


def response_renderable(
    step: Step, palette: Palette, *, deterministic: bool = False
) -> RenderableType:
    result = step.result
    clean = scrub if deterministic else _same
    if result.kind is OutcomeKind.PROGRESS and result.progress is not None:
        return json_renderable(result.progress, deterministic=deterministic)
    parts: list[RenderableType] = []
    head = Text(result.kind.value.upper().replace("_", " "), style=f"bold {palette.error}")
    if result.http_status is not None:
        head.append(f"  HTTP {result.http_status}", style=palette.muted)
    if result.error_type:
        head.append(f"  {printable(result.error_type)}", style=palette.warn)
    parts.append(head)
    if result.error_message:
        parts.append(Text(printable(clean(result.error_message))))
    if result.stack_trace:
        parts.append(Text("Stack trace:", style="bold"))
        parts.append(
            traceback_renderable(
                [printable(clean(line.rstrip("\n"))) for line in result.stack_trace]
            )
        )
    if result.body_excerpt:
        parts.append(Text("Body:", style="bold"))
        parts.append(Text(printable(clean(result.body_excerpt))))
    return Group(*parts)


def traceback_blocks(lines: Sequence[str]) -> list[tuple[bool, list[str]]]:
    """Split lines into runs of (is a Python traceback, lines): a traceback starts with
    "Traceback (most recent call last)" and ends with its unindented "SomeError: ..." line."""
    blocks: list[tuple[bool, list[str]]] = []
    inside = False
    for line in lines:
        if line.startswith("Traceback (most recent call last)"):
            inside = True
            blocks.append((True, [line]))
            continue
        if inside:
            blocks[-1][1].append(line)
            if line and not line.startswith((" ", "\t")):
                inside = False  # the final "SomeError: message" line closes the block
            continue
        if blocks and not blocks[-1][0]:
            blocks[-1][1].append(line)
        else:
            blocks.append((False, [line]))
    return blocks


def traceback_renderable(lines: Sequence[str]) -> RenderableType:
    """A Python traceback, highlighted (Rich's Syntax, pygments' pytb lexer); a wrapped line
    keeps its indent."""
    code = "\n".join(lines)
    highlighted = Syntax(code, "pytb", theme="ansi_dark", background_color="default").highlight(
        code
    )
    parts: list[RenderableType] = []
    for line in highlighted.split("\n", allow_blank=True):
        indent = len(line.plain) - len(line.plain.lstrip(" "))
        parts.append(Padding(line[indent:], (0, 0, 0, indent)) if indent else line)
    return Group(*parts)


def _log_line(line: str, request_id: str | None, palette: Palette) -> RenderableType:
    """A Lambda log line: "[LEVEL]\ttime\tRequestId\tmessage" shown without the RequestId
    (the tab's title names it once); a wrapped message keeps its indent."""
    parts = line.split("\t")
    if len(parts) >= 4 and parts[0].startswith("[") and parts[0].endswith("]"):
        level, when, rid, message = parts[0], parts[1], parts[2], "\t".join(parts[3:])
        head = f"{level} {when}" if rid == request_id else f"{level} {when} {rid}"
        style = palette.error if level in ("[ERROR]", "[CRITICAL]", "[FATAL]") else ""
        grid = Table.grid(padding=(0, 1))
        grid.add_column(no_wrap=True, style=palette.muted)
        grid.add_column(ratio=1, overflow="fold")
        grid.add_row(Text(head), Text(message, style=style))
        return grid
    indent = len(line) - len(line.lstrip(" "))
    text = Text(line.strip(" "), style=palette.error if "ERROR" in line else "")
    return Padding(text, (0, 0, 0, indent)) if indent else text


def logs_renderable(
    lines: Sequence[str],
    palette: Palette,
    *,
    request_id: str | None = None,
    deterministic: bool = False,
) -> RenderableType:
    if not lines:
        return Text("The handler wrote no log lines for this invocation.", style=palette.muted)
    clean = scrub if deterministic else _same
    shown = [printable(clean(raw.rstrip("\n"))) for raw in lines]
    rid = clean(request_id) if request_id else None
    parts: list[RenderableType] = []
    for is_traceback, block in traceback_blocks(shown):
        if is_traceback:
            parts.append(traceback_renderable(block))
        else:
            parts.extend(_log_line(line, rid, palette) for line in block)
    return Group(*parts)


def timing_renderable(
    run: RunRecord | None,
    steps: Sequence[Step],
    chain_limit_s: float | None,
    palette: Palette,
    *,
    deterministic: bool = False,
) -> RenderableType:
    """Every invocation's duration against its limit, the delays, and the chain's total."""
    if not steps:
        return Text("No invocation yet.", style=palette.muted)
    parts: list[RenderableType] = [
        Text("Invocations against the per-invocation limit (log scale)", style="bold"),
        Text(" " * 14) + bar_legend(steps[0].limit_s, palette, width=24),
    ]
    for step in steps:
        line = Text(f"  #{step.index:<4}{step.action.value:<7}")
        line.append_text(
            duration_bar(
                step.duration_s, step.limit_s, palette, width=24, deterministic=deterministic
            )
        )
        started = step.result.runtime_start_s
        if started:
            shown = format_duration(started, deterministic=deterministic)
            line.append(f"   of which the JVM's start {shown} (not counted)", style=palette.muted)
        if step.callback_delay_s:
            delay = format_duration(step.callback_delay_s, deterministic=deterministic)
            line.append(f"   then waited {delay}", style=palette.muted)
        if step.result.stopped_s:
            line.append(
                f"   stopped in the debugger {step.result.stopped_s:.1f} s", style=palette.muted
            )
        parts.append(line)
    invoked = sum(s.duration_s for s in steps)
    waited = sum(s.callback_delay_s for s in steps)
    total = run.total_s if run is not None and run.total_s else invoked + waited
    parts.append(Text(""))
    summary = Text("  Chain total ")
    if chain_limit_s:
        summary.append_text(
            duration_bar(total, chain_limit_s, palette, width=24, deterministic=deterministic)
        )
        used = "" if deterministic else f"{total / chain_limit_s:.0%} of "
        summary.append(f"  ({used}the schema's timeoutInMinutes)", style=palette.muted)
    else:
        summary.append(format_duration(total, deterministic=deterministic))
    parts.append(summary)
    parts.append(
        Text(
            f"  invoking {format_duration(invoked, deterministic=deterministic)}, "
            f"waiting {format_duration(waited, deterministic=deterministic)}, "
            f"{len(steps)} invocation{'s' if len(steps) != 1 else ''}",
            style=palette.muted,
        )
    )
    stopped = run.debugger_s if run is not None else 0.0
    if stopped:
        parts.append(
            Text(
                f"  stopped in the debugger {stopped:.1f} s (counted in no duration, nor in the "
                "chain total or against timeoutInMinutes)",
                style=palette.muted,
            )
        )
    user_wait = run.user_wait_s if run is not None else 0.0
    if user_wait:
        parts.append(
            Text(
                f"  step mode: waited {format_duration(user_wait, deterministic=deterministic)}"
                " for you (not counted in the chain total nor against timeoutInMinutes)",
                style=palette.muted,
            )
        )
    return Group(*parts)


def changes_section(
    paths: str | None,
    build: Any,
    comparison: Any,
    palette: Palette,
    *,
    deterministic: bool = False,
) -> RenderableType:
    """Watch mode's "Changes": the save behind a re-run, the build it ran, and the findings
    against the previous run of the event (fixed, new, still failing)."""
    clean = scrub if deterministic else _same
    parts: list[RenderableType] = [Text("Changes", style="bold")]
    if paths:
        parts.append(Text(f"  Saved: {clean(paths)}", style=palette.muted))
    if build is not None:
        line = Text(f"  Build `{build.command}`: ")
        if build.ok:
            line.append("ok", style=f"bold {palette.ok}")
        else:
            code = "could not start" if build.returncode is None else f"exit {build.returncode}"
            line.append(f"failed ({code}), nothing re-ran", style=f"bold {palette.error}")
        parts.append(line)
        tail = build.output.rstrip().splitlines()[-8:]
        for out in tail:
            parts.append(Text(f"    {clean(out)}", style=palette.muted))
    if comparison is not None:
        rows = (
            ("fixed", comparison.fixed, palette.ok),
            ("new", comparison.new, palette.error),
            ("still failing", comparison.still, palette.warn),
        )
        if not any(found for _, found, _ in rows):
            parts.append(Text("  Since the last run: no findings then or now.", style=palette.ok))
        else:
            parts.append(Text("  Since the last run of this event:"))
        for label, found, style in rows:
            for finding in found:
                line = Text(f"    {label:<13} ", style=f"bold {style}")
                line.append(finding.rule_id, style=f"bold {palette.accent}")
                if finding.pointer:
                    line.append(f"  {clean(finding.pointer)}", style=palette.muted)
                parts.append(line)
    parts.append(Text(""))
    return Group(*parts)


def _field(call: Any, name: str) -> Any:
    return call.get(name) if isinstance(call, dict) else getattr(call, name, None)


def aws_calls_renderable(
    calls: Sequence[Any],
    palette: Palette,
    *,
    deterministic: bool = False,
    note: str | None = None,
) -> RenderableType:
    """The AWS API calls the handler made in this step (recorded by the endpoint's worker): a
    failed call in the error colour, the call whose error the handler raised marked. ``note``:
    what the endpoint says instead when its runtime for the function records no calls."""
    if not calls and note:
        return Text(printable(note), style=palette.muted)
    if not calls:
        return Text(
            "No AWS calls were recorded for this step (the handler made none, or the endpoint "
            "does not record them).",
            style=palette.muted,
        )
    clean = scrub if deterministic else _same
    table = Table(box=None, padding=(0, 1), show_edge=False, expand=False)
    for column in ("#", "Call", "HTTP", "Time", "Error"):
        # the Call column wraps too: it also holds each call's parameters, which must not push
        # the number, HTTP status and time off the pane
        table.add_column(column, no_wrap=column in ("#", "HTTP", "Time"), overflow="fold")
    for number, call in enumerate(calls):
        status = _field(call, "http_status")
        code = _field(call, "error_code")
        raised = bool(_field(call, "raised"))
        failed = bool(code) or (isinstance(status, int) and status >= 400)
        style = f"bold {palette.error}" if failed else ""
        name = f"{_field(call, 'service') or '?'}.{_field(call, 'operation') or '?'}"
        millis = _field(call, "duration_ms")
        took = (
            "-" if millis is None else format_duration(millis / 1000, deterministic=deterministic)
        )
        error = Text("")
        if code or _field(call, "error_message"):
            error = Text(printable(clean(f"{code or ''} {_field(call, 'error_message') or ''}")))
            error.stylize(style)
        if raised:
            error = Text("⚡ raised  ", style=f"bold {palette.error}") + error
        table.add_row(
            Text(str(number), justify="right"),
            Text(printable(name), style=style or f"bold {palette.accent}"),
            Text("-" if status is None else str(status), style=style),
            Text(took, style=palette.muted),
            error,
        )
        params = _field(call, "params")
        if params:
            table.add_row(
                "", Text(printable(clean(_value(params, _same))), style=palette.muted), "", "", ""
            )
    return table
