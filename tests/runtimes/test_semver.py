"""npm engines ranges, as the Node runtime checks the handler library's `engines.node`."""

from __future__ import annotations

import pytest

from cfn_debug.endpoint.runtimes.semver import parse_version, satisfies


@pytest.mark.parametrize(
    ("version", "spec", "expected"),
    [
        ("20.20.2", ">=20.0.0", True),
        ("18.19.0", ">=20.0.0", False),
        ("20.0.0", ">=20", True),
        ("14.21.3", ">=14.0.0", True),
        ("18.2.0", "^18", True),
        ("19.0.0", "^18", False),
        ("0.2.9", "^0.2.3", True),
        ("0.3.0", "^0.2.3", False),
        ("20.11.9", "~20.11", True),
        ("20.12.0", "~20.11", False),
        ("18.5.0", "18.x", True),
        ("20.0.0", "18.x", False),
        ("20.1.0", "^18 || >=20.1", True),
        ("19.1.0", "^18 || >=20.1", False),
        ("16.0.0", "14 - 16", True),
        ("17.0.0", "14 - 16", False),
        ("22.0.0", ">=18 <22", False),
        ("21.9.0", ">=18 <22", True),
        ("20.0.0", "*", True),
        ("20.0.0", "a range nobody wrote", True),
    ],
)
def test_satisfies(version: str, spec: str, expected: bool) -> None:
    parsed = parse_version(version)
    assert parsed is not None
    assert satisfies(parsed, spec) is expected


def test_parse_version_reads_node_version_output() -> None:
    assert parse_version("v20.20.2\n") == (20, 20, 2)
    assert parse_version("not a version") is None
