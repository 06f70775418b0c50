"""Each fault sample event makes the handlers misbehave exactly the way sample_events/README.md
says, and the same request without the fault behaves (so every test here can fail)."""

from __future__ import annotations

import json
import time
from typing import Any

import jsonschema
import pytest
from demo_support import (
    ENTRYPOINTS,
    SCHEMA_PATH,
    Event,
    Invoke,
    load_event,
    make_event,
    run_chain,
    via_test_entrypoint,
    via_type_function,
)


def _without_fault(event: Event) -> Event:
    clean: Event = json.loads(json.dumps(event))
    clean["request"].pop("typeConfiguration", None)
    clean["request"]["clientRequestToken"] += "-clean"
    return clean


def _shape_errors(model: dict[str, Any]) -> list[str]:
    """Schema violations of a returned model: the contract's shape check (no `required`)."""
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    shape = {
        "definitions": schema["definitions"],
        "type": "object",
        "properties": schema["properties"],
        "additionalProperties": False,
    }
    validator = jsonschema.Draft7Validator(shape)
    return sorted("/".join(map(str, e.absolute_path)) for e in validator.iter_errors(model))


@ENTRYPOINTS
def test_missing_primary_identifier(invoke: Invoke) -> None:
    event = load_event("fault-missing-primary-identifier.json")
    chain = run_chain(invoke, event)
    assert chain[-1]["status"] == "SUCCESS"
    assert "WidgetId" not in chain[-1]["resourceModel"]
    assert all("WidgetId" in r["resourceModel"] for r in chain[:-1])
    # A second chain with a fresh token and name, without the fault, keeps the identifier.
    clean = _without_fault(event)
    clean["request"]["desiredResourceState"]["Name"] = "widget-with-id"
    assert "WidgetId" in run_chain(invoke, clean)[-1]["resourceModel"]


@ENTRYPOINTS
def test_write_only_on_read(invoke: Invoke) -> None:
    event = load_event("fault-write-only-on-read.json")
    response = invoke(event)
    assert response["status"] == "SUCCESS"
    assert response["resourceModel"]["Secret"] == "demo-secret-not-real-1"
    assert "Secret" not in invoke(_without_fault(event))["resourceModel"]


@ENTRYPOINTS
def test_read_in_progress_is_turned_into_a_failure_by_the_library(invoke: Invoke) -> None:
    event = load_event("fault-read-in-progress.json")
    response = invoke(event)
    assert (response["status"], response["errorCode"]) == ("FAILED", "InternalFailure")
    assert response["message"] == "READ and LIST handlers must return synchronously."
    assert invoke(_without_fault(event))["status"] == "SUCCESS"


@ENTRYPOINTS
def test_drop_requested_property(invoke: Invoke) -> None:
    event = load_event("fault-drop-requested-property.json")
    requested = event["request"]["desiredResourceState"]
    assert requested["Labels"]
    chain = run_chain(invoke, event)
    final = chain[-1]
    assert final["status"] == "SUCCESS"
    assert "Labels" not in final["resourceModel"]
    assert final["resourceModel"]["Size"] == requested["Size"]
    # The widget really lacks them: a read (without the fault) agrees.
    widget_id = final["resourceModel"]["WidgetId"]
    read = invoke(make_event("READ", desiredResourceState={"WidgetId": widget_id}))
    assert "Labels" not in read["resourceModel"]


@ENTRYPOINTS
def test_update_upserts(invoke: Invoke) -> None:
    event = load_event("fault-update-upserts.json")
    missing = event["request"]["desiredResourceState"]["WidgetId"]
    clean = invoke(_without_fault(event))
    assert (clean["status"], clean["errorCode"]) == ("FAILED", "NotFound")

    response = invoke(event)
    assert response["status"] == "SUCCESS"
    new_id = response["resourceModel"]["WidgetId"]
    assert new_id != missing
    assert invoke(make_event("READ", desiredResourceState={"WidgetId": new_id}))["status"] == (
        "SUCCESS"
    )


def test_unhandled_exception_through_test_entrypoint(caplog: pytest.LogCaptureFixture) -> None:
    event = load_event("fault-unhandled-exception.json")
    response = via_test_entrypoint(event)
    assert (response["status"], response["errorCode"]) == ("FAILED", "InternalFailure")
    assert response["message"] == "Uninitialized"
    assert "KeyError: 'Colour'" in caplog.text  # the traceback is only in the logs
    assert via_test_entrypoint(_without_fault(event))["status"] == "SUCCESS"


def test_unhandled_exception_through_type_function(capsys: pytest.CaptureFixture[str]) -> None:
    response = via_type_function(load_event("fault-unhandled-exception.json"))
    assert (response["status"], response["errorCode"]) == ("FAILED", "InternalFailure")
    assert response["message"] == ""
    out = capsys.readouterr()
    assert "KeyError: 'Colour'" in out.out + out.err  # printed by the library, not returned


@ENTRYPOINTS
def test_slow_read_sleeps_for_the_knob(invoke: Invoke) -> None:
    event = load_event("fault-slow-read.json")
    assert "ReadDelaySeconds" not in event["request"]["typeConfiguration"]  # default: 31 s
    event["request"]["typeConfiguration"]["ReadDelaySeconds"] = 0.05
    started = time.monotonic()
    response = invoke(event)
    elapsed = time.monotonic() - started
    assert response["status"] == "SUCCESS"
    assert elapsed >= 0.05


def test_slow_read_default_is_past_the_read_limit() -> None:
    from cfndebug_demo_widget import handlers

    assert handlers.DEFAULT_READ_DELAY_S > 30


@ENTRYPOINTS
def test_schema_violation(invoke: Invoke) -> None:
    event = load_event("fault-schema-violation.json")
    response = invoke(event)
    assert response["status"] == "SUCCESS"
    assert _shape_errors(response["resourceModel"]) == ["Color", "Size"]
    assert _shape_errors(invoke(_without_fault(event))["resourceModel"]) == []


@ENTRYPOINTS
def test_delete_returns_model(invoke: Invoke) -> None:
    event = load_event("fault-delete-returns-model.json")
    chain = run_chain(invoke, event)
    assert [r["status"] for r in chain] == ["IN_PROGRESS", "SUCCESS"]
    assert chain[-1]["resourceModel"]["WidgetId"] == "wdg-demo0002"
    clean = make_event("DELETE", desiredResourceState={"WidgetId": "wdg-demo0001"})
    assert "resourceModel" not in run_chain(invoke, clean)[-1]


@ENTRYPOINTS
def test_identifier_changes_mid_chain(invoke: Invoke) -> None:
    chain = run_chain(invoke, load_event("fault-identifier-changes-mid-chain.json"))
    assert chain[-1]["status"] == "SUCCESS"
    ids = [r["resourceModel"]["WidgetId"] for r in chain]
    assert len(ids) == 3
    assert ids[1] != ids[0]
    assert ids[2] != ids[0]


@ENTRYPOINTS
def test_failed_without_error_code(invoke: Invoke) -> None:
    event = load_event("fault-failed-without-error-code.json")
    response = invoke(event)
    assert response["status"] == "FAILED"
    assert "errorCode" not in response
    assert "demo-widget-one" in response["message"]
    clean = invoke(_without_fault(event))
    assert (clean["status"], clean["errorCode"]) == ("FAILED", "AlreadyExists")


@ENTRYPOINTS
def test_an_unknown_fault_is_an_invalid_type_configuration(invoke: Invoke) -> None:
    event = make_event(
        "READ",
        desiredResourceState={"WidgetId": "wdg-demo0001"},
        typeConfiguration={"Fault": "NoSuchFault"},
    )
    response = invoke(event)
    assert (response["status"], response["errorCode"]) == ("FAILED", "InvalidTypeConfiguration")
    assert "NoSuchFault" in response["message"]
