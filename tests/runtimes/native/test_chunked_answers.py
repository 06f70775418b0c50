"""The worker's Runtime API takes answers as aws-lambda-go sends them: a chunked body announcing
the Lambda-Runtime-Function-Error-Type/-Body trailers (Go's net/http sends a body of unknown
length so). Before, such an answer was refused (400) and the binary exited."""

from __future__ import annotations

import pytest

from cfn_debug.endpoint.runtime_api import BadRequest, parse_request

HEAD = (
    b"POST /2018-06-01/runtime/invocation/abc/error HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    b"User-Agent: aws-lambda-go/go1.22\r\nTransfer-Encoding: chunked\r\n"
    b"Trailer: Lambda-Runtime-Function-Error-Body, Lambda-Runtime-Function-Error-Type\r\n\r\n"
)
BODY = b'{"errorMessage":"boom","errorType":"errorString"}'


def _chunked(body: bytes, trailer: bytes = b"") -> bytes:
    return (
        HEAD
        + b"%x\r\n" % 10
        + body[:10]
        + b"\r\n"
        + b"%x\r\n" % (len(body) - 10)
        + (body[10:] + b"\r\n0\r\n" + trailer + b"\r\n")
    )


def test_a_chunked_answer_is_one_request_and_the_next_one_stays_in_the_buffer() -> None:
    buffer = bytearray(_chunked(BODY) + b"GET /next")
    request = parse_request(buffer)
    assert request is not None
    assert request.body == BODY and request.method == "POST"
    assert buffer == bytearray(b"GET /next")


def test_an_incomplete_chunked_answer_waits_for_the_rest() -> None:
    whole = _chunked(BODY)
    for cut in range(len(whole)):
        assert parse_request(bytearray(whole[:cut])) is None


def test_trailer_fields_read_as_headers() -> None:
    trailer = b"Lambda-Runtime-Function-Error-Type: Runtime.SerializationError\r\n"
    request = parse_request(bytearray(_chunked(BODY, trailer)))
    assert request is not None
    assert request.headers["lambda-runtime-function-error-type"] == "Runtime.SerializationError"


@pytest.mark.parametrize(
    "bad", [b"zz\r\nhello\r\n0\r\n\r\n", b"5\r\nhelloXX0\r\n\r\n", b"0\r\nno colon\r\n\r\n"]
)
def test_a_malformed_chunked_body_is_refused(bad: bytes) -> None:
    with pytest.raises(BadRequest):
        parse_request(bytearray(HEAD + bad))
