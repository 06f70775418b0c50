"""An answer in which the library refused the request before the handler ran."""

from __future__ import annotations

from cfn_debug.pylib.refusal import library_refusal


def _failed(message: str, code: str = "InternalFailure") -> dict[str, str]:
    return {"status": "FAILED", "errorCode": code, "message": message}


def test_an_unread_request_field_names_the_field() -> None:
    found = library_refusal(
        _failed(
            "UnmodelledRequest.__init__() got an unexpected keyword argument 'region' (TypeError)"
        )
    )
    assert found is not None and found.field == "region" and not found.input_fault
    assert "cloudformation-cli-python-lib" in found.line and "'region'" in found.line


def test_an_unknown_property_is_the_inputs_fault() -> None:
    found = library_refusal(_failed("'TPSCode' (KeyError)", "InvalidRequest"))
    assert found is not None and found.input_fault and found.field == "TPSCode"
    assert "input is at fault" in found.line


def test_a_missing_required_field() -> None:
    found = library_refusal(
        _failed("__init__() missing 1 required positional argument: 'responseEndpoint' (TypeError)")
    )
    assert found is not None and found.field == "responseEndpoint"


def test_the_handlers_own_failures_are_not_refusals() -> None:
    assert library_refusal(_failed("'TPSCode'")) is None  # a KeyError the handler raised
    assert library_refusal(_failed("boom (KeyError)", "NotFound")) is None
    assert library_refusal({"status": "SUCCESS"}) is None
    assert library_refusal(None) is None
    logs = [
        "Traceback (most recent call last):",
        '  File "resource.py", line 1, in _invoke_handler',
        "KeyError: 'x'",
    ]
    assert library_refusal(_failed("'x' (KeyError)"), logs) is None  # reached the handler
    parse = [
        "Traceback (most recent call last):",
        '  File "recast.py", in recast_object',
        "KeyError",
    ]
    assert library_refusal(_failed("'x' (KeyError)"), parse) is not None
