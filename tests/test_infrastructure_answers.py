"""Answers that look like a handler's but say nothing about its contract (found trying
published types: SPRT::CrossStack::Executor, SPRT::ApiGateway::Deployment,
AwsCommunity::S3::BucketNotification)."""

from __future__ import annotations

from cfn_debug.aws_calls import AwsCall
from cfn_debug.infrastructure import infrastructure_error
from cfn_debug.records import InvokeResult, OutcomeKind


def _failed(message: str, calls: list[AwsCall] | None = None) -> InvokeResult:
    progress = {"status": "FAILED", "errorCode": "InternalFailure", "message": message}
    return InvokeResult(OutcomeKind.PROGRESS, 0.1, progress=progress, aws_calls=calls or [])


def test_xml_botocore_cannot_parse_is_the_local_aws() -> None:
    """moto echoed a generated role name with characters XML cannot hold; AWS would have
    refused the name. The handler's exception was a MUST handler-exception."""
    call = AwsCall(
        "sts",
        "AssumeRole",
        http_status=200,
        error_code="ResponseParserError",
        error_message="Unable to parse response (not well-formed (invalid token): line 1, "
        "column 811), invalid XML received. Further retries may succeed:\nb'<AssumeRole...",
    )
    why = infrastructure_error(_failed("", [call]))
    assert why is not None and "sts AssumeRole" in why and "XML botocore cannot parse" in why


def test_an_unreachable_aws_passed_on_as_the_message() -> None:
    """botocore 1.17 (pinned by the type) ignores AWS_ENDPOINT_URL: the handler called real
    AWS, unreachable here, and the library passed the error on as the message. That was a MUST
    scenario-update-not-found."""
    message = 'Could not connect to the endpoint URL: "https://apigateway.us-east-1.amazonaws.com/"'
    why = infrastructure_error(_failed(message))
    assert why is not None and "could not reach AWS" in why and "AWS_ENDPOINT_URL" in why


def test_a_handler_failure_is_still_the_handlers() -> None:
    assert infrastructure_error(_failed("Parameter validation failed")) is None


def test_an_s3_error_page_is_the_local_aws() -> None:
    """moto's S3 failed on a FilterRules name it does not know (an error page, HTTP 500);
    botocore's REST-XML parser found no error code and took the status for one. The create
    ended FAILED InternalFailure and every scenario was blocked on it as the handler's answer."""
    call = AwsCall(
        "s3",
        "PutBucketNotificationConfiguration",
        http_status=500,
        error_code="500",
        error_message="Internal Server Error",
    )
    why = infrastructure_error(_failed("An error occurred (500)", [call]))
    assert why is not None and "s3 PutBucketNotificationConfiguration" in why
    assert "error page" in why
    aws_said = AwsCall(
        "s3", "PutObject", http_status=500, error_code="InternalError", error_message="retry"
    )
    assert infrastructure_error(_failed("An error occurred (InternalError)", [aws_said])) is None


def test_a_host_the_handler_cannot_reach_is_not_its_answer() -> None:
    """A TypeScript type calling a third-party API offline passed node-fetch's error on as the
    message; a Python handler's escaped exception is only in its logged traceback."""
    node = (
        "request to https://api.example.com/v3/monitors/1 failed, reason: getaddrinfo "
        "ENOTFOUND api.example.com"
    )
    why = infrastructure_error(_failed(node))
    assert why is not None and why.startswith("the handler could not reach a host it calls")
    logs = [
        "[ERROR] Exception caught",
        "Traceback (most recent call last):",
        '  File "/var/task/x/handlers.py", line 40, in create_handler',
        "    made = _call('POST', API)",
        "urllib.error.URLError: <urlopen error [Errno 111] Connection refused>",
    ]
    progress = {"status": "FAILED", "errorCode": "InternalFailure", "message": ""}
    escaped = InvokeResult(OutcomeKind.PROGRESS, 0.1, progress=progress, logs=logs)
    why = infrastructure_error(escaped)
    assert why is not None and "Connection refused" in why
    # a verdict the handler gave stays its own, whatever its message says
    not_found = {**progress, "errorCode": "NotFound", "message": node}
    assert infrastructure_error(InvokeResult(OutcomeKind.PROGRESS, 0.1, progress=not_found)) is None


#: the page moto's server (Werkzeug) answers an operation it lacks or fails on with
PAGE = "<!doctype html>\n<html lang=en>\n<title>500 Internal Server Error</title>\n"


def test_an_error_page_a_javascript_sdk_reports_is_the_local_aws() -> None:
    """Community::Organizations::Policy (TypeScript) on moto, which fails CreatePolicy without
    an organization: the AWS SDK for JavaScript v2 says UnknownError "INTERNAL SERVER ERROR"
    (the --require hook adds the page), v3 a JSON SyntaxError quoting the page's first bytes.
    `run` printed the handler's FAILED InternalFailure as its answer, exit 0."""
    v2 = AwsCall(
        "organizations", "CreatePolicy", http_status=500, error_code="UnknownError",
        error_message=f"INTERNAL SERVER ERROR: {PAGE}",
    )  # fmt: skip
    v3 = AwsCall(
        "dynamodb", "GetItem", http_status=500, error_code="SyntaxError",
        error_message="Unexpected token '<', \"<!doctype \"... is not valid JSON\n  "
        "Deserialization error: to see the raw response, inspect the hidden field "
        "{error}.$response on this object.",
    )  # fmt: skip
    for call in (v2, v3):
        why = infrastructure_error(_failed("INTERNAL SERVER ERROR", [call]))
        assert why is not None and f"{call.service} {call.operation}" in why, call
    aws_said = AwsCall(
        "dynamodb", "GetItem", http_status=500, error_code="InternalServerError",
        error_message="Internal server error",
    )  # fmt: skip
    assert infrastructure_error(_failed("Internal server error", [aws_said])) is None


def test_a_host_the_javascript_sdk_v2_cannot_reach_is_not_the_handlers_answer() -> None:
    """The AWS SDK for JavaScript v2 reports a host it cannot reach as UnknownEndpoint
    "Inaccessible host", which a TypeScript handler passes on as its FAILED message."""
    message = (
        "Inaccessible host: `123456789012.127.0.0.1' at port `undefined'. This service may not "
        "be available in the `us-east-1' region."
    )
    why = infrastructure_error(_failed(message))
    assert why is not None and "Inaccessible host" in why
