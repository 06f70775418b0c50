"""A hostile template.yml: a YAML alias bomb, a recursive alias, an integer over the digit limit,
nesting 10,000 deep, Timeout and MemorySize that are NaN, infinite, negative, zero or fractional,
and a CodeUri outside the project or at /. What must hold: a one-line ProjectError naming the file
(and the field, where there is one) before anything runs, quickly (nothing is expanded), and
`cfn-debug serve` exits 2 with that line."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from cfn_debug.endpoint.template import load_functions
from cfn_debug.errors import ProjectError
from reliability.support import child_env

pytestmark = pytest.mark.timeout(60)

FUNCTION = "Resources:\n  F:\n    Type: AWS::Serverless::Function\n    Properties:\n"


def project(tmp_path: Path, template: str) -> Path:
    (tmp_path / "src").mkdir(exist_ok=True)
    (tmp_path / "src" / "app.py").write_text("def h(event, context):\n    return {}\n")
    (tmp_path / "template.yml").write_text(template, encoding="utf-8")
    return tmp_path


def refused(tmp_path: Path, template: str, field: str | None, said: str) -> None:
    root = project(tmp_path, template)
    started = time.monotonic()
    with pytest.raises(ProjectError) as caught:
        load_functions(root)
    assert time.monotonic() - started < 5
    assert caught.value.path == str(root / "template.yml")
    assert caught.value.field == field and said in caught.value.detail, str(caught.value)
    assert "\n" not in str(caught.value)


def _bomb(levels: int = 9) -> str:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels):
        refs = ", ".join([f"*a{i - 1}"] * 9)
        lines.append(f"a{i}: &a{i} [{refs}]")
    return "\n".join(lines) + f"\nGlobals:\n  Function:\n    Environment: *a{levels - 1}\n"


def test_a_yaml_alias_bomb_is_refused_before_expansion(tmp_path: Path) -> None:
    """9^9 (387 million) values from 800 bytes: refused from the node graph, in well under a
    second, without building (or printing) the expansion."""
    refused(tmp_path, _bomb() + FUNCTION + "      Handler: app.h\n", None, "alias bomb")


def test_a_modest_use_of_aliases_is_still_read(tmp_path: Path) -> None:
    template = (
        "Env: &env {Variables: {A: '1'}}\n" + FUNCTION + "      Handler: app.h\n"
        "      Environment: *env\n"
    )
    functions = load_functions(project(tmp_path, template))
    assert functions["F"].environment == {"A": "1"}


def test_integers_too_long_and_nesting_too_deep_are_project_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    refused(
        tmp_path, FUNCTION + f"      Handler: app.h\n      Timeout: {'9' * 5000}\n", None, "digits"
    )
    # PyYAML may leave an object whose finalizer runs at that depth; pytest's own unraisable
    # hook then fails to format it ("Failed to process unraisable exception"), which is not what
    # this test is about: the refusal below is.
    monkeypatch.setattr(sys, "unraisablehook", lambda _unraisable: None)
    refused(tmp_path, "x: " + "[" * 10_000 + "]" * 10_000 + "\n", None, "nested")


@pytest.mark.parametrize("field", ["Timeout", "MemorySize"])
@pytest.mark.parametrize(
    "value", [".nan", ".inf", "-.inf", "-5", "0", "2.5", "1e400", "'NaN'", "'Infinity'", "true"]
)
def test_timeout_and_memory_size_must_be_whole_positive_numbers(
    tmp_path: Path, field: str, value: str
) -> None:
    template = FUNCTION + f"      Handler: app.h\n      {field}: {value}\n"
    refused(tmp_path, template, f"Resources.F.Properties.{field}", "expected a number")


@pytest.mark.parametrize("code_uri", ["/", "../", "../../..", "/etc", "src/../../elsewhere", "."])
def test_a_code_uri_outside_the_project_or_at_the_root_is_refused(
    tmp_path: Path, code_uri: str
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    template = FUNCTION + f"      Handler: app.h\n      CodeUri: '{code_uri}'\n"
    if code_uri == ".":  # the project itself is inside the project
        assert load_functions(project(root, template))["F"].code_dir == root.resolve()
        return
    refused(root, template, "Resources.F.Properties.CodeUri", "inside the project")


def test_serve_of_a_bomb_exits_2_with_one_line(tmp_path: Path) -> None:
    root = project(tmp_path, _bomb() + FUNCTION + "      Handler: app.h\n")
    proc = subprocess.run(
        [sys.executable, "-m", "cfn_debug.cli", "serve", str(root), "--port", "1"],
        capture_output=True,
        text=True,
        env=child_env(XDG_STATE_HOME=str(tmp_path / "state")),
        timeout=30,
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "template.yml" in lines[0] and "alias bomb" in lines[0]


def test_an_alias_bomb_in_a_section_the_endpoint_does_not_read_harms_nothing(
    tmp_path: Path,
) -> None:
    """The same bomb under Metadata (nothing there is read): the functions load, quickly."""
    bomb = _bomb().split("\nGlobals:")[0].replace("\na", "\n  a").replace("a0:", "  a0:", 1)
    template = "Metadata:\n" + bomb + "\n" + FUNCTION + "      Handler: app.h\n"
    started = time.monotonic()
    functions = load_functions(project(tmp_path, template))
    assert time.monotonic() - started < 5
    assert functions["F"].handler == "app.h"
