"""The AWS side of one session: the options that choose it, and what opening it gives a
workspace (the target's description, the workers' environment, the requests' credentials, the
exports that fill placeholders), with the local AWS stopped on ``close()``."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from cfn_debug.aws.local import LOCAL_ACCOUNT, LOCAL_CREDENTIALS, LocalAws
from cfn_debug.aws.placeholders import Exports, parse_export_options
from cfn_debug.aws.setup_stack import SetupProgress, SetupResult, find_setup_template
from cfn_debug.aws.target import AwsTarget
from cfn_debug.endpoint.env_vars import load_env_vars
from cfn_debug.errors import CfnDebugError

DEFAULT_REGION = "us-east-1"
SKIP_SETUP = "none"  # --setup none
#: Shell variables that name AWS endpoints: the workers get them (boto3 reads them).
ENDPOINT_VARIABLE = "AWS_ENDPOINT_URL"
#: The attribute of the parsed arguments that holds a local AWS spawned ahead (prelaunch_local).
LAUNCHED = "launched_local_aws"

Progress = Callable[[SetupProgress], None]


@dataclass
class AwsOptions:
    """--local-aws, --aws-endpoint-url, --env-vars, --export and --setup, as given."""

    local: bool = False
    endpoint_url: str | None = None
    env_vars_file: Path | None = None
    exports: dict[str, str] = field(default_factory=dict)
    setup: Path | None = None
    skip_setup: bool = False  # --setup none: deploy nothing; values come from --export
    #: With --local-aws: a LocalAws the command already spawned (see prelaunch_local).
    launched: Any = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> AwsOptions:
        """Checked: a usage mistake is a CfnDebugError (exit 2) before anything starts."""
        local = bool(getattr(args, "local_aws", False))
        url = getattr(args, "aws_endpoint_url", None)
        setup = getattr(args, "setup", None)
        env_file = getattr(args, "env_vars", None)
        if local and url:
            raise CfnDebugError(
                "give either --local-aws (cfn-debug starts one) or --aws-endpoint-url (one you "
                "run), not both",
                field="--aws-endpoint-url",
            )
        if url is not None and not str(url).startswith(("http://", "https://")):
            raise CfnDebugError(
                f"expected a URL such as http://127.0.0.1:5000, got {url!r}",
                field="--aws-endpoint-url",
            )
        if setup and not local:
            raise CfnDebugError(
                "the setup stack is deployed into the local AWS: add --local-aws", field="--setup"
            )
        if local and getattr(args, "profile", None):
            raise CfnDebugError(
                "--local-aws uses credentials the local AWS accepts; a profile's would not "
                "reach it: give one or the other",
                field="--profile",
            )
        if local and str(getattr(args, "endpoint", None) or "").strip().lower() == "aws":
            raise CfnDebugError(
                "deployed functions cannot reach a local AWS on this machine", field="--local-aws"
            )
        return cls(
            local=local,
            endpoint_url=url,
            env_vars_file=Path(env_file).expanduser() if env_file else None,
            exports=parse_export_options(getattr(args, "export", None)),
            setup=Path(setup) if setup and setup != SKIP_SETUP else None,
            skip_setup=setup == SKIP_SETUP,
            launched=getattr(args, LAUNCHED, None) if local else None,
        )


@dataclass
class AwsSession:
    """What a workspace gets from opening its AWS. ``close()`` stops the local AWS."""

    target: AwsTarget
    exports: Exports
    env_vars: dict[str, dict[str, str]] | None  # for the embedded endpoint (SAM's shape)
    credentials: dict[str, str] | None = None  # the requests' credentials, when not --profile's
    account: str | None = None
    setup: SetupResult | None = None
    local: Any = None  # the LocalAws this session started

    def close(self) -> None:
        local, self.local = self.local, None
        if local is not None:
            local.stop()


def open_aws(
    options: AwsOptions | None,
    *,
    root: Path,
    region: str | None,
    profile: str | None,
    env_vars: dict[str, Any] | None = None,
    external_endpoint: str | None = None,
    progress: Progress | None = None,
    local: Any = None,
) -> AwsSession:
    """Start the local AWS and deploy the setup stack (--local-aws), or describe the AWS the
    options, the --env-vars file or the shell name; a failure stops what was started."""
    options = options or AwsOptions()
    region = region or DEFAULT_REGION
    report = progress or (lambda _p: None)
    merged = _merge_env_vars(_load_env_file(options.env_vars_file), env_vars)
    manual = dict(options.exports)
    if options.local:
        return _open_local(options, root, region, merged, manual, external_endpoint, report, local)
    url, origin = options.endpoint_url, "--aws-endpoint-url"
    if url is None:
        url, origin = _configured_endpoint(merged)
    if url is not None:
        target = AwsTarget(
            "endpoint",
            region,
            url=url,
            origin=origin,
            profile=profile,
            external_endpoint=external_endpoint,
        )
        worker = {ENDPOINT_VARIABLE: url, **_shell_service_endpoints()}
        loader = _exports_loader(url, region, profile)
        exports = Exports(manual, loader=loader, source=f"the exports of {url}")
        return AwsSession(target, exports, _with_worker_env(merged, worker))
    if profile:
        account, error = _clients().account(profile, region)
        target = AwsTarget("real", region, profile=profile, account=account, account_error=error)
        exports = Exports(
            manual,
            loader=_exports_loader(None, region, profile),
            source=f"the exports of account {account or '?'} ({region})",
        )
        return AwsSession(target, exports, merged, account=account)
    return AwsSession(AwsTarget("none", region), Exports(manual), merged)


def launch_local(options: AwsOptions | None) -> Any:
    """With --local-aws: a LocalAws already spawned (not yet waited for), so that moto starts
    while the caller does its own work; else None. ``open_aws(..., local=it)`` takes it over.
    The one prelaunch_local spawned, when there is one."""
    if options is None or not options.local:
        return None
    if options.launched is not None:
        return options.launched
    local = LocalAws()
    local.launch()
    return local


def prelaunch_local(args: argparse.Namespace) -> Any:
    """With --local-aws (and valid AWS options): spawn the local AWS now, before the command
    imports its engine, and note it in ``args`` for AwsOptions.from_args, so the workspace the
    command opens takes it over; else None. Stop it when the command ends (a workspace that
    took it over has stopped it already: stopping twice is harmless)."""
    if not getattr(args, "local_aws", False):
        return None
    options = AwsOptions.from_args(args)  # a usage mistake: exit 2 before anything starts
    local = launch_local(options)
    setattr(args, LAUNCHED, local)
    return local


def _open_local(
    options: AwsOptions,
    root: Path,
    region: str,
    env_vars: dict[str, dict[str, str]] | None,
    manual: dict[str, str],
    external_endpoint: str | None,
    report: Progress,
    launched: Any = None,
) -> AwsSession:
    local = launched or LocalAws()
    report(SetupProgress("starting the local AWS (moto)"))
    try:
        template = None if options.skip_setup else find_setup_template(root, options.setup)
        local.launch()  # nothing when launch_local already did
        clients = _clients()  # boto3 loads while moto starts
        clients.warm_up(region)
        url = local.wait_ready()
        report(SetupProgress(f"local AWS listening at {url}"))
        setup = None
        if template is not None:
            setup = clients.deploy_local_setup(url, region, template, report)
            listed = dict(setup.exports)
        else:
            why = "--setup none" if options.skip_setup else "no test/setup.yml"
            report(SetupProgress(f"{why}: no setup stack to deploy"))
            listed = {}
    except BaseException:
        local.stop()
        raise
    target = AwsTarget(
        "local",
        region,
        url=url,
        origin="--local-aws",
        setup_stack=setup.stack_name if setup else None,
        exports=len(listed) if setup else None,
        external_endpoint=external_endpoint,
    )
    worker = {
        ENDPOINT_VARIABLE: url,
        # for handler code that builds its own clients instead of using the request's session
        "AWS_ACCESS_KEY_ID": LOCAL_CREDENTIALS["accessKeyId"],
        "AWS_SECRET_ACCESS_KEY": LOCAL_CREDENTIALS["secretAccessKey"],
        "AWS_SESSION_TOKEN": LOCAL_CREDENTIALS["sessionToken"],
    }
    source = f"the local AWS (stack {setup.stack_name})" if setup else "the local AWS"
    return AwsSession(
        target,
        Exports(manual, listed=listed, source=source),
        _with_worker_env(env_vars, worker),
        credentials=dict(LOCAL_CREDENTIALS),
        account=LOCAL_ACCOUNT,
        setup=setup,
        local=local,
    )


def _load_env_file(path: Path | None) -> dict[str, dict[str, str]] | None:
    if path is None:
        return None
    return load_env_vars(str(path))


def _merge_env_vars(
    first: dict[str, dict[str, str]] | None, second: dict[str, Any] | None
) -> dict[str, dict[str, str]] | None:
    if first is None and second is None:
        return None
    out: dict[str, dict[str, str]] = {}
    for source in (first or {}, second or {}):
        for section, values in source.items():
            out.setdefault(section, {}).update(values)
    return out


def _with_worker_env(
    env_vars: dict[str, dict[str, str]] | None, worker: dict[str, str]
) -> dict[str, dict[str, str]]:
    """The user's --env-vars with the AWS settings over its Parameters section."""
    out = {section: dict(values) for section, values in (env_vars or {}).items()}
    out["Parameters"] = {**out.get("Parameters", {}), **worker}
    return out


def _configured_endpoint(
    env_vars: dict[str, dict[str, str]] | None,
) -> tuple[str | None, str]:
    """AWS_ENDPOINT_URL from the --env-vars file's Parameters, else from the shell."""
    from_file = (env_vars or {}).get("Parameters", {}).get(ENDPOINT_VARIABLE)
    if from_file:
        return from_file, "--env-vars"
    from_shell = os.environ.get(ENDPOINT_VARIABLE)
    if from_shell:
        return from_shell, f"{ENDPOINT_VARIABLE} in the shell"
    return None, ""


def _shell_service_endpoints() -> dict[str, str]:
    """AWS_ENDPOINT_URL_<SERVICE> variables of the shell (boto3 reads them per service)."""
    prefix = ENDPOINT_VARIABLE + "_"
    return {k: v for k, v in os.environ.items() if k.startswith(prefix) and v}


def _clients() -> ModuleType:
    """aws.clients, where boto3 and botocore are, imported when the session first uses AWS."""
    from cfn_debug.aws import clients  # lazy: boto3 and botocore only once a session uses AWS

    return clients


def _exports_loader(
    url: str | None, region: str, profile: str | None
) -> Callable[[], dict[str, str]]:
    def load() -> dict[str, str]:
        return _clients().load_exports(url, region, profile)

    return load
