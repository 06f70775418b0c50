"""The request shape of the handler's cloudformation-cli-python-lib, read from its source."""

from __future__ import annotations

import sys
from pathlib import Path

from cfn_debug.pylib.shape import find_library, fit_payload, parse_classes, shape_in

#: The request classes the way 2.0.0 declares them (fields only, our own text).
OLD_UTILS = """
from dataclasses import dataclass
@dataclass
class TestEvent:
    credentials: dict
    action: str
    request: dict
    callbackContext: dict = None
    region: str = None
@dataclass
class UnmodelledRequest:
    clientRequestToken: str
    desiredResourceState: dict = None
    previousResourceState: dict = None
    logicalResourceIdentifier: str = None
    nextToken: str = None
@dataclass
class HandlerRequest:
    action: str
    awsAccountId: str
    bearerToken: str
    region: str
    responseEndpoint: str
    resourceType: str
    resourceTypeVersion: str
    requestData: dict
    stackId: str
    callbackContext: dict = None
@dataclass
class RequestData:
    providerLogGroupName: str
    logicalResourceId: str
    resourceProperties: dict
    callerCredentials: dict = None
    previousResourceProperties: dict = None
"""


def _old_library(root: Path, version: str = "2.0.0") -> Path:
    package = root / "cloudformation_cli_python_lib"
    package.mkdir(parents=True)
    (package / "utils.py").write_text(OLD_UTILS)
    (root / f"cloudformation_cli_python_lib-{version}.dist-info").mkdir()
    return root


def test_the_old_request_classes_are_read_with_their_version(tmp_path: Path) -> None:
    shape = shape_in([tmp_path / "missing", _old_library(tmp_path / "site")])
    assert shape is not None and shape.label == "cloudformation-cli-python-lib 2.0.0"
    assert not shape.reads("UnmodelledRequest", "region")
    assert shape.reads("UnmodelledRequest", "clientRequestToken")
    assert shape.classes["HandlerRequest"].required >= {"responseEndpoint", "stackId"}


def test_a_test_request_keeps_only_what_the_old_library_reads(tmp_path: Path) -> None:
    shape = shape_in([_old_library(tmp_path)])
    payload = {
        "credentials": {},
        "action": "CREATE",
        "request": {"clientRequestToken": "t", "region": "us-east-1", "awsAccountId": "1"},
        "callbackContext": None,
        "region": "us-east-1",
    }
    fitted, dropped = fit_payload(payload, shape)
    assert fitted["request"] == {"clientRequestToken": "t"}
    assert fitted["region"] == "us-east-1"  # the old TestEvent reads it
    assert dropped == ["request.region", "request.awsAccountId"]
    assert payload["request"]["region"] == "us-east-1"  # not mutated


def test_what_the_user_wrote_is_sent_so_the_library_names_it(tmp_path: Path) -> None:
    shape = shape_in([_old_library(tmp_path)])
    payload = {
        "credentials": {},
        "action": "CREATE",
        "request": {"clientRequestToken": "t", "typeConfiguration": {"A": 1}},
    }
    fitted, dropped = fit_payload(payload, shape, keep={"typeConfiguration"})
    assert fitted["request"]["typeConfiguration"] == {"A": 1} and dropped == []


def test_a_handler_request_gets_the_fields_the_old_library_requires(tmp_path: Path) -> None:
    shape = shape_in([_old_library(tmp_path)])
    payload = {
        "action": "READ",
        "awsAccountId": "1",
        "bearerToken": "t",
        "region": "us-east-1",
        "resourceType": "A::B::C",
        "requestData": {"resourceProperties": {}, "logicalResourceId": "R", "systemTags": {}},
    }
    fitted, dropped = fit_payload(payload, shape)
    assert {"responseEndpoint", "resourceTypeVersion", "stackId"} <= fitted.keys()
    assert fitted["requestData"]["providerLogGroupName"] == ""  # no log shipping
    assert dropped == ["requestData.systemTags"]


def test_the_installed_library_is_found_without_importing_it() -> None:
    shape = find_library(sys.executable)
    assert shape is not None and shape.version[0].isdigit()
    # 2.1.x's resource-entrypoint classes ignore unknown keys; its test request does not
    assert shape.reads("HandlerRequest", "anything")
    assert not shape.reads("UnmodelledRequest", "anything")


def test_a_vendored_library_in_the_code_directory_wins(tmp_path: Path) -> None:
    code = _old_library(tmp_path / "build", version="2.0.0")
    shape = find_library(sys.executable, [code])
    assert shape is not None and shape.version == "2.0.0"


def test_no_library_means_no_change() -> None:
    assert fit_payload({"request": {"region": "x"}}, None) == ({"request": {"region": "x"}}, [])
    assert parse_classes("not python (") == {}
