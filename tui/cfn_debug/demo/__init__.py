"""The bundled demo resource type, CfnDebug::Demo::Widget.

This directory is a complete resource-type project as `cfn init` lays one out for Python
(.rpdk-config, the schema, template.yml, src/cfndebug_demo_widget/). Its handler code never
imports cfn_debug: the embedded endpoint runs it with src/ first on sys.path.
"""

from __future__ import annotations

from pathlib import Path

#: The project directory of the demo type (holds .rpdk-config, template.yml, the schema).
PROJECT_DIR = Path(__file__).resolve().parent
SCHEMA_FILE = PROJECT_DIR / "cfndebug-demo-widget.json"
#: The demo's resource type (a project with this type name is the demo or a copy of it).
TYPE_NAME = "CfnDebug::Demo::Widget"


def sample_events_dir() -> Path:
    """The demo's sample events: inside the package when installed from a wheel (pyproject
    force-includes them there), else sample_events/ at the root of the source tree."""
    installed = PROJECT_DIR / "sample_events"
    return installed if installed.is_dir() else PROJECT_DIR.parents[2] / "sample_events"
