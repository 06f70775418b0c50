"""The replay chain against real loopback HTTP and a real cloudformation-cli-python-lib handler."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from cfn_debug.chain import ChainControl, ChainOptions, build_step, run_chain
from cfn_debug.events import Shape, parse_event
from cfn_debug.invoke.local import LocalInvoker
from cfn_debug.records import (
    Action,
    AwaitingStep,
    DelayStarted,
    EndReason,
    InvocationStarted,
    InvokeResult,
    OutcomeKind,
    RunEnded,
    RunStarted,
    StepCompleted,
)
from cfn_debug.schema import schema_from_dict
from cfn_debug.text.redact import REDACTED
from invoke.lambda_stub import (
    Behaviour,
    LambdaStub,
    Reply,
    serve_resource,
    widget_resource,
)
from support.ports import free_port

SCHEMA = schema_from_dict(
    {
        "typeName": "Test::Cfn::Widget",
        "description": "a widget",
        "properties": {
            "Name": {"type": "string"},
            "WidgetId": {"type": "string"},
            "Size": {"type": "integer"},
            "Secret": {"type": "string"},
        },
        "primaryIdentifier": ["/properties/WidgetId"],
        "readOnlyProperties": ["/properties/WidgetId"],
        "writeOnlyProperties": ["/properties/Secret"],
        "additionalProperties": False,
        "handlers": {
            "create": {"permissions": []},
            "read": {"permissions": []},
        },
    }
)

EVENT = parse_event(
    {
        "credentials": {
            "accessKeyId": "AKIAREALLOOKINGKEY12",
            "secretAccessKey": "super-secret",
            "sessionToken": "tok",
        },
        "action": "CREATE",
        "request": {"clientRequestToken": "token-1", "desiredResourceState": {"Name": "w"}},
        "callbackContext": None,
    },
    name="create",
)


async def collect(stream: Any, on_event: Any = None) -> list[Any]:
    events = []
    async for event in stream:
        events.append(event)
        if on_event is not None:
            on_event(event)
    return events


def chain(stub: LambdaStub, options: ChainOptions, **kwargs: Any) -> Any:
    return run_chain(
        LocalInvoker(stub.url),
        kwargs.pop("event", EVENT),
        function_name=kwargs.pop("function_name", "TestEntrypoint"),
        shape=kwargs.pop("shape", Shape.SAM),
        schema=kwargs.pop("schema", SCHEMA),
        options=options,
        **kwargs,
    )


async def test_in_progress_chain_replays_context_model_and_token() -> None:
    behaviour = Behaviour(in_progress_steps=3)
    with LambdaStub() as stub:
        serve_resource(stub, widget_resource(behaviour))
        events = await collect(chain(stub, ChainOptions()))
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["RunStarted"] + ["InvocationStarted", "StepCompleted"] * 4 + ["RunEnded"]
    assert isinstance(events[0], RunStarted) and events[0].run.steps == []
    # what the handler saw: the returned context and model fed back, one token for the chain
    assert [s["context"] for s in behaviour.seen] == [{}, {"done": 1}, {"done": 2}, {"done": 3}]
    assert behaviour.seen[0]["desired"] == {"Name": "w"}
    assert all(s["desired"] == {"Name": "w", "WidgetId": "w-1"} for s in behaviour.seen[1:])
    assert {s["token"] for s in behaviour.seen} == {"token-1"}
    ended = events[-1]
    assert isinstance(ended, RunEnded)
    run = ended.run
    assert run.end_reason is EndReason.TERMINAL and run.final_status == "SUCCESS"
    assert [s.index for s in run.steps] == [0, 1, 2, 3]
    assert [s.result.status for s in run.steps] == ["IN_PROGRESS"] * 3 + ["SUCCESS"]
    assert run.total_s >= sum(s.duration_s for s in run.steps)
    # the step's request is the redacted payload as sent
    first = run.steps[0].request
    assert first["credentials"]["secretAccessKey"] == REDACTED
    assert first["request"]["clientRequestToken"] == "token-1"
    assert stub.received[0].payload["credentials"]["secretAccessKey"] == "super-secret"
    # diffs: the request model gained WidgetId; nothing changed between IN_PROGRESS steps
    assert [c.pointer for c in run.steps[0].diff_request] == ["/WidgetId"]
    assert run.steps[1].diff_previous == []


async def test_handler_request_shape_runs_on_the_type_function() -> None:
    behaviour = Behaviour(in_progress_steps=1)
    with LambdaStub() as stub:
        serve_resource(stub, widget_resource(behaviour))
        events = await collect(
            chain(stub, ChainOptions(), function_name="TypeFunction", shape=Shape.HANDLER_REQUEST)
        )
    run = events[-1].run
    assert [s.result.status for s in run.steps] == ["IN_PROGRESS", "SUCCESS"]
    assert "requestData" in stub.received[0].payload
    assert run.steps[0].request["bearerToken"] == REDACTED
    assert stub.received[1].payload["callbackContext"] == {"done": 1}


async def test_max_reinvoke_caps_the_chain() -> None:
    with LambdaStub() as stub:
        serve_resource(stub, widget_resource(Behaviour(in_progress_steps=50)))
        events = await collect(chain(stub, ChainOptions(max_reinvoke=2)))
    run = events[-1].run
    assert len(run.steps) == 3
    assert run.end_reason is EndReason.MAX_REINVOKE
    assert run.final_status == "IN_PROGRESS"


async def test_delay_is_capped_and_reported() -> None:
    with LambdaStub() as stub:
        serve_resource(stub, widget_resource(Behaviour(in_progress_steps=1, delay_s=30)))
        started = time.monotonic()
        events = await collect(chain(stub, ChainOptions(max_delay_s=0.05)))
        elapsed = time.monotonic() - started
    delays = [e for e in events if isinstance(e, DelayStarted)]
    assert len(delays) == 1
    assert (delays[0].index, delays[0].seconds, delays[0].requested_s) == (0, 0.05, 30.0)
    assert events[-1].run.steps[0].callback_delay_s == 0.05
    assert elapsed < 5


async def test_skip_delay_ends_the_wait_at_once() -> None:
    control = ChainControl()
    with LambdaStub() as stub:
        serve_resource(stub, widget_resource(Behaviour(in_progress_steps=2, delay_s=60)))

        def on_event(event: Any) -> None:
            if isinstance(event, DelayStarted):
                control.skip_delay()

        started = time.monotonic()
        events = await collect(chain(stub, ChainOptions(), control=control), on_event)
    assert time.monotonic() - started < 5
    assert sum(isinstance(e, DelayStarted) for e in events) == 2
    assert events[-1].run.end_reason is EndReason.TERMINAL


async def test_cancel_interrupts_a_delay_and_an_in_flight_invoke() -> None:
    with LambdaStub() as stub:
        serve_resource(stub, widget_resource(Behaviour(in_progress_steps=2, delay_s=60)))
        control = ChainControl()
        events = await collect(
            chain(stub, ChainOptions(), control=control),
            lambda e: control.cancel() if isinstance(e, DelayStarted) else None,
        )
        assert events[-1].run.end_reason is EndReason.CANCELLED
        assert len(events[-1].run.steps) == 1

        stub.functions["Hang"] = lambda _p: (stub.release.wait(10), {"status": "SUCCESS"})[1]
        control = ChainControl()
        started = time.monotonic()
        events = await collect(
            chain(stub, ChainOptions(), control=control, function_name="Hang"),
            lambda e: control.cancel() if isinstance(e, InvocationStarted) else None,
        )
        assert time.monotonic() - started < 3
    assert events[-1].run.end_reason is EndReason.CANCELLED
    assert events[-1].run.steps == []


async def test_step_mode_waits_and_sends_an_edited_context() -> None:
    behaviour = Behaviour(in_progress_steps=5)
    control = ChainControl()
    awaiting: list[AwaitingStep] = []

    def on_event(event: Any) -> None:
        if isinstance(event, AwaitingStep):
            awaiting.append(event)
            # the user jumps ahead: edit the context to say 4 steps are done
            control.advance({"done": 4} if len(awaiting) == 1 else ...)

    with LambdaStub() as stub:
        serve_resource(stub, widget_resource(behaviour))
        events = await collect(chain(stub, ChainOptions(step_mode=True), control=control), on_event)
    assert awaiting[0].next_index == 1 and awaiting[0].callback_context == {"done": 1}
    assert [s["context"] for s in behaviour.seen] == [{}, {"done": 4}, {"done": 5}]
    assert events[-1].run.final_status == "SUCCESS"


async def test_handler_timeout_of_the_schema_ends_the_chain() -> None:
    schema = schema_from_dict({**SCHEMA.raw})
    schema.handler_timeout_s = lambda _action: 0.3  # type: ignore[method-assign]
    with LambdaStub() as stub:
        serve_resource(stub, widget_resource(Behaviour(in_progress_steps=100, delay_s=1)))
        started = time.monotonic()
        events = await collect(chain(stub, ChainOptions(), schema=schema))
    run = events[-1].run
    assert run.end_reason is EndReason.HANDLER_TIMEOUT
    assert 0.3 <= run.total_s < 2 and time.monotonic() - started < 3
    assert len(run.steps) == 1


async def test_non_progress_outcomes_end_the_chain() -> None:
    crash = {"errorMessage": "boom", "errorType": "ValueError", "stackTrace": []}
    with LambdaStub() as stub:
        stub.functions["Crash"] = lambda _p: Reply(
            json.dumps(crash).encode(), 200, {"X-Amz-Function-Error": "Unhandled"}
        )
        crashed = await collect(chain(stub, ChainOptions(), function_name="Crash"))
        missing = await collect(chain(stub, ChainOptions(), function_name="Nope"))
    assert crashed[-1].run.end_reason is EndReason.TERMINAL
    assert crashed[-1].run.final_status == "crash"
    assert missing[-1].run.end_reason is EndReason.ERROR
    assert missing[-1].run.steps[0].result.kind is OutcomeKind.HTTP_ERROR
    unreachable = await collect(
        run_chain(
            LocalInvoker(f"http://127.0.0.1:{free_port()}"),
            EVENT,
            function_name="F",
            shape=Shape.SAM,
            schema=None,
            options=ChainOptions(),
        )
    )
    assert unreachable[-1].run.end_reason is EndReason.ERROR
    assert unreachable[-1].run.final_status == "unreachable"


async def test_contract_findings_reach_the_step_and_the_logs_are_redacted() -> None:
    behaviour = Behaviour()
    resource = widget_resource(behaviour)
    read_event = parse_event(
        {"action": "READ", "request": {"desiredResourceState": {"WidgetId": "w-1"}}},
        name="read",
    )

    def read_in_progress(_payload: dict[str, Any]) -> Reply:
        body = {"status": "IN_PROGRESS", "resourceModel": {"WidgetId": "w-1", "Secret": "x"}}
        return Reply(json.dumps(body).encode(), 200)

    with LambdaStub() as stub:
        serve_resource(stub, resource)
        stub.functions["BadRead"] = read_in_progress
        events = await collect(
            chain(stub, ChainOptions(max_reinvoke=0), event=read_event, function_name="BadRead")
        )
    step = events[-1].run.steps[0]
    assert step.findings, "a READ returning IN_PROGRESS with a writeOnly property is reported"
    assert all(f.step == 0 for f in step.findings)


def test_build_step_needs_no_network() -> None:
    result = InvokeResult(
        OutcomeKind.PROGRESS,
        duration_s=0.01,
        progress={"status": "SUCCESS", "resourceModel": {"WidgetId": "w-1", "Name": "x"}},
        logs=["using key AKIAIOSFODNN7EXAMPLE"],
    )
    step = build_step(
        index=0,
        action=Action.CREATE,
        function_name="TestEntrypoint",
        request={"credentials": {"secretAccessKey": "s"}, "request": {}},
        result=result,
        started_at="2026-01-01T00:00:00Z",
        schema=SCHEMA,
        desired={"Name": "w"},
        previous=None,
        original_desired={"Name": "w"},
        previous_steps=[],
    )
    assert step.request["credentials"]["secretAccessKey"] == REDACTED
    assert step.result.logs == [f"using key {REDACTED}"]
    assert result.logs == ["using key AKIAIOSFODNN7EXAMPLE"]
    assert {(c.pointer, c.kind.value) for c in step.diff_request} == {
        ("/WidgetId", "added"),
        ("/Name", "changed"),
    }
    assert step.limit_s == 60.0


async def test_events_are_yielded_while_the_chain_runs() -> None:
    """The consumer sees StepCompleted before the next invocation is sent."""
    seen_requests_at_step: list[int] = []
    with LambdaStub() as stub:
        serve_resource(stub, widget_resource(Behaviour(in_progress_steps=2)))

        def on_event(event: Any) -> None:
            if isinstance(event, StepCompleted):
                seen_requests_at_step.append(len(stub.received))

        await collect(chain(stub, ChainOptions()), on_event)
    assert seen_requests_at_step == [1, 2, 3]
    await asyncio.sleep(0)
