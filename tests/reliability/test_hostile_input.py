"""Hostile input, property-based: generated and mutated events, schemas, ProgressEvents and
models through the event readers, the schema loader, the contract checks and the diff. No
exception escapes but cfn_debug.errors types, and those name the file (and the field, where one
is to blame). Bounded: ~100-200 examples each, no deadline, so the suite stays fast."""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from cfn_debug.contract import StepContext, check_chain, check_step
from cfn_debug.diff import diff_models
from cfn_debug.errors import CfnDebugError, EventError, SchemaError
from cfn_debug.events import Shape, build_payload, load_event, normalize, parse_event
from cfn_debug.records import Action, EndReason, InvokeResult, OutcomeKind
from cfn_debug.schema import load_schema, schema_from_dict
from reliability.support import HOSTILE, REPO

#: RELIABILITY_EXAMPLES=5000 (and RELIABILITY_RANDOM=1) for a longer hunt outside CI.
EXAMPLES = int(os.environ.get("RELIABILITY_EXAMPLES", "150"))
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=not os.environ.get("RELIABILITY_RANDOM"),  # CI: the same examples every run
    database=None,
)
SCHEMA_FILES = [
    HOSTILE / "Hostile-Reliability-Thing.json",
    REPO / "tests" / "fixtures" / "schemas" / "widget.json",
]
SCHEMAS = [load_schema(path) for path in SCHEMA_FILES]
RAW_SCHEMAS = [json.loads(path.read_text()) for path in SCHEMA_FILES]

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=False)
    | st.text(max_size=20)
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=15,
)
#: Keys a model of the fixture schemas has, so generated models reach the schema-aware paths.
MODEL_KEYS = [*sorted({key for raw in RAW_SCHEMAS for key in raw["properties"]}), "Other", ""]
models = st.dictionaries(st.sampled_from(MODEL_KEYS), json_values, max_size=6)
ACTIONS = [a.value for a in Action]


def check_typed(error: CfnDebugError, path: Path | None) -> None:
    """A typed error names its file (when there is one) and says something."""
    assert error.detail.strip()
    if path is not None:
        assert error.path == str(path) and str(error).startswith(str(path)), str(error)


# --- the event readers --------------------------------------------------------------------------

request_keys = st.sampled_from(
    [
        "clientRequestToken",
        "desiredResourceState",
        "previousResourceState",
        "logicalResourceIdentifier",
        "typeConfiguration",
        "nextToken",
        "stackId",
        "region",
        "awsAccountId",
        "desiredResourceTags",
        "systemTags",
        "unknownKey",
    ]
)
sam_events = st.fixed_dictionaries(
    {},
    optional={
        "action": st.sampled_from(ACTIONS) | json_values,
        "request": st.dictionaries(request_keys, json_values | models, max_size=6) | json_values,
        "credentials": st.dictionaries(
            st.sampled_from(["accessKeyId", "secretAccessKey", "sessionToken", "x"]),
            json_values,
        )
        | json_values,
        "callbackContext": json_values,
        "region": json_values,
    },
)
handler_requests = st.fixed_dictionaries(
    {
        "requestData": st.dictionaries(
            st.sampled_from(
                [
                    "callerCredentials",
                    "resourceProperties",
                    "previousResourceProperties",
                    "logicalResourceId",
                    "typeConfiguration",
                    "stackTags",
                    "systemTags",
                ]
            ),
            json_values | models,
            max_size=5,
        )
        | json_values
    },
    optional={
        "action": st.sampled_from(ACTIONS) | json_values,
        "awsAccountId": json_values,
        "bearerToken": json_values,
        "region": json_values,
        "resourceType": json_values,
        "callbackContext": json_values,
        "nextToken": json_values,
        "stackId": json_values,
    },
)
events = sam_events | handler_requests | json_values | models


@SETTINGS
@given(data=events)
@example(data={"action": "CREATE", "request": {"desiredResourceState": [1]}})
@example(data={"requestData": {"resourceProperties": "x"}, "action": "READ"})
def test_parse_event_and_build_payload_raise_only_event_errors(data: Any) -> None:
    """parse_event on generated and mutated events (both shapes, bare models, any JSON), then
    build_payload in both shapes: either an EventSpec whose payloads build, or an EventError
    naming the file and a field when one is to blame."""
    path = Path("/events/generated.json")
    try:
        spec = parse_event(data, name="generated", path=path)
    except EventError as error:
        check_typed(error, path)
        return
    for shape in Shape:
        payload = build_payload(spec.normalized, shape)
        json.dumps(payload)  # what the invoker sends must serialise
    try:
        normalize(spec.data, spec.shape, path=path)
    except EventError as error:  # pragma: no cover - parse_event already normalised it
        check_typed(error, path)


@settings(SETTINGS, max_examples=min(EXAMPLES, 120))
@given(
    raw=st.binary(max_size=200)
    | events.map(lambda value: json.dumps(value).encode())
    | events.map(lambda value: json.dumps(value).encode()[: -3 or None])
)
@example(raw=b"[" * 10_000 + b"]" * 10_000)
@example(raw=b'{"action": "CREATE", "request": ' * 3000)
@example(raw=b"\xff\xfe{}")
def test_load_event_on_any_bytes_raises_only_event_errors(raw: bytes) -> None:
    """load_event on any bytes (random, JSON, truncated JSON as an editor mid-save leaves it,
    not UTF-8, 10,000 levels deep): an EventSpec or an EventError naming the file."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "event.json"
        path.write_bytes(raw)
        try:
            load_event(path)
        except EventError as error:
            check_typed(error, path)


# --- the schema loader --------------------------------------------------------------------------

SCHEMA_KEYS = [
    "typeName",
    "properties",
    "definitions",
    "primaryIdentifier",
    "readOnlyProperties",
    "writeOnlyProperties",
    "createOnlyProperties",
    "additionalIdentifiers",
    "handlers",
    "required",
    "additionalProperties",
    "tagging",
]
pointer_lists = st.lists(
    st.sampled_from(["/properties/Id", "/properties/Name", "/properties/Nope", "x", ""])
    | st.text(max_size=10),
    max_size=3,
)


@st.composite
def mutated_schemas(draw: st.DrawFn) -> Any:
    raw = json.loads(json.dumps(draw(st.sampled_from(RAW_SCHEMAS))))
    for _ in range(draw(st.integers(1, 4))):
        key = draw(st.sampled_from(SCHEMA_KEYS))
        choice = draw(st.integers(0, 3))
        if choice == 0:
            raw.pop(key, None)
        elif choice == 1:
            raw[key] = draw(json_values)
        elif choice == 2:
            raw[key] = draw(pointer_lists)
        else:
            props = raw.get("properties")
            if isinstance(props, dict):
                props[draw(st.sampled_from(MODEL_KEYS))] = draw(
                    json_values
                    | st.fixed_dictionaries(
                        {"type": st.sampled_from(["string", "array", "object", "nope"])},
                        optional={"$ref": st.text(max_size=12), "items": json_values},
                    )
                )
    return raw


@SETTINGS
@given(data=mutated_schemas() | json_values)
@example(
    data={
        "typeName": "A::B::C",
        "properties": {"A": {"$ref": "#/definitions/Missing"}},
        "primaryIdentifier": ["/properties/A"],
    }
)
def test_schema_from_dict_raises_only_schema_errors(data: Any) -> None:
    """schema_from_dict on mutated fixture schemas (keys dropped, replaced by any JSON or by odd
    pointer lists, property definitions broken) and on any JSON: a ResourceSchema or a
    SchemaError naming the file."""
    path = Path("/schemas/generated.json")
    try:
        schema = schema_from_dict(data, path=path)
    except SchemaError as error:
        check_typed(error, path)
        return
    for action in Action:
        assert schema.handler_timeout_s(action) >= 0


def test_load_schema_of_a_file_nested_10000_deep_is_a_schema_error(tmp_path: Path) -> None:
    """A schema file of 10,000 nested arrays: a SchemaError naming the file, not RecursionError."""
    path = tmp_path / "deep.json"
    path.write_bytes(b"[" * 10_000 + b"]" * 10_000)
    with pytest.raises(SchemaError) as raised:
        load_schema(path)
    check_typed(raised.value, path)


def test_schema_with_properties_nested_150_deep_is_a_schema_error() -> None:
    """A schema whose property A is an object of an object ... 150 levels deep (valid JSON, parses
    fine): a SchemaError naming the file, not a RecursionError."""
    definition: dict[str, Any] = {"type": "string"}
    for _ in range(150):
        definition = {"type": "object", "properties": {"A": definition}}
    data = {
        "typeName": "Aa::Bb::Cc",
        "description": "deep",
        "properties": {"Id": {"type": "string"}, "A": definition},
        "primaryIdentifier": ["/properties/Id"],
        "additionalProperties": False,
    }
    path = Path("/schemas/deep.json")
    with pytest.raises(SchemaError) as raised:
        schema_from_dict(data, path=path)
    check_typed(raised.value, path)


@settings(SETTINGS, max_examples=min(EXAMPLES, 100))
@given(raw=st.binary(max_size=120) | mutated_schemas().map(lambda v: json.dumps(v).encode()))
@example(raw=b"\xff\xfe")
def test_load_schema_on_any_bytes_raises_only_schema_errors(raw: bytes) -> None:
    """load_schema on random bytes and serialised mutated schemas: a schema or a SchemaError
    naming the file."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "schema.json"
        path.write_bytes(raw)
        try:
            load_schema(path)
        except SchemaError as error:
            check_typed(error, path)


# --- the contract checks ------------------------------------------------------------------------

delays = (
    st.integers(min_value=-(10**12), max_value=10**12)
    | st.floats(allow_nan=True, allow_infinity=True)
    | json_values
)
progress_events = st.fixed_dictionaries(
    {},
    optional={
        "status": st.sampled_from(["IN_PROGRESS", "SUCCESS", "FAILED", "PENDING", "", "done"])
        | json_values,
        "errorCode": st.sampled_from(["NotFound", "InternalFailure", "Bogus"]) | json_values,
        "message": json_values,
        "callbackContext": json_values,
        "callbackDelaySeconds": delays,
        "resourceModel": models | json_values,
        "resourceModels": st.lists(models | json_values, max_size=3) | json_values,
        "nextToken": json_values,
        "extraField": json_values,
    },
)
results = st.builds(
    InvokeResult,
    kind=st.sampled_from(list(OutcomeKind)),
    duration_s=st.floats(min_value=0, max_value=10_000, allow_nan=False),
    progress=st.none() | progress_events,
    body_excerpt=st.text(max_size=40),
    error_type=st.none() | st.text(max_size=20),
    error_message=st.none() | st.text(max_size=40),
    stack_trace=st.lists(st.text(max_size=40), max_size=3),
    logs=st.lists(
        st.text(max_size=40)
        | st.just("Traceback (most recent call last):")
        | st.just('  File "x.py", line 1, in h'),
        max_size=5,
    ),
)
optional_models = st.none() | models


@SETTINGS
@given(
    schema=st.none() | st.sampled_from(SCHEMAS),
    action=st.sampled_from(list(Action)),
    index=st.integers(0, 3),
    desired=optional_models,
    previous=optional_models,
    original=optional_models,
    result=results,
)
def test_check_step_never_raises(schema, action, index, desired, previous, original, result):
    """check_step over generated ProgressEvents (every field of any type: statuses unknown,
    delays of +-10^12, NaN and infinity, models of any shape) and any outcome kind, with and
    without a schema: a list of findings, never an exception; check_chain over the same steps
    too."""
    ctx = StepContext(
        schema=schema,
        action=action,
        index=index,
        desired=desired,
        previous=previous,
        original_desired=original,
        result=result,
    )
    findings = check_step(ctx)
    assert all(f.message for f in findings)
    from cfn_debug.chain import build_step

    step = build_step(
        index=index,
        action=action,
        function_name="F",
        request={"requestData": {"resourceProperties": desired}},
        result=result,
        started_at="2026-01-01T00:00:00Z",
        schema=schema,
        desired=desired,
        previous=previous,
        original_desired=original,
        previous_steps=[],
    )
    json.dumps(step.to_dict(), default=str)
    check_chain([step], schema, action, EndReason.TERMINAL, result.duration_s)


# --- the diff -----------------------------------------------------------------------------------

list_models = st.dictionaries(
    st.sampled_from(MODEL_KEYS),
    json_values
    | st.lists(
        st.dictionaries(st.sampled_from(["Key", "Value", "Name", "Ports"]), json_values, max_size=3)
        | json_values,
        max_size=4,
    ),
    max_size=6,
)


def _plain(value: Any) -> bool:
    """No float that compares unequal to itself (JSON from a handler has none)."""
    if isinstance(value, float):
        return not math.isnan(value)
    if isinstance(value, dict):
        return all(_plain(v) for v in value.values())
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return True


@SETTINGS
@given(
    before=st.none() | list_models | json_values,
    after=st.none() | list_models | json_values,
    schema=st.none() | st.sampled_from(SCHEMAS),
)
def test_diff_models_never_raises_and_is_empty_for_equal_models(before, after, schema) -> None:
    """diff_models over generated models (lists of objects under insertionOrder false, any JSON,
    non-objects at the top): a list of changes, never an exception; a model against itself has
    no change."""
    assume(_plain(before) and _plain(after))
    changes = diff_models(before, after, schema)
    assert all(change.pointer is not None for change in changes)
    if isinstance(before, dict):
        assert diff_models(before, json.loads(json.dumps(before)), schema) == []
