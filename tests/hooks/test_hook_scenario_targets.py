"""Why a hook scenario is skipped, said as it is: a handler whose ``targetNames`` is empty
(AwsCommunity::S3::BucketVersioningEnabled's preDelete, as `cfn init` leaves it) is invoked for
no target; the skip said "no target known to be non-compliant: add
inputs/inputs_1_invalid_pre_delete.json", which would not make CloudFormation invoke it."""

from __future__ import annotations

from types import SimpleNamespace

from cfn_debug.hooks.scenarios import HookScenarioRunner, select_hook_scenarios
from cfn_debug.hooks.schema import HookSchema


def _skips(targets: dict[str, list[str]]) -> dict[str, str | None]:
    schema = HookSchema(None, {}, "Corpus::Hook::Check", targets)
    workspace = SimpleNamespace(events=[], hook=SimpleNamespace(schema=schema, lambda_hook=False))
    runner = HookScenarioRunner(workspace)
    return {s.name: runner._events_for(s)[1] for s in select_hook_scenarios(["all"])}


def test_a_handler_with_no_target_names_is_skipped_for_that_reason() -> None:
    skips = _skips({"CREATE_PRE_PROVISION": ["AWS::S3::Bucket"], "DELETE_PRE_PROVISION": []})
    for kind in ("success", "failed", "failed_unsupported_target"):
        why = skips[f"contract_pre_delete_{kind}"]
        assert why == (
            "the hook's preDelete handler declares no targetNames: CloudFormation invokes it for "
            "no target"
        ), (kind, why)
    # a handler with targets keeps the input hint
    assert "add inputs/inputs_1_invalid_pre_create.json" in str(skips["contract_pre_create_failed"])
    assert skips["contract_pre_update_success"] == "the hook has no preUpdate handler"
