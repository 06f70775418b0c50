"""boto3 clients for a session's AWS (the local AWS, an endpoint, a profile's account) and what
the session asks of them: the profile's account id, the CloudFormation exports, the setup stack
deployed into the local AWS. boto3 and botocore load with this module: aws.session imports it
when a session first uses AWS, never at start-up."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from cfn_debug.aws.deploy import deploy_setup, list_exports
from cfn_debug.aws.local import LOCAL_ACCOUNT, LOCAL_CREDENTIALS
from cfn_debug.aws.setup_stack import Progress, SetupResult
from cfn_debug.credentials import PLACEHOLDER_CREDENTIALS
from cfn_debug.errors import CfnDebugError


def client(service: str, url: str | None, region: str, credentials: dict[str, str]) -> Any:
    """A client of ``service`` at ``url`` (None: AWS's own) with ``credentials``."""
    return boto3.client(
        service,
        endpoint_url=url,
        region_name=region,
        aws_access_key_id=credentials["accessKeyId"],
        aws_secret_access_key=credentials["secretAccessKey"],
        aws_session_token=credentials.get("sessionToken") or None,
        config=Config(retries={"max_attempts": 2}, connect_timeout=5, read_timeout=60),
    )


def warm_up(region: str) -> None:
    """Build a client while the local AWS starts: botocore's data files and first-use set-up are
    paid then, not when the setup stack is deployed."""
    client("sts", None, region, LOCAL_CREDENTIALS)


def deploy_local_setup(url: str, region: str, template: Path, progress: Progress) -> SetupResult:
    """The setup stack ``template`` deployed into the local AWS at ``url`` (see aws.deploy)."""
    return deploy_setup(
        client("cloudformation", url, region, LOCAL_CREDENTIALS),
        template,
        progress=progress,
        clients=lambda service: client(service, url, region, LOCAL_CREDENTIALS),
        region=region,
        account=LOCAL_ACCOUNT,
    )


def load_exports(url: str | None, region: str, profile: str | None) -> dict[str, str]:
    """The CloudFormation exports of the endpoint at ``url`` or of the profile's account;
    CfnDebugError (naming the option) when they cannot be listed."""
    where = url or f"profile {profile}"
    try:
        if profile:
            session = boto3.Session(profile_name=profile, region_name=region)
            cloudformation = session.client("cloudformation", endpoint_url=url)
        else:
            cloudformation = client("cloudformation", url, region, PLACEHOLDER_CREDENTIALS)
        return list_exports(cloudformation)
    except (BotoCoreError, ClientError) as error:
        raise CfnDebugError(
            f"cannot list the CloudFormation exports ({where}) to fill placeholders: {error}",
            field="--aws-endpoint-url" if url else "--profile",
        ) from None


def account(profile: str, region: str) -> tuple[str | None, str | None]:
    """The profile's account id from STS, or why it is unknown (offline, expired, ...)."""
    try:
        sts = boto3.Session(profile_name=profile, region_name=region).client(
            "sts", config=Config(retries={"max_attempts": 0}, connect_timeout=3, read_timeout=5)
        )
        return str(sts.get_caller_identity()["Account"]), None
    except Exception as error:  # offline, expired, ...: the description says so, nothing fails
        return None, f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
