"""The AWS call recorder masks secrets at any depth: members botocore's service models mark
``sensitive`` wherever they sit, and members whose name says they hold a secret (Amazon MQ's
``Users[].Password``, EMR's ``KerberosAttributes.KdcAdminPassword``, which the models do not
mark). Real botocore models; the property runs over operations of many services."""

from __future__ import annotations

import json
from typing import Any

import botocore.session
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cfn_debug.endpoint import aws_recorder

SESSION = botocore.session.get_session()
MARK = "LEAKED-SECRET-MARK"


def operation(service: str, name: str) -> Any:
    return SESSION.get_service_model(service).operation_model(name)


def recorded(params: dict[str, Any], service: str, name: str) -> str:
    return json.dumps(aws_recorder._top_level(params, operation(service, name), service, name))


def test_mq_users_passwords_are_masked() -> None:
    params = {
        "BrokerName": "b",
        "EngineType": "ACTIVEMQ",
        "Users": [
            {"Username": "admin", "Password": MARK + "1"},
            {"Username": "app", "Password": MARK + "2", "Groups": ["g"]},
        ],
    }
    text = recorded(params, "mq", "CreateBroker")
    assert MARK not in text
    assert '"Username": "admin"' in text and '"BrokerName": "b"' in text


def test_emr_kdc_admin_password_is_masked() -> None:
    params = {
        "Name": "cluster",
        "Instances": {},
        "KerberosAttributes": {"Realm": "EC2.INTERNAL", "KdcAdminPassword": MARK},
    }
    text = recorded(params, "emr", "RunJobFlow")
    assert MARK not in text and "EC2.INTERNAL" in text


# --- the property: no member marked sensitive ever leaves unmasked ------------------------------

SERVICES = sorted(SESSION.get_available_services())


def _leads_to_sensitive(shape: Any, seen: frozenset[str] = frozenset()) -> bool:
    if shape.metadata.get("sensitive"):
        return True
    if shape.name in seen or len(seen) > 12:
        return False
    seen = seen | {shape.name}
    if shape.type_name == "structure":
        return any(_leads_to_sensitive(m, seen) for m in shape.members.values())
    if shape.type_name == "list":
        return _leads_to_sensitive(shape.member, seen)
    if shape.type_name == "map":
        return _leads_to_sensitive(shape.value, seen)
    return False


def instance(shape: Any, seen: frozenset[str] = frozenset()) -> Any:
    """A value of ``shape`` holding MARK at every sensitive member it reaches (only the members
    that lead to one are filled, so the record stays small enough to be kept, not summarised)."""
    if shape.metadata.get("sensitive"):
        return {"structure": {"k": MARK}, "list": [MARK], "map": {"k": MARK}}.get(
            shape.type_name, MARK
        )
    seen = seen | {shape.name}
    if shape.type_name == "structure":
        return {
            name: instance(member, seen)
            for name, member in shape.members.items()
            if member.name not in seen and _leads_to_sensitive(member, seen)
        }
    if shape.type_name == "list":
        return [instance(shape.member, seen)]
    if shape.type_name == "map":
        return {"key": instance(shape.value, seen)}
    return "plain"


def sensitive_operations(service: str) -> list[str]:
    model = SESSION.get_service_model(service)
    found = []
    for name in model.operation_names:
        shape = model.operation_model(name).input_shape
        if shape is not None and _leads_to_sensitive(shape):
            found.append(name)
    return found


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
@given(service=st.sampled_from(SERVICES), pick=st.integers(min_value=0))
def test_no_member_marked_sensitive_leaves_unmasked(service: str, pick: int) -> None:
    names = sensitive_operations(service)
    if not names:
        return
    name = names[pick % len(names)]
    shape = operation(service, name).input_shape
    params = instance(shape)
    assert MARK in json.dumps(params)
    for member, value in params.items():
        text = json.dumps(aws_recorder._value(value, shape.members[member]))
        assert MARK not in text, (service, name, member, text)


@pytest.mark.parametrize(
    ("service", "name"),
    [
        ("rds", "CreateDBInstance"),
        ("secretsmanager", "CreateSecret"),
        ("iam", "CreateLoginProfile"),
    ],
)
def test_known_sensitive_operations_mask(service: str, name: str) -> None:
    params = instance(operation(service, name).input_shape)
    assert MARK in json.dumps(params)
    assert MARK not in recorded(params, service, name)
