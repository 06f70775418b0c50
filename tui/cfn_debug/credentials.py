"""The placeholder credentials cfn-debug puts in requests when no AWS profile is given."""

from __future__ import annotations

#: Credentials put in requests when no --profile is given: they look like AWS keys (so handler
#: code that parses them does not choke) and are redacted like real ones.
PLACEHOLDER_CREDENTIALS: dict[str, str] = {
    "accessKeyId": "AKIACFNDEBUGEXAMPLE0",
    "secretAccessKey": "cfn-debug-placeholder",
    "sessionToken": "cfn-debug-placeholder",
}
