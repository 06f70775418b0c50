"""The invoker a workspace sends its requests through, as ``--endpoint`` names it: the embedded
endpoint (started here for the project), a local endpoint URL, or the deployed function on AWS."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cfn_debug.debugger.options import DebugOptions
from cfn_debug.errors import CfnDebugError, ProjectError
from cfn_debug.invoke.base import Invoker
from cfn_debug.invoke.local import LocalInvoker
from cfn_debug.project import Project
from cfn_debug.pylib.shape import find_library

if TYPE_CHECKING:
    from cfn_debug.endpoint.pyenv import ProgressCallback

#: How long an answer is waited for when the handler may be stopped in a debugger (a day).
DEBUGGING_READ_TIMEOUT_S = 86_400.0


def handler_library(project: Project, embedded: Any) -> Any:
    """The handler's cloudformation-cli-python-lib when its request shape differs from the one
    cfn-debug builds (an old version: pylib.shape), else None."""
    code_dirs = sorted({spec.code_dir for spec in project.functions.values()})
    shape = find_library(getattr(embedded, "python", None), code_dirs)
    return shape if shape is not None and shape.needs_fitting() else None


def connect(
    project: Project,
    endpoint: str | None,
    function_name: str | None,
    region: str | None,
    profile: str | None,
    env_vars: dict[str, Any] | None,
    python: str | None = None,
    on_env_progress: ProgressCallback | None = None,
    node: str | None = None,
    debug: DebugOptions | None = None,
) -> tuple[Invoker, str, Any]:
    """The invoker ``endpoint`` names, its label and the embedded endpoint it started (or None):
    None starts the embedded endpoint for the project, "aws" invokes the deployed
    ``function_name``, a URL names a local endpoint (SAM, the emulator)."""
    if endpoint is not None and debug is not None and debug.wanted:
        raise CfnDebugError(
            "stopping in a handler needs the embedded endpoint (no --endpoint): it runs the "
            "handler's process",
            field="--debug-port" if debug.port is not None else "--break-at",
        )
    if endpoint is None:
        if project.functions_error is not None:
            raise project.functions_error
        if not project.functions:
            raise ProjectError(
                "no functions to serve: expected a template.yml with AWS::Serverless::Function "
                "resources (or give --endpoint)",
                path=project.root,
            )

        # lazy: the endpoint's HTTP server, pool and workers (~100 ms of imports) load only when
        # an embedded endpoint starts, not for `scenario list`, `schema` or --endpoint URL
        from cfn_debug.endpoint.server import EmbeddedEndpoint

        debug = debug or DebugOptions()
        embedded = EmbeddedEndpoint(
            project.root,
            env_vars=env_vars,
            python=python,
            on_env_progress=on_env_progress,
            node=node,
            debugger=debug.on_session,
            debug_port=debug.port,
            break_at=debug.break_at,
        )
        embedded.start()
        stoppable = debug.on_session is not None or debug.port is not None
        try:
            invoker = LocalInvoker(
                embedded.url,
                logs=embedded.logs_for,
                aws_calls=embedded.aws_calls_for,
                aws_calls_note=embedded.aws_calls_note,
                # a handler stopped in a debugger answers when the user is done
                **({"read_timeout_s": DEBUGGING_READ_TIMEOUT_S} if stoppable else {}),
            )
        except BaseException:
            embedded.stop()
            raise
        return invoker, f"embedded {embedded.url}", embedded
    if endpoint.strip().lower() == "aws":
        if not function_name:
            raise CfnDebugError(
                "expected the name or ARN of the deployed function with --endpoint aws",
                field="--function-name",
            )
        # lazy: invoke.aws imports boto3 (~0.3 s), which only --endpoint aws needs here
        from cfn_debug.invoke.aws import AwsInvoker, known_region

        if not region and not known_region(function_name, profile):
            raise CfnDebugError(
                "expected a region for --endpoint aws: give --region, set AWS_REGION, or name "
                "one in the profile (or give the function's ARN)",
                field="--region",
            )
        invoker_aws = AwsInvoker(region, profile)
        return invoker_aws, invoker_aws.label, None
    if not endpoint.startswith(("http://", "https://")):
        raise CfnDebugError(
            f"expected a URL such as http://127.0.0.1:3001, or 'aws', got {endpoint!r}",
            field="--endpoint",
        )

    local = LocalInvoker(endpoint)
    return local, local.label, None
