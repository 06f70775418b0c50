"""Property: any text a handler, a file or a transcript can hold (control characters, escape
sequences, lone surrogates, Rich markup, long numbers) goes through every printer (the `run`
console printer, with --logs), the journal and every exporter without an exception, reaches the
output with no raw control character, and comes back unchanged from the journal and the JSON
transcript. Hypothesis with a fixed seed (derandomized) and a modest example count."""

from __future__ import annotations

import io
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from cfn_debug.console import ConsolePrinter
from cfn_debug.export.formats import FORMATS, export_session
from cfn_debug.export.json import transcript_from_data
from cfn_debug.journal.session import Journal, Session, load_journal
from cfn_debug.records import (
    Action,
    Change,
    ChangeKind,
    EndReason,
    Finding,
    InvokeResult,
    Level,
    OutcomeKind,
    RunEnded,
    RunRecord,
    RunStarted,
    Step,
    StepCompleted,
)
from cfn_debug.watch import (
    BuildFinished,
    BuildStarted,
    ChangeDetected,
    Comparison,
    WatchProblem,
    WatchReady,
)

EXAMPLES = int(os.environ.get("RELIABILITY_EXAMPLES", "60"))
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    derandomize=not os.environ.get("RELIABILITY_RANDOM"),
    database=None,
)

_PIECES = [
    "\x1b]52;c;cHduZWQ=\x07",  # OSC 52: write the clipboard
    "\x1b]0;title\x07",  # OSC 0: window title
    "\x1b[2J",  # CSI: clear the screen
    "\x9b31m",  # C1 CSI
    "\x1b]8;;https://example.com\x1b\\",  # OSC 8 hyperlink
    "[@click=app.quit]",
    "[/]",
    "[bold red]",
    "[link=https://example.com]x[/link]",
    "\\[escaped]",
    "<script>",
    "]]>",
    "|",
    "`",
    "\udcff",
    "\ud800",
    "\r",
    "9" * 400,
]
hostile_text = st.lists(
    st.one_of(
        st.sampled_from(_PIECES),
        st.text(
            alphabet=st.characters(
                min_codepoint=0, max_codepoint=0x10FFFF, categories=None, exclude_characters=""
            ),
            max_size=12,
        ),
        st.characters(min_codepoint=0, max_codepoint=0x9F).map(str),
    ),
    max_size=6,
).map("".join)
# A high surrogate right before a low one is written by any JSON encoder as the two escapes
# of a surrogate pair ("\ud800\udcff"), which every JSON reader takes for one astral character:
# no JSON text can keep such a string apart. No text cfn-debug reads can hold one either (JSON
# readers combine the pair; bytes decoded with surrogateescape give low surrogates only), so the
# pair is split by a space; lone surrogates of either kind stay.
_SURROGATE_PAIR = re.compile("([\ud800-\udbff])(?=[\udc00-\udfff])")
hostile_text = hostile_text.map(lambda text: _SURROGATE_PAIR.sub("\\1 ", text))
numbers = st.one_of(st.integers(min_value=-(10**4000), max_value=10**4000), st.integers())
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), numbers, hostile_text),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(hostile_text, inner, max_size=3)
    ),
    max_leaves=8,
)

# Raw in output: C0 but newline and tab, DEL, C1, a lone surrogate.
_RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


@st.composite
def hostile_runs(draw: st.DrawFn) -> RunRecord:
    text = lambda: draw(hostile_text)  # noqa: E731
    model = draw(st.dictionaries(hostile_text, json_values, max_size=4))
    progress = {
        "status": draw(st.sampled_from(["IN_PROGRESS", "SUCCESS", "FAILED"]) | hostile_text),
        "errorCode": text(),
        "message": text(),
        "resourceModel": model,
        "callbackContext": draw(st.dictionaries(hostile_text, json_values, max_size=2)),
    }
    result = InvokeResult(
        draw(st.sampled_from(list(OutcomeKind))),
        duration_s=0.25,
        progress=progress,
        body_excerpt=text(),
        error_type=text(),
        error_message=text(),
        stack_trace=[text()],
        logs=[text(), text()],
    )
    pointer = "/" + text()
    step = Step(
        index=0,
        action=Action.CREATE,
        function_name=text(),
        request={"action": "CREATE", "requestData": {"resourceProperties": model}},
        result=result,
        started_at="2026-01-01T00:00:00+00:00",
        limit_s=60.0,
        findings=[Finding("status-valid", Level.MUST, text(), pointer, 0)],
        diff_request=[Change(pointer, ChangeKind.CHANGED, text(), draw(json_values), text())],
    )
    return RunRecord(
        run_id="r1",
        event_name=text(),
        event_path=text(),
        action=Action.CREATE,
        function_name=text(),
        endpoint=text(),
        started_at="2026-01-01T00:00:00+00:00",
        steps=[step],
        end_reason=EndReason.TERMINAL,
        final_status=text(),
        chain_findings=[Finding("chain-timeout", Level.SHOULD, text(), None, None)],
        total_s=0.5,
    )


@given(run=hostile_runs())
@SETTINGS
def test_the_console_printer_prints_any_text_safely(run: RunRecord) -> None:
    out = io.StringIO()
    console = Console(file=out, width=120, color_system=None, highlight=False, soft_wrap=True)
    printer = ConsolePrinter(console, show_logs=True)
    for event in (RunStarted(run), StepCompleted(run.run_id, run.steps[0]), RunEnded(run)):
        printer.handle(event)
    printed = out.getvalue()
    assert _RAW.findall(printed) == []
    assert run.steps[0].result.logs[0].count("[") <= printed.count("[")  # markup kept literal


@given(text=hostile_text, other=hostile_text)
@SETTINGS
def test_the_watch_printer_prints_any_text_safely(text: str, other: str) -> None:
    """`run --watch` prints changed paths, the build command and its output, and problems."""
    out = io.StringIO()
    console = Console(file=out, width=120, color_system=None, highlight=False, soft_wrap=True)
    printer = ConsolePrinter(console)
    finding = Finding("status-valid", Level.MUST, text, "/" + other, 0)
    for event in (
        WatchReady((text, other)),
        ChangeDetected((text,), frozenset({"SOURCE"}), 0.0),
        BuildStarted(text),
        BuildFinished(other, False, 3, f"{text}\n{other}", 0.1),
        WatchProblem(text),
        Comparison(other, "r2", "r1", (finding,), (finding,), ()),
    ):
        printer.handle_watch(event)
    assert _RAW.findall(out.getvalue()) == []


@given(run=hostile_runs())
@SETTINGS
def test_the_journal_keeps_any_text_exactly(run: RunRecord, tmp_path_factory: Any) -> None:
    path = Path(tmp_path_factory.mktemp("journal")) / "j.jsonl"
    with Journal(path) as journal:
        for event in (RunStarted(run), StepCompleted(run.run_id, run.steps[0]), RunEnded(run)):
            journal.record(event)
    path.read_bytes().decode("utf-8")  # UTF-8 throughout, surrogates as JSON escapes
    (loaded,) = load_journal(path).runs
    assert loaded.event_name == run.event_name
    assert loaded.steps[0].result == run.steps[0].result
    assert loaded.steps[0].findings == run.steps[0].findings


@given(run=hostile_runs())
@SETTINGS
def test_every_exporter_writes_any_text_safely(run: RunRecord) -> None:
    import json

    session = Session(runs=[run])
    for fmt in FORMATS:
        raw = io.BytesIO()
        out = io.TextIOWrapper(raw, encoding="utf-8", newline="\n")
        export_session(session, fmt, out)
        out.flush()
        text = raw.getvalue().decode("utf-8")
        assert _RAW.findall(text) == [], fmt
        if fmt == "json":
            (again,) = transcript_from_data(json.loads(text), Path("t.json")).runs
            assert again.steps[0].result == run.steps[0].result
            assert again.event_name == run.event_name
        elif fmt == "junit":
            ET.fromstring(text)
