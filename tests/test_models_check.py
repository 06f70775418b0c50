"""A handler's models.py that no longer matches the schema is said before the first event, with
`cfn generate`, as a notice: not a finding, and not an exit status of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cfn_debug.demo import PROJECT_DIR as DEMO
from cfn_debug.project import discover_project
from cfn_debug.schema import load_schema
from cfn_debug.schema.models_check import check_models, model_fields, project_model_notices

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "aws_calls" / "project"
DEMO_MODELS = DEMO / "src" / "cfndebug_demo_widget" / "models.py"


@pytest.mark.parametrize("project", [DEMO, FIXTURE])
def test_generated_models_that_match_give_no_notice(project: Path) -> None:
    found = discover_project(project)
    assert project_model_notices(found, load_schema(found.schema_path)) == []


def test_a_schema_changed_without_cfn_generate_is_named(tmp_path: Path) -> None:
    raw = json.loads((DEMO / "cfndebug-demo-widget.json").read_text())
    raw["properties"]["Owner"] = {"type": "string"}
    del raw["properties"]["Labels"]
    mismatch = check_models(DEMO_MODELS, raw)
    assert mismatch is not None
    assert (mismatch.missing, mismatch.extra) == (("Owner",), ("Labels",))
    notice = mismatch.notice(DEMO)
    assert notice.startswith("src/cfndebug_demo_widget/models.py: ResourceModel does not match")
    assert "Owner" in notice and "Labels" in notice and "`cfn generate`" in notice


def test_the_cfn_init_sample_model_left_in_place_is_named() -> None:
    sample = (
        "@dataclass\nclass ResourceModel(BaseModel):\n    Title: Optional[str]\n"
        "    Description: Optional[str]\n    Memo: Optional['_Memo']\n"
    )
    assert model_fields(sample) == ["Title", "Description", "Memo"]
    assert model_fields("def broken(:\n") is None


@pytest.mark.slow
def test_run_prints_the_notice_and_keeps_its_exit_status(tmp_path: Path) -> None:
    raw = json.loads((DEMO / "cfndebug-demo-widget.json").read_text())
    raw["properties"]["Owner"] = {"type": "string"}
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(raw))
    event = REPO / "sample_events" / "read.json"
    env = {**os.environ, "CFN_DEBUG_DEMO_STATE": str(tmp_path), "NO_COLOR": "1"}
    args = ["run", str(event), "--schema", str(schema), "--json", "--no-journal"]
    done = subprocess.run(
        [sys.executable, "-m", "cfn_debug.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr
    (notice,) = json.loads(done.stdout)["notices"]
    assert "Owner" in notice and "cfn generate" in notice
    assert "notice:" in done.stderr and "cfn generate" in done.stderr


@pytest.mark.slow
def test_serve_prints_the_notice_at_start(tmp_path: Path) -> None:
    import shutil
    import time

    from support.ports import free_port

    project = tmp_path / "project"
    shutil.copytree(FIXTURE, project)
    schema = project / "cfndebug-fixture-record.json"
    raw = json.loads(schema.read_text())
    raw["properties"]["Owner"] = {"type": "string"}
    schema.write_text(json.dumps(raw))
    output = tmp_path / "serve.log"
    args = ["serve", str(project), "--port", str(free_port())]
    with output.open("w") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "cfn_debug.cli", *args],
            stdout=sink,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            cwd=REPO,
        )
        try:
            deadline = time.monotonic() + 60
            while "notice:" not in output.read_text() and time.monotonic() < deadline:
                if process.poll() is not None:
                    break
                time.sleep(0.1)
        finally:
            process.terminate()
            process.wait(timeout=15)
    text = output.read_text()
    assert "notice: src/cfndebug_fixture_records/models.py: ResourceModel does not match" in text
    assert "Owner" in text and "cfn generate" in text
