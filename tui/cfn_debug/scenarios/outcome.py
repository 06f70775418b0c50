"""Reading what a scenario's chains ended with: status, error code, message and model of a
run's last ProgressEvent, the identifiers a listing named, what a read returned that the request
did not ask for; and the records the actions hand back (:class:`Created`, :class:`Listing`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cfn_debug.contract.requested import comparable_request, requested_differences
from cfn_debug.records import RunRecord
from cfn_debug.scenarios.inputs import identifier_key, identifier_text
from cfn_debug.schema import ResourceSchema

if TYPE_CHECKING:
    from cfn_debug.scenarios.play import Play


# --- reading a chain's outcome ------------------------------------------------------------------


def final_progress(run: RunRecord) -> dict[str, Any]:
    if not run.steps or run.steps[-1].result.progress is None:
        return {}
    progress = run.steps[-1].result.progress
    return progress if isinstance(progress, dict) else {}


def status_of(run: RunRecord) -> str:
    status = final_progress(run).get("status")
    return status if isinstance(status, str) else (run.final_status or "no answer")


def error_code_of(run: RunRecord) -> str | None:
    code = final_progress(run).get("errorCode")
    return code if isinstance(code, str) else None


def message_of(run: RunRecord) -> str:
    message = final_progress(run).get("message")
    return message if isinstance(message, str) else ""


def model_of(run: RunRecord) -> dict[str, Any] | None:
    model = final_progress(run).get("resourceModel")
    return model if isinstance(model, dict) else None


def succeeded(run: RunRecord) -> bool:
    return status_of(run) == "SUCCESS"


def failed_with(run: RunRecord, code: str) -> bool:
    return status_of(run) == "FAILED" and error_code_of(run) == code


def describe(run: RunRecord) -> str:
    """``SUCCESS``, ``FAILED NotFound: "message"``, ``CRASH``, ..."""
    text = status_of(run)
    code = error_code_of(run)
    if code:
        text += f" {code}"
    message = message_of(run)
    if message:
        text += f': "{message if len(message) <= 160 else message[:157] + "..."}"'
    return text


def judge_listed(p: Play, rule_id: str, identifier: Any, listing: Any, *, present: bool) -> bool:
    """Judge ``rule_id`` on whether ``identifier`` is (``present``) or is no longer among the
    models of ``listing``; False also when the list failed."""
    label = listing.runs[-1].event_name.split(": ", 1)[-1] if listing.runs else "list"
    if not listing.runs or not succeeded(listing.runs[-1]):
        p.verdict(rule_id, False, f"list ended {describe(listing.runs[-1])}", label)
        return False
    found = identifier_key(identifier) in listing.identifiers(p.schema)
    where = f"{len(listing.models)} model(s) over {len(listing.runs)} page(s)"
    if not listing.complete:
        where += ", pagination incomplete"
    text = identifier_text(identifier)
    if present:
        message = f"{text} {'is' if found else 'is not'} among the {where}"
    else:
        message = f"{text} {'is still' if found else 'is no longer'} among the {where}"
    ok = found if present else not found
    p.verdict(rule_id, ok, message, label, "/resourceModels")
    return ok


def models_of_chain(run: RunRecord) -> list[dict[str, Any]]:
    out = []
    for step in run.steps:
        model = (step.result.progress or {}).get("resourceModel")
        if isinstance(model, dict):
            out.append(model)
    return out


def _calls(run: RunRecord) -> list[tuple[str, str, str]]:
    return [
        (c.service, c.operation, json.dumps(c.params, sort_keys=True, default=str))
        for step in run.steps
        for c in step.aws_calls
    ]


#: How the operations begin whose repeat AWS commonly refuses (the thing already exists, or is
#: gone) where moto sometimes answers success. A repeat made only of other calls (Put, Get,
#: Describe, Update, Tag, ...) AWS answers as moto did, so the handler's answer is judged.
REFUSED_WHEN_REPEATED = (
    "Create",
    "Delete",
    "Register",
    "Deregister",
    "Add",
    "Remove",
    "Associate",
    "Disassociate",
    "Attach",
    "Detach",
    "Allocate",
    "Release",
    "Import",
    "Terminate",
)


def stand_in_repeat(p: Play, first: RunRecord, again: RunRecord) -> str | None:
    """Why a repeated action's SUCCESS (a second create of the same input, a second delete) may
    be the local AWS's answer, not the handler's, or None: against moto (or another stand-in at
    --aws-endpoint-url) it made the very calls the first made and each succeeded. Such a handler
    leaves it to the service to say the resource exists or is gone; AWS answers most of these
    with an error the handler passes on (AlreadyExists, NotFound), and moto does not always
    (IAM's CreateSAMLProvider and DeleteSAMLProvider, say). Only when one of the calls is of a
    kind AWS refuses to repeat (``REFUSED_WHEN_REPEATED``): a create made of an upsert (S3
    Control's PutPublicAccessBlock) succeeds twice against AWS too, and is judged."""
    target = p.runner.workspace.aws_target
    if target is None or target.kind not in ("local", "endpoint") or not succeeded(again):
        return None
    calls = _calls(again)
    if not calls or calls != _calls(first):
        return None
    if any(c.failed for step in again.steps for c in step.aws_calls):
        return None
    if not any(operation.startswith(REFUSED_WHEN_REPEATED) for _, operation, _ in calls):
        return None  # a Put (an upsert) twice: AWS too answers success, the answer is the handler's
    names = ", ".join(dict.fromkeys(f"{service} {operation}" for service, operation, _ in calls))
    return (
        f"ended SUCCESS after the same calls as the first ({names}), each answered with success "
        "by the local AWS, which does not always refuse a repeated create or delete as AWS "
        "does: not judged here (against AWS, --profile, it is)"
    )


# --- comparing what was asked with what reads back ----------------------------------------------


def read_back_problems(
    schema: ResourceSchema, expected: dict[str, Any], actual: dict[str, Any]
) -> list[tuple[str, str]]:
    """(pointer, text) for every requested value that does not read back equal: writeOnly and
    readOnly properties excepted (as `cfn test` compares), extra properties allowed, arrays
    whole (insertionOrder false: as multisets, which :func:`cfn_debug.diff.diff_models` does)."""
    want = comparable_request(schema, expected)
    return requested_differences(want, actual, schema, verb="read back")


# --- what the actions hand back -----------------------------------------------------------------


@dataclass
class Created:
    run: RunRecord
    identifier: dict[str, Any] | None  # the first primary identifier the chain named
    model: dict[str, Any]  # the final model, with that identifier


@dataclass
class Listing:
    runs: list[RunRecord] = field(default_factory=list)
    models: list[dict[str, Any]] = field(default_factory=list)
    complete: bool = False  # every page was read, ending with no nextToken
    first_page: dict[str, Any] = field(default_factory=dict)  # the first ProgressEvent

    def identifiers(self, schema: ResourceSchema) -> set[str]:
        return {identifier_key(schema.identifier_of(m)) for m in self.models}
