"""Which runtime module runs a function: the table from a template's Runtime (or the project's
.rpdk-config language) to a family, and the one-line refusal of a runtime outside it."""

from __future__ import annotations

from pathlib import Path

import pytest

from cfn_debug.app.summary import error_hint
from cfn_debug.endpoint.runtimes import (
    UnsupportedRuntime,
    endpoint_url_note,
    family_of,
    runtime_for,
)
from cfn_debug.endpoint.runtimes.node import NodeRuntime
from cfn_debug.endpoint.runtimes.python import PythonRuntime
from cfn_debug.endpoint.template import FunctionSpec


@pytest.mark.parametrize(
    ("runtime", "family"),
    [
        ("python3.9", "python"),
        ("python3.12", "python"),
        ("nodejs18.x", "node"),
        ("nodejs20.x", "node"),
        ("nodejs22.x", "node"),
        ("provided", "provided"),
        ("provided.al2", "provided"),
        ("provided.al2023", "provided"),
        ("go1.x", "provided"),
        ("java8.al2", "java"),
        ("java11", "java"),
        ("java17", "java"),
        ("java21", "java"),
        ("nodejs14.x", "node"),  # published types still name it; the local Node runs them
        ("nodejs16.x", "node"),
        ("nodejs", None),
        ("ruby3.2", None),
        ("dotnet8", None),
        ("python2.7", None),
    ],
)
def test_family_of_runtime(runtime: str, family: str | None) -> None:
    assert family_of(runtime) == family


@pytest.mark.parametrize(
    ("language", "family"),
    [("python311", "python"), ("typescript", "node"), ("go", "provided"), ("java", "java")],
)
def test_family_of_rpdk_language_when_the_template_names_no_runtime(
    language: str, family: str
) -> None:
    assert family_of(None, language) == family


def test_no_runtime_and_no_language_is_python_as_before() -> None:
    assert family_of(None, None) == "python"


def spec(runtime: str | None, handler: str = "dist/handlers.entrypoint") -> FunctionSpec:
    return FunctionSpec("TypeFunction", handler, Path("/nowhere"), runtime=runtime)


def test_runtime_for_gives_the_family_module() -> None:
    assert isinstance(runtime_for(spec("nodejs20.x"), Path("/nowhere")), NodeRuntime)
    assert isinstance(runtime_for(spec("python3.11", "a.b"), Path("/nowhere")), PythonRuntime)


def test_unknown_runtime_is_one_line_naming_it_and_the_sam_alternative() -> None:
    with pytest.raises(UnsupportedRuntime) as caught:
        runtime_for(spec("ruby3.2"), Path("/nowhere"))
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("TypeFunction.Runtime: runtime 'ruby3.2' is not one")
    assert "sam local start-lambda" in message and "--endpoint" in message


def test_the_dashboards_hint_for_an_unsupported_runtime_says_nothing_of_a_port() -> None:
    with pytest.raises(UnsupportedRuntime) as caught:
        runtime_for(spec("ruby3.2"), Path("/nowhere"))
    hint = error_hint(caught.value)
    assert "free the port" not in hint  # the message says what is wrong: no port is
    assert "--endpoint URL" in hint and "sam local start-lambda" in hint


def test_the_aws_line_says_which_sdks_read_aws_endpoint_url_for_other_languages() -> None:
    def note(*runtimes: str) -> str | None:
        return endpoint_url_note(
            runtime_for(spec(r, "bootstrap" if r.startswith("p") else "a.b"), Path("/nowhere"))
            for r in runtimes
        )

    assert note("python3.11") is None  # the Python story is the README's
    assert note("provided.al2") == "AWS_ENDPOINT_URL is read by the AWS SDK for Go v2, not v1"
    assert note("java17") == "AWS_ENDPOINT_URL is read by the AWS SDK for Java 2.x, not 1.x"
    both = note("nodejs20.x", "python3.11")
    assert both is not None and both.startswith(
        "AWS_ENDPOINT_URL is read by the AWS SDK for JavaScript v3, and v2 through"
    )
    assert both.endswith(" and by boto3 1.28+")


def test_an_older_node_runtime_runs_on_the_local_node_and_says_which_the_template_names() -> None:
    runtime = runtime_for(spec("nodejs14.x"), Path("/nowhere"))
    assert isinstance(runtime, NodeRuntime)
    assert "the template names nodejs14.x" in runtime.describe()
