"""A type whose handlers need its type configuration, run without one (Datadog::Monitors::
Downtime: every handler answered GeneralServiceException "'NoneType' object has no attribute
'DatadogCredentials'"): every create was blocked, and update-without-create reported a MUST
(not NotFound) that a correct handler lacking its configuration gives too. Reproduced with a
fixture type of our own (tests/trial/projects/configured-api)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.aws.conftest import cfn_debug, document

CONFIGURED_API = Path(__file__).parent / "projects" / "configured-api"


def _outcomes(*extra: str) -> tuple[int, dict[str, dict]]:
    proc = cfn_debug(
        "scenario", "create-read", "update-without-create", "--project", str(CONFIGURED_API),
        "--json", *extra,
    )  # fmt: skip
    return proc.returncode, {s["name"]: s for s in document(proc)["scenarios"]}


@pytest.mark.slow
def test_update_without_create_is_not_judged_when_no_create_could_succeed() -> None:
    code, scenarios = _outcomes()
    assert code == 2
    update = scenarios["update-without-create"]
    assert update["outcome"] == "blocked" and update["must_findings"] == 0
    assert not [v for v in update["verdicts"] if v["status"] == "fail"], update["verdicts"]
    assert any("no create has succeeded in this run" in n for n in update["notes"])
    # with its configuration the handler works, and the rule judges it
    code, scenarios = _outcomes("--type-configuration", '{"ApiKey": "abcdef"}')
    assert code == 0, scenarios
    assert scenarios["update-without-create"]["outcome"] == "passed"
