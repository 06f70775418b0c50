"""Which AWS the handlers talk to in a session, described in one line for the terminal and the
dashboard's header."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Kind = Literal["local", "endpoint", "real", "none"]
NO_AWS_HINT = "give --local-aws, --profile or --aws-endpoint-url"


@dataclass(frozen=True)
class AwsTarget:
    """local: moto started by cfn-debug; endpoint: an AWS-compatible URL the user runs; real: an
    account through --profile; none: placeholder credentials, no endpoint."""

    kind: Kind
    region: str = "us-east-1"
    url: str | None = None
    origin: str = ""  # where the URL came from: --aws-endpoint-url, the shell, --env-vars
    profile: str | None = None
    account: str | None = None
    account_error: str | None = None  # why the account is unknown (real)
    setup_stack: str | None = None  # the deployed setup stack (local)
    exports: int | None = None  # how many exports the setup stack made available
    external_endpoint: str | None = None  # handlers run behind an endpoint cfn-debug cannot set up

    def describe(self) -> str:
        """One line: "AWS: local moto at http://127.0.0.1:PORT ..." and the like."""
        if self.kind == "local":
            text = f"AWS: local (moto at {self.url}, started for this session, {self.region})"
            if self.setup_stack:
                text += f"; setup stack {self.setup_stack} with {self.exports or 0} export(s)"
        elif self.kind == "endpoint":
            text = f"AWS: the endpoint {self.url} ({self.origin}, {self.region})"
            if self.profile:
                text += f" with the credentials of profile {self.profile}"
        elif self.kind == "real":
            account = self.account or f"unknown ({self.account_error or 'not looked up'})"
            text = f"AWS: real account {account} (profile {self.profile}, {self.region})"
        else:
            return (
                "AWS: none (requests carry placeholder credentials: a handler's first AWS call "
                f"will fail; {NO_AWS_HINT})"
            )
        if self.external_endpoint and self.kind in ("local", "endpoint"):
            text += (
                f"; the handlers run behind {self.external_endpoint}, which cfn-debug cannot "
                f"point at it: set AWS_ENDPOINT_URL={self.url} there"
            )
        return text

    def short(self) -> str:
        """A few words for the dashboard's header: "local moto :PORT", "none", ..."""
        if self.kind == "local":
            port = (self.url or "").rsplit(":", 1)[-1]
            return f"local moto :{port}" if port.isdigit() else "local moto"
        if self.kind == "endpoint":
            return f"endpoint {self.url}"
        if self.kind == "real":
            return f"account {self.account or '?'} ({self.profile}, {self.region})"
        return "none"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "region": self.region,
            "url": self.url,
            "origin": self.origin or None,
            "profile": self.profile,
            "account": self.account,
            "setup_stack": self.setup_stack,
            "exports": self.exports,
            "description": self.describe(),
        }


def no_aws_note(target: AwsTarget | None) -> str | None:
    """What to say after a failure when the handlers had no AWS (None when they had one)."""
    if target is not None and target.kind != "none":
        return None
    return (
        "note: no AWS was configured for the handlers (placeholder credentials): a failure of "
        f"their AWS calls is expected; {NO_AWS_HINT}"
    )
