"""A runtime that records no AWS calls (Go, Java: ``Runtime.aws_calls_note``) says so where the
calls would be: on the invocation's result from the embedded endpoint and from `serve`'s details
route, in the dashboard's AWS tab and once in `run`'s output, instead of an empty list."""

from __future__ import annotations

import io
from collections.abc import Iterator
from html import escape

import pytest
from rich.console import Console

from cfn_debug.app.render import Palette, aws_calls_renderable
from cfn_debug.endpoint.runtimes.node import NodeRuntime
from cfn_debug.endpoint.server import EmbeddedEndpoint
from cfn_debug.export.html import write_html
from cfn_debug.export.markdown import write_markdown
from cfn_debug.export.masking import Masker
from cfn_debug.invoke.local import LocalInvoker
from cfn_debug.records import Action, EndReason, InvokeResult, OutcomeKind, RunRecord, Step

from .conftest import PROJECTS, needs_node

NOTE = "AWS calls: not recorded for this runtime (a test's)"
P = Palette(ok="green", warn="yellow", error="red", accent="cyan", muted="grey50")


@pytest.fixture
def silent_node(monkeypatch: pytest.MonkeyPatch) -> Iterator[EmbeddedEndpoint]:
    """The node-echo project, its runtime made one that records no AWS calls."""
    monkeypatch.setattr(NodeRuntime, "aws_calls_note", NOTE)
    with EmbeddedEndpoint(PROJECTS / "node-echo") as endpoint:
        yield endpoint


@needs_node
async def test_the_note_reaches_the_result_in_process_and_through_serve(
    silent_node: EmbeddedEndpoint,
) -> None:
    endpoint = silent_node
    embedded = LocalInvoker(
        endpoint.url,
        logs=endpoint.logs_for,
        aws_calls=endpoint.aws_calls_for,
        aws_calls_note=endpoint.aws_calls_note,
    )
    served = LocalInvoker(endpoint.url)  # `run --endpoint` to a `cfn-debug serve`
    try:
        for invoker in (embedded, served):
            result = await invoker.invoke("Echo", b'{"mode":"log"}')
            assert result.aws_calls == [] and result.aws_calls_note == NOTE
            assert result.to_dict()["aws_calls_note"] == NOTE
    finally:
        await embedded.aclose()
        await served.aclose()


def test_a_result_keeps_its_note_through_its_json() -> None:
    plain = InvokeResult(OutcomeKind.PROGRESS, 0.1, progress={"status": "SUCCESS"})
    assert plain.to_dict()["aws_calls_note"] is None
    assert InvokeResult.from_dict({**plain.to_dict()}).aws_calls_note is None
    older = {k: v for k, v in plain.to_dict().items() if k != "aws_calls_note"}
    assert InvokeResult.from_dict(older).aws_calls_note is None  # a journal from before
    noted = InvokeResult(OutcomeKind.PROGRESS, 0.1, aws_calls_note=NOTE)
    assert InvokeResult.from_dict(noted.to_dict()).aws_calls_note == NOTE


def test_the_aws_tab_shows_the_note_instead_of_an_empty_list() -> None:
    console = Console(width=120, record=True, file=io.StringIO())
    console.print(aws_calls_renderable([], P, note=NOTE))
    assert NOTE in console.export_text()
    console = Console(width=120, record=True, file=io.StringIO())
    console.print(aws_calls_renderable([], P))
    assert "No AWS calls were recorded" in console.export_text()


def test_the_transcripts_say_the_note_where_the_calls_would_be() -> None:
    result = InvokeResult(
        OutcomeKind.PROGRESS, 0.1, progress={"status": "SUCCESS"}, aws_calls_note=NOTE
    )
    step = Step(
        index=0, action=Action.LIST, function_name="F", request={}, result=result,
        started_at="2026-11-26T23:00:00+00:00", limit_s=30.0,
    )  # fmt: skip
    run = RunRecord(
        run_id="r", event_name="list", event_path="sam-tests/list.json", action=Action.LIST,
        function_name="F", endpoint="embedded", started_at="2026-11-26T23:00:00+00:00",
        steps=[step], end_reason=EndReason.TERMINAL, final_status="SUCCESS", total_s=0.1,
    )  # fmt: skip
    markdown, html = io.StringIO(), io.StringIO()
    write_markdown([run], {}, markdown, Masker())
    write_html([run], {}, html, Masker())
    assert f"### AWS calls\n\n{NOTE}\n\n" in markdown.getvalue()
    assert f"<h3>AWS calls</h3>\n<p>{escape(NOTE)}</p>\n" in html.getvalue()
