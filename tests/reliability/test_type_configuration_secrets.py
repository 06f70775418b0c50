"""Secrets in a type configuration: values under keys that look secret (ApiToken, DbPassword,
ClientSecret, ApiKey, nested too) are masked like writeOnly values in `run --json` and in every
export, and scrubbed from the handler's log lines that echo them; keys that only name something
(KeyName, SecretArn, TokenUrl) keep their values; --reveal-write-only shows them all. The handler
(LogEvent) logs its whole event, type configuration included."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cfn_debug.text.redact import secret_looking_key
from reliability.support import HOSTILE, REPO, child_env, sam_event, write_json
from support.cli import run_cli

pytestmark = pytest.mark.timeout(180)

SECRET_VALUES = {
    "ApiToken": "tc-api-token-value-0001",
    "DbPassword": "tc-db-password-value-0002",
    "api_key": "tc-api-key-value-0003",
}
NESTED_SECRET = "tc-nested-client-secret-0004"
PLAIN_VALUES = {
    "KeyName": "my-ec2-keypair-name",
    "SecretArn": "arn:aws:secretsmanager:us-east-1:123456789012:secret:plain",
    "TokenUrl": "https://auth.example.com/token",
}
ALL_SECRETS = [*SECRET_VALUES.values(), NESTED_SECRET]


def cfn_debug(*args: str, state: Path) -> subprocess.CompletedProcess[bytes]:
    return run_cli(
        *args, env=child_env(XDG_STATE_HOME=str(state)), cwd=REPO, timeout=150, text=False
    )


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("typeconfig")
    event = sam_event("tc", Name="tc")
    event["request"]["typeConfiguration"] = {
        **SECRET_VALUES,
        **PLAIN_VALUES,
        "Auth": {"ClientSecret": NESTED_SECRET, "ClientId": "client-id-plain"},
    }
    path = write_json(root / "tc.json", event)
    journal = root / "tc.jsonl"
    target = ["--project", str(HOSTILE), "--function-name", "LogEvent"]
    as_json = cfn_debug("run", str(path), *target, "--json", "--journal", str(journal), state=root)
    return {"root": root, "journal": journal, "json": as_json}


def test_the_key_rule() -> None:
    for key in ("ApiToken", "DbPassword", "ClientSecret", "api_key", "APIKey", "PrivateKey"):
        assert secret_looking_key(key), key
    for key in ("KeyName", "KeyId", "SecretArn", "TokenUrl", "PasswordLength", "Region"):
        assert not secret_looking_key(key), key


def test_run_json_masks_secret_looking_type_configuration_values(ran: dict[str, Any]) -> None:
    proc = ran["json"]
    assert proc.returncode == 0, proc.stderr[-3000:]
    text = proc.stdout.decode("utf-8")
    assert [s for s in ALL_SECRETS if s in text] == []
    document = json.loads(text)
    step = document["runs"][0]["steps"][0]
    config = step["request"]["requestData"]["typeConfiguration"]
    assert config["ApiToken"] == "***SECRET***" and config["Auth"]["ClientSecret"] == "***SECRET***"
    assert config["KeyName"] == PLAIN_VALUES["KeyName"] and config["Auth"]["ClientId"]
    assert any("tc-" not in line and "KeyName" in line for line in step["result"]["logs"])


@pytest.mark.parametrize("fmt", ["json", "md", "html", "junit"])
def test_exports_mask_them_and_reveal_shows_them(ran: dict[str, Any], fmt: str) -> None:
    out = Path(ran["root"]) / f"tc.{fmt}"
    proc = cfn_debug(
        "export", str(ran["journal"]), "--format", fmt, "-o", str(out), state=ran["root"]
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    text = out.read_text(encoding="utf-8")
    assert [s for s in ALL_SECRETS if s in text] == []
    if fmt == "json":
        assert PLAIN_VALUES["KeyName"] in text
        shown = cfn_debug(
            "export", str(ran["journal"]), "--reveal-write-only", state=ran["root"]
        ).stdout.decode("utf-8")
        assert all(s in shown for s in ALL_SECRETS)
