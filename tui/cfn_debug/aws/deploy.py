"""The setup stack deployed into the local AWS through boto3 clients: created, waited for, each
resource of the template looked up in the stack, and the account's exports listed.

moto's CloudFormation skips a resource type it cannot create with a warning and still reports
CREATE_COMPLETE; so after the deploy every resource of the template is looked up in the stack,
and one that is missing is created through its service's API where cfn-debug knows the call
(aws.skipped_types), else warned about by logical id and type while the run goes on. botocore
loads with this module: aws.clients imports it, once AWS is used.
"""

from __future__ import annotations

import ast
import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError
from botocore.parsers import ResponseParserError

from cfn_debug.aws.setup_stack import (
    CLOUDFORMATION_ONLY,
    STACK_NAME,
    Progress,
    SetupError,
    SetupProgress,
    SetupResult,
    template_resources,
)
from cfn_debug.aws.skipped_types import create_skipped, template_bodies

WAIT_S = 300.0

#: The local AWS answered XML botocore cannot parse: moto writes a control character of a value
#: raw into its XML answer, which no XML reader accepts.
UNREADABLE = (
    "the local AWS's answer about the setup stack cannot be read: XML cannot carry a control "
    "character, and an Output, Export name, parameter or resource property of the stack holds "
    "one; remove it from the template"
)


def _referred(logical_id: str, outputs: str) -> bool:
    return (
        re.search(rf"(?<![A-Za-z0-9]){re.escape(logical_id)}(?![A-Za-z0-9])", outputs) is not None
    )


def _failed_resource(client: Any, stack_name: str, resources: dict[str, str]) -> str:
    """The resource the local AWS failed on, from the stack's events where it has them, else
    the template's resources (what the error could be about)."""
    try:
        events = client.describe_stack_events(StackName=stack_name).get("StackEvents", [])
    except Exception:  # the stack may not exist: moto failed inside create_stack
        events = []
    for event in reversed(events):
        logical = event.get("LogicalResourceId")
        if str(event.get("ResourceStatus", "")).endswith("_FAILED") and logical in resources:
            reason = event.get("ResourceStatusReason") or ""
            return f"resource {logical} ({resources[logical]})" + (f": {reason}" if reason else "")
    named = ", ".join(f"{k} ({v})" for k, v in resources.items())
    return f"one of its resources: {named}"


def _not_modelled(resources: dict[str, str]) -> list[str]:
    """The template's resources of types moto's CloudFormation does not model: it skips them,
    and fails inside create_stack on anything (an Output, a GetAtt) that refers to one."""
    try:  # lazy: moto (~2 s of imports, a process's own) only to explain a failed deploy
        from moto.cloudformation.parsing import get_model_map

        modelled = set(get_model_map())
    except Exception:  # a moto this does not know: the message lists every resource instead
        return []
    return [
        f"{logical} ({kind})"
        for logical, kind in resources.items()
        if kind not in modelled and kind not in CLOUDFORMATION_ONLY
    ]


def _service_error(error: BaseException) -> str | None:
    """``Type: message`` of a service's JSON error that moto's CloudFormation answered as is
    (the XML parser then fails on its first character), else None."""
    text = str(error)
    start = text.find("b'{")
    if start < 0:
        return None
    try:
        body = json.loads(ast.literal_eval(text[start:].strip()))
    except (ValueError, SyntaxError, TypeError):
        return None
    if not isinstance(body, dict):
        return None
    kind = str(body.get("__type") or body.get("code") or "an error").rsplit("#", 1)[-1]
    message = str(body.get("message") or body.get("Message") or "").splitlines()
    return f"{kind}: {message[0][:300]}" if message else kind


def _local_failure(error: BaseException) -> str:
    """One line of what the local AWS answered: an HTML error page is named as such."""
    text = str(error).strip()
    lowered = text.lower()
    if "<!doctype html" in lowered or "<html" in lowered:
        return "it answered with a web server's error page (moto failed on it)"
    first = text.splitlines()[0] if text else type(error).__name__
    return f"{type(error).__name__}: {first[:300]}"


def deploy_setup(
    client: Any,
    template: Path,
    *,
    stack_name: str = STACK_NAME,
    progress: Progress | None = None,
    clients: Callable[[str], Any] | None = None,
    region: str = "us-east-1",
    account: str = "123456789012",
) -> SetupResult:
    """Create the stack from ``template`` with ``client`` (a boto3 CloudFormation client), wait
    for it, check that every resource exists, and list the exports. A resource the local AWS's
    CloudFormation skipped is created through its service's API with ``clients`` (a boto3
    client per service name) where cfn-debug knows the call (aws.skipped_types), else warned
    about: the handler may not need it. A failure of the local AWS names the resource and is
    an infrastructure limit (SetupError, exit 2)."""
    report = progress or (lambda _p: None)
    text, resources, outputs = template_resources(template)
    total = len(resources)
    started = time.perf_counter()
    shown = f"{template.parent.name}/{template.name}"
    report(SetupProgress(f"deploying {shown} as stack {stack_name}", 0, total))
    try:
        client.create_stack(
            StackName=stack_name,
            TemplateBody=text,
            Capabilities=["CAPABILITY_IAM", "CAPABILITY_NAMED_IAM", "CAPABILITY_AUTO_EXPAND"],
        )
        status, reason = _wait(client, stack_name)
        found = _stack_resources(client, stack_name)
    except (ClientError, BotoCoreError) as error:
        raise SetupError(f"the setup stack could not be deployed: {error}", path=template) from None
    except Exception as error:  # moto's server failing (an HTML 500 page botocore cannot parse)
        where = _failed_resource(client, stack_name, resources)
        answered = _service_error(error)
        if answered is not None:  # a service's own (JSON) error passed on as CloudFormation's
            raise SetupError(
                f"the setup stack could not be deployed: the local AWS answered {answered} "
                f"while creating {where}",
                path=template,
            ) from None
        if isinstance(error, ResponseParserError) and "not well-formed" in str(error):
            raise SetupError(UNREADABLE, path=template) from None  # XML with a control character
        skipped = _not_modelled(resources)
        if skipped and where.startswith("one of its resources"):
            where = (
                f"a resource or an output that refers to {', '.join(skipped)}, which moto's "
                "CloudFormation does not create"
            )
        raise SetupError(
            f"the local AWS failed while deploying {where}; {_local_failure(error)}: an "
            "infrastructure limit, not a problem of the template or the handler (deploy a "
            "template without it with --setup TEMPLATE, or none with --setup none)",
            path=template,
        ) from None
    if status != "CREATE_COMPLETE":
        raise SetupError(
            f"the setup stack ended {status}" + (f": {reason}" if reason else ""), path=template
        )
    missing: list[str] = []
    for done, (logical_id, kind) in enumerate(resources.items(), start=1):
        physical = found.get(logical_id)
        if not physical and kind in CLOUDFORMATION_ONLY and not _referred(logical_id, outputs):
            report(
                SetupProgress(
                    f"{logical_id} ({kind}) not created: the local AWS (moto) skips this type, "
                    "which lives only inside CloudFormation (no handler can call it)",
                    done,
                    total,
                )
            )
            continue
        if not physical:
            physical = _create_skipped(
                clients, template, logical_id, found, region, account, report, done, total
            )
            if physical:
                found[logical_id] = physical
            else:
                missing.append(f"{logical_id} ({kind})")
            continue
        report(SetupProgress(f"{logical_id} ({kind}) created: {physical}", done, total))
    try:
        exports = list_exports(client)
    except (ClientError, BotoCoreError) as error:
        raise SetupError(f"cannot list the exports: {error}", path=template) from None
    except ResponseParserError:
        raise SetupError(UNREADABLE, path=template) from None
    seconds = time.perf_counter() - started
    report(SetupProgress(f"stack {stack_name} ready: {len(exports)} export(s)", total, total))
    return SetupResult(stack_name, template, resources, exports, seconds, missing)


def _create_skipped(
    clients: Callable[[str], Any] | None,
    template: Path,
    logical_id: str,
    found: dict[str, str],
    region: str,
    account: str,
    report: Progress,
    done: int,
    total: int,
) -> str | None:
    """Create a resource the local AWS's CloudFormation skipped through its service's API;
    else warn naming it (the run goes on). Its physical id, or None."""
    body = template_bodies(template).get(logical_id, {})
    kind = str(body.get("Type", "?"))
    reason = "no client for its service"
    if clients is not None:
        pseudo = {"AWS::Region": region, "AWS::AccountId": account, "AWS::Partition": "aws"}
        pseudo["AWS::StackName"] = STACK_NAME
        outcome = create_skipped(clients, logical_id, body, found, pseudo)
        if outcome.physical:
            report(
                SetupProgress(
                    f"{logical_id} ({kind}) created through its service's API (the local "
                    f"AWS's CloudFormation skips this type): {outcome.physical}",
                    done,
                    total,
                )
            )
            return outcome.physical
        reason = outcome.reason
    report(
        SetupProgress(
            f"warning: {logical_id} ({kind}) not created: the local AWS (moto) skips this type "
            f"({reason}); going on without it (a handler that needs it will fail; --export "
            "NAME=VALUE gives what it would export)",
            done,
            total,
        )
    )
    return None


def _wait(client: Any, stack_name: str) -> tuple[str, str]:
    deadline = time.monotonic() + WAIT_S
    while True:
        stack = client.describe_stacks(StackName=stack_name)["Stacks"][0]
        status = str(stack.get("StackStatus", ""))
        if not status.endswith("_IN_PROGRESS") or time.monotonic() > deadline:
            return status, str(stack.get("StackStatusReason") or "")
        time.sleep(0.2)


def _stack_resources(client: Any, stack_name: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for page in client.get_paginator("list_stack_resources").paginate(StackName=stack_name):
        for summary in page.get("StackResourceSummaries", []):
            logical = summary.get("LogicalResourceId")
            if logical and str(summary.get("ResourceStatus", "")).endswith("_COMPLETE"):
                out[logical] = str(summary.get("PhysicalResourceId") or "")
    return out


def list_exports(client: Any) -> dict[str, str]:
    """Every CloudFormation export of the account and region, as `cfn test` reads them."""
    exports: dict[str, str] = {}
    for page in client.get_paginator("list_exports").paginate():
        exports.update({e["Name"]: str(e["Value"]) for e in page.get("Exports", [])})
    return exports
