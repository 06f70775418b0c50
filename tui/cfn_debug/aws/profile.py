"""A named AWS profile's credentials, from boto3's credential chain (--profile). boto3 and
botocore load with this module: events.resolve_credentials imports it only for a --profile."""

from __future__ import annotations

import boto3
from botocore.exceptions import BotoCoreError

from cfn_debug.errors import CfnDebugError


def profile_credentials(profile: str) -> dict[str, str]:
    """The credentials of ``profile`` as a request carries them, or a CfnDebugError naming
    --profile when there are none."""
    try:
        found = boto3.Session(profile_name=profile).get_credentials()
    except BotoCoreError as exc:
        raise CfnDebugError(str(exc), field="--profile") from None
    if found is None:
        raise CfnDebugError(
            f"no credentials found for profile {profile!r} (expected them in ~/.aws/credentials, "
            "~/.aws/config or the environment)",
            field="--profile",
        )
    frozen = found.get_frozen_credentials()
    return {
        "accessKeyId": frozen.access_key,
        "secretAccessKey": frozen.secret_key,
        "sessionToken": frozen.token or "",
    }
