"""sam-style events become the HandlerRequest the Go plugin and the Java executable entry point
take; anything else passes untouched."""

from __future__ import annotations

import json

from cfn_debug.endpoint.runtimes.handler_request import as_handler_request, handler_request

SAM = {
    "credentials": {"accessKeyId": "AKIAEXAMPLE", "secretAccessKey": "s", "sessionToken": "t"},
    "action": "UPDATE",
    "request": {
        "clientRequestToken": "token-1",
        "desiredResourceState": {"Title": "new"},
        "previousResourceState": {"Title": "old"},
        "logicalResourceIdentifier": "MyNote",
        "typeConfiguration": {"Fault": "Panic"},
        "awsAccountId": "123456789012",
        "region": "eu-west-1",
        "stackId": "arn:aws:cloudformation:eu-west-1:123456789012:stack/s/1",
        "desiredResourceTags": {"team": "a"},
    },
    "callbackContext": {"step": 2},
    "region": "eu-west-1",
}


def test_a_sam_event_becomes_the_handler_request_cloudformation_would_send() -> None:
    request = handler_request(SAM, "CfnDebug::Fixture::GoNote")
    assert request == {
        "action": "UPDATE",
        "awsAccountId": "123456789012",
        "bearerToken": "token-1",
        "region": "eu-west-1",
        "resourceType": "CfnDebug::Fixture::GoNote",
        "stackId": "arn:aws:cloudformation:eu-west-1:123456789012:stack/s/1",
        "callbackContext": {"step": 2},
        "requestData": {
            "callerCredentials": SAM["credentials"],
            "resourceProperties": {"Title": "new"},
            "previousResourceProperties": {"Title": "old"},
            "logicalResourceId": "MyNote",
            "typeConfiguration": {"Fault": "Panic"},
            "stackTags": {"team": "a"},
        },
    }


def test_a_list_without_a_model_gets_an_empty_one_and_bytes_round_trip() -> None:
    event = {"action": "LIST", "request": {"clientRequestToken": "t"}, "region": "us-east-1"}
    converted = json.loads(as_handler_request(json.dumps(event).encode()))
    assert converted["requestData"]["resourceProperties"] == {}
    assert converted["bearerToken"] == "t" and converted["region"] == "us-east-1"


def test_a_handler_request_or_anything_else_passes_untouched() -> None:
    handler = json.dumps({"action": "READ", "bearerToken": "x", "requestData": {}}).encode()
    assert as_handler_request(handler) is handler
    for body in (b"not json", b'{"request": 1}', b'["request"]'):
        assert as_handler_request(body) is body
