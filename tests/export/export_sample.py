"""A recorded session for the export tests: three runs with every kind of content an export meets.

The records are built by hand (they are plain data), shaped as the engine records them: a
sam-style CREATE chain that succeeds after two IN_PROGRESS steps, a HandlerRequest UPDATE whose
handler crashed, and a READ that timed out. Handler text carries Markdown, HTML and XML
metacharacters and a terminal colour escape; secrets are planted everywhere a leak could hide.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cfn_debug.journal.session import Session
from cfn_debug.records import (
    Action,
    Change,
    ChangeKind,
    EndReason,
    Finding,
    InvokeResult,
    Level,
    OutcomeKind,
    RunRecord,
    Step,
)

SCHEMA = Path(__file__).with_name("schema.json")
WRITE_ONLY = frozenset({"/Password", "/Entries/*/Token"})

ACCESS_KEY = "AKIAEXPORTTEST123456"
SECRET_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXPORTKEY"
SESSION_TOKEN = "FwoGZXIvYXdzEXPORTsessionTOKENvalue0123456789abcdefXYZ=="
BEARER = "bearer-token-EXPORT-0042"
CREDENTIALS = (ACCESS_KEY, SECRET_KEY, SESSION_TOKEN, BEARER)
PASSWORD = "hunter2-PASSWORD-export"
ENTRY_TOKEN = "entry-TOKEN-value-7781"
WRITE_ONLY_VALUES = (PASSWORD, ENTRY_TOKEN)

TRICKY_LOG = "value | with `ticks` and ``` fences <script>alert(1)</script> & <b>bold</b>"
ANSI_LOG = "\x1b[31mred\x1b[0m colour and a NUL \x00 byte"


def _credentials() -> dict[str, str]:
    return {"accessKeyId": ACCESS_KEY, "secretAccessKey": SECRET_KEY, "sessionToken": SESSION_TOKEN}


def _model(name: str, *, vault_id: str | None = None) -> dict[str, Any]:
    model: dict[str, Any] = {
        "Name": name,
        "Password": PASSWORD,
        "Entries": [{"Name": "first", "Token": ENTRY_TOKEN}, {"Name": "second"}],
    }
    if vault_id:
        model["VaultId"] = vault_id
    return model


def _sam_request(model: dict[str, Any], context: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "credentials": _credentials(),
        "action": "CREATE",
        "request": {
            "clientRequestToken": "4b90a7e4-b790-456b-a937-0cfdfa211dfe",
            "desiredResourceState": model,
            "previousResourceState": None,
            "logicalResourceIdentifier": "MyVault",
        },
        "callbackContext": context,
        "region": "us-east-1",
    }


def _create_run() -> RunRecord:
    steps = []
    for index, status in enumerate(("IN_PROGRESS", "IN_PROGRESS", "SUCCESS")):
        returned = _model("vault|one", vault_id="v-1234")
        progress: dict[str, Any] = {
            "status": status,
            "message": "",
            "callbackContext": {"stage": index, "copied": ENTRY_TOKEN}
            if status != "SUCCESS"
            else None,
            "callbackDelaySeconds": 2 if status != "SUCCESS" else 0,
            "resourceModel": returned,
        }
        findings = [
            Finding(
                "write-only-not-returned",
                Level.MUST,
                f"writeOnly property returned with value {PASSWORD!r}",
                pointer="/Password",
                step=index,
            )
        ]
        if index == 1:
            findings.append(
                Finding(
                    "slow-progress",
                    Level.SHOULD,
                    "IN_PROGRESS with `no` visible progress | twice",
                    pointer="/Name",
                    step=index,
                )
            )
        diff_request = (
            [
                Change("/VaultId", ChangeKind.ADDED, None, "v-1234", note="readOnly"),
                Change("/Name", ChangeKind.CHANGED, "vault", "vault|one"),
            ]
            if index == 0
            else []
        )
        diff_previous = (
            [
                Change("/Password", ChangeKind.CHANGED, "old-pass-value", PASSWORD, "writeOnly"),
                Change("/Entries/0/Token", ChangeKind.ADDED, None, ENTRY_TOKEN),
                Change("/Entries/1", ChangeKind.ADDED, None, {"Name": "x", "Token": ENTRY_TOKEN}),
                Change("/Entries", ChangeKind.CHANGED, [], [{"Token": ENTRY_TOKEN}]),
            ]
            if index == 2
            else []
        )
        steps.append(
            Step(
                index=index,
                action=Action.CREATE,
                function_name="TestEntrypoint",
                request=_sam_request(_model("vault"), {"stage": index - 1} if index else None),
                result=InvokeResult(
                    kind=OutcomeKind.PROGRESS,
                    duration_s=[0.0123, 47.5, 61.25][index],
                    progress=progress,
                    http_status=200,
                    request_id=f"req-{index}",
                    logs=[
                        f"step {index}: création ✓ with password {PASSWORD}",
                        TRICKY_LOG,
                        ANSI_LOG,
                        f"using key {ACCESS_KEY} secret {SECRET_KEY} token {SESSION_TOKEN}",
                    ],
                ),
                started_at=f"2026-11-22T10:00:0{index}+00:00",
                limit_s=60.0,
                callback_delay_s=2.0 if status != "SUCCESS" else 0.0,
                findings=findings,
                diff_request=diff_request,
                diff_previous=diff_previous,
            )
        )
    return RunRecord(
        run_id="run-create",
        event_name="create | `good`",
        event_path="sam-tests/create.json",
        action=Action.CREATE,
        function_name="TestEntrypoint",
        endpoint="http://127.0.0.1:3001",
        started_at="2026-11-22T10:00:00+00:00",
        steps=steps,
        end_reason=EndReason.TERMINAL,
        final_status="SUCCESS",
        chain_findings=[
            Finding("chain-timeout", Level.SHOULD, "chain took 108.8 s of 600 s", step=None)
        ],
        total_s=112.76,
    )


def _update_run() -> RunRecord:
    request = {
        "action": "UPDATE",
        "awsAccountId": "123456789012",
        "bearerToken": BEARER,
        "region": "us-east-1",
        "resourceType": "Example::Export::Vault",
        "callbackContext": None,
        "requestData": {
            "callerCredentials": _credentials(),
            "providerCredentials": _credentials(),
            "logicalResourceId": "MyVault",
            "resourceProperties": _model("vault", vault_id="v-1234"),
            "previousResourceProperties": {**_model("old"), "Password": "previous-PASSWORD"},
        },
    }
    step = Step(
        index=0,
        action=Action.UPDATE,
        function_name="TypeFunction",
        request=request,
        result=InvokeResult(
            kind=OutcomeKind.CRASH,
            duration_s=0.25,
            http_status=200,
            error_type="KeyError",
            error_message=f"'Password' <{PASSWORD}>",
            stack_trace=[
                '  File "handlers.py", line 42, in update_handler',
                "    model.Password[`x`] | boom",
            ],
            logs=["Traceback (most recent call last):", "KeyError: 'Password'"],
        ),
        started_at="2026-11-22T10:05:00+00:00",
        limit_s=60.0,
        findings=[
            Finding(
                "handler-exception",
                Level.MUST,
                "the handler raised <KeyError> instead of returning a ProgressEvent",
                step=0,
            )
        ],
    )
    return RunRecord(
        run_id="run-update",
        event_name="update-crash",
        event_path=None,
        action=Action.UPDATE,
        function_name="TypeFunction",
        endpoint="http://127.0.0.1:3001",
        started_at="2026-11-22T10:05:00+00:00",
        steps=[step],
        end_reason=EndReason.TERMINAL,
        final_status=None,
        chain_findings=[Finding("failed-message", Level.MUST, "FAILED & no message", pointer="")],
        total_s=0.25,
    )


def _read_run() -> RunRecord:
    step = Step(
        index=0,
        action=Action.READ,
        function_name="TestEntrypoint",
        request=_sam_request({"VaultId": "v-1234"}, None),
        result=InvokeResult(
            kind=OutcomeKind.TIMEOUT,
            duration_s=31.0,
            body_excerpt="Task timed out after 30.00 seconds",
            http_status=200,
        ),
        started_at="2026-11-22T10:06:00+00:00",
        limit_s=30.0,
    )
    return RunRecord(
        run_id="run-read",
        event_name="read-timeout",
        event_path="inputs/read.json",
        action=Action.READ,
        function_name="TestEntrypoint",
        endpoint="http://127.0.0.1:3001",
        started_at="2026-11-22T10:06:00+00:00",
        steps=[step],
        end_reason=EndReason.TERMINAL,
        final_status=None,
        total_s=31.0,
    )


def build_session() -> Session:
    return Session(
        runs=[_create_run(), _update_run(), _read_run()],
        project="/home/dev/vault-resource",
        endpoint="http://127.0.0.1:3001",
        version="0.1.0",
        created="2026-11-22T10:00:00+00:00",
    )
