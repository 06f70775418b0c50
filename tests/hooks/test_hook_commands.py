"""`cfn-debug run` and `scenario all --json` on hooks written with cloudformation-cli-python-lib's
hook interface, end to end on the embedded endpoint: a correct hook gets its verdicts and no
finding (exit 0), each planted contract fault a MUST (exit 1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import (
    BUCKET_CHECK,
    LAMBDA_HOOK,
    STAGED_REVIEW,
    cfn_debug,
    document,
    findings,
)

#: Each test runs the CLI as a process on the embedded endpoint: several seconds each.
pytestmark = pytest.mark.slow


def _verdicts(doc: dict) -> dict[str, str | None]:
    return {run["event_name"]: run.get("verdict") for run in doc["runs"]}


def test_run_gives_each_verdict_and_no_finding_on_a_correct_hook(tmp_path: Path) -> None:
    proc = cfn_debug("run", "--project", str(BUCKET_CHECK), "--json", "--no-journal", home=tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = document(proc)
    verdicts = _verdicts(doc)
    assert verdicts["inputs/inputs_1_pre_create AWS::S3::Bucket"] == "allowed"
    assert verdicts["inputs/inputs_1_invalid pre_create AWS::S3::Bucket"] == "refused"
    assert verdicts["inputs/inputs_1_invalid_pre_delete AWS::S3::Bucket"] == "refused"
    assert verdicts["sample_events/pre-create-unencrypted"] == "refused"
    assert all(findings(run) == [] for run in doc["runs"]), json.dumps(doc["runs"])[:3000]
    request = doc["runs"][0]["steps"][0]["request"]
    assert request["actionInvocationPoint"] == "CREATE_PRE_PROVISION"
    assert request["requestData"]["callerCredentials"] != ""  # sent, and redacted in the output
    assert "secretAccessKey" not in json.dumps(request)


@pytest.mark.parametrize(
    ("fault", "rule"),
    [
        ("NoMessage", "hook-failed-message"),
        ("NoErrorCode", "hook-failed-error-code"),
        ("SuccessWithDelay", "hook-success-clean"),
        ("SuccessWithErrorCode", "hook-success-clean"),
        ("Raise", "hook-handler-exception"),
        ("InProgressErrorCode", "hook-in-progress-clean"),
        ("AllowEverything", "hook-refuses-invalid-input"),
    ],
)
def test_each_planted_fault_is_a_must(tmp_path: Path, fault: str, rule: str) -> None:
    proc = cfn_debug(
        "run", "--project", str(BUCKET_CHECK), "--json", "--no-journal",
        "--type-configuration", json.dumps({"Fault": fault}), "--max-delay", "0",
        home=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    found = {f for run in document(proc)["runs"] for f in findings(run)}
    assert (rule, "MUST") in found, found


def test_scenario_all_runs_the_cli_contract_tests(tmp_path: Path) -> None:
    proc = cfn_debug("scenario", "all", "--project", str(BUCKET_CHECK), "--json", home=tmp_path)
    assert proc.returncode == 0, proc.stderr
    outcomes = {s["name"]: s["outcome"] for s in document(proc)["scenarios"]}
    for point in ("pre_create", "pre_update", "pre_delete"):
        assert outcomes[f"contract_{point}_success"] == "passed"
        assert outcomes[f"contract_{point}_failed"] == "passed"
    # only preDelete names a wildcard (AWS::S3::Bucket*): the CLI skips the others too
    assert outcomes["contract_pre_delete_failed_unsupported_target"] == "passed"
    assert outcomes["contract_pre_create_failed_unsupported_target"] == "skipped"
    assert outcomes["stack_pre_create"] == "skipped"  # it declares no STACK target


def test_scenario_all_fails_a_hook_that_refuses_nothing(tmp_path: Path) -> None:
    proc = cfn_debug(
        "scenario", "all", "--project", str(BUCKET_CHECK), "--json",
        "--type-configuration", '{"Fault": "AllowEverything"}', home=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    outcomes = {s["name"]: s["outcome"] for s in document(proc)["scenarios"]}
    assert outcomes["contract_pre_create_failed"] == "failed"
    assert outcomes["contract_pre_delete_failed_unsupported_target"] == "failed"
    assert outcomes["contract_pre_create_success"] == "passed"


def test_an_in_progress_chain_replays_its_callback_context(tmp_path: Path) -> None:
    proc = cfn_debug(
        "run", "--project", str(STAGED_REVIEW), "--json", "--no-journal", "--max-delay", "0",
        home=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    runs = document(proc)["runs"]
    assert [r.get("verdict") for r in runs] == ["allowed", "refused"]
    steps = runs[0]["steps"]
    assert [s["result"]["progress"]["hookStatus"] for s in steps] == [
        "IN_PROGRESS", "IN_PROGRESS", "SUCCESS",
    ]  # fmt: skip
    contexts = [s["request"]["requestContext"] for s in steps]
    assert contexts[1] == {"invocation": 2, "callbackContext": {"stage": 1}}
    assert contexts[2] == {"invocation": 3, "callbackContext": {"stage": 2}}
    tokens = {s["request"]["clientRequestToken"] for s in steps}
    assert len(tokens) == 1  # one request, replayed


def test_a_lambda_hook_from_its_template(tmp_path: Path) -> None:
    proc = cfn_debug("run", "--project", str(LAMBDA_HOOK), "--json", "--no-journal", home=tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = document(proc)
    assert _verdicts(doc)["sample_events/long-retention"] == "refused"
    run = doc["runs"][0]
    assert run["function_name"] == "QueueGuardFunction"
    assert "callerCredentials" not in run["steps"][0]["request"]["requestData"]
    assert run["steps"][0]["limit_s"] == 30.0
    bad = cfn_debug(
        "run", "--project", str(LAMBDA_HOOK), "--json", "--no-journal", "--max-reinvoke", "5",
        "--max-delay", "0", "--type-configuration", '{"Fault": "Forever"}', home=tmp_path,
    )  # fmt: skip
    assert bad.returncode == 1, bad.stderr
    found = {f for run in document(bad)["runs"] for f in findings(run)}
    assert ("hook-in-progress-limit", "MUST") in found


@pytest.mark.slow
def test_a_hook_reads_its_setup_resource_on_the_local_aws(tmp_path: Path) -> None:
    from .conftest import PARAMETER_GATE

    proc = cfn_debug(
        "run", "--project", str(PARAMETER_GATE), "--local-aws", "--json", "--no-journal",
        home=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    runs = document(proc)["runs"]
    assert [r.get("verdict") for r in runs] == ["allowed", "refused"]
    # the placeholder came from the setup stack's export; the call reached moto
    model = runs[0]["steps"][0]["request"]["requestData"]["targetModel"]
    assert model["resourceProperties"]["QueueName"] == "team-orders"
    calls = runs[0]["steps"][0]["aws_calls"]
    assert [(c["service"], c["operation"]) for c in calls] == [("ssm", "GetParameter")]
    assert all(findings(run) == [] for run in runs)


def test_a_hook_session_journals_and_exports(tmp_path: Path) -> None:
    journal = tmp_path / "hook.jsonl"
    proc = cfn_debug(
        "run", "--demo", "hook", "--journal", str(journal),
        str(Path("tui/cfn_debug/demo_hook/sample_events/fault-no-message.json")), home=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert "hook verdict: refused" in proc.stdout
    for form in ("md", "json"):
        out = tmp_path / f"hook.{form}"
        exported = cfn_debug(
            "export", str(journal), "--format", form, "-o", str(out), home=tmp_path
        )
        assert exported.returncode == 0, exported.stderr
        assert "warning" not in exported.stderr  # a hook has no writeOnly values to mask
        text = out.read_text()
        assert "hook-failed-message" in text
    assert '"verdict": "refused"' in (tmp_path / "hook.json").read_text()
    assert "FAILED (NonCompliant)" in (tmp_path / "hook.md").read_text()
