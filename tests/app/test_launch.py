"""`cfn-debug [PROJECT_DIR] [options]` reaches the dashboard with the options it was given."""

from __future__ import annotations

from pathlib import Path

from cfn_debug.app.config import AppConfig
from cfn_debug.cli import COMMANDS, _resolve, build_parser


def test_ui_options_become_the_app_config() -> None:
    args = build_parser().parse_args(
        [
            "ui",
            "my-project",
            "--endpoint",
            "http://127.0.0.1:3001",
            "--function-name",
            "TypeFunction",
            "--schema",
            "x.json",
            "--max-reinvoke",
            "7",
            "--max-delay",
            "2.5",
            "--watch",
        ]
    )
    config = AppConfig.from_args(args)
    assert config.project_dir == Path("my-project")
    assert config.endpoint == "http://127.0.0.1:3001"
    assert config.function_name == "TypeFunction"
    assert config.schema == Path("x.json")
    assert (config.max_reinvoke, config.max_delay, config.watch) == (7, 2.5, True)


def test_project_option_works_like_the_positional_directory() -> None:
    config = AppConfig.from_args(build_parser().parse_args(["ui", "--project", "elsewhere"]))
    assert config.project_dir == Path("elsewhere")
    assert config.max_delay is None and config.watch is False


def test_the_cli_dispatches_ui_to_the_dashboard() -> None:
    from cfn_debug.app.command import ui_command

    assert _resolve(COMMANDS["ui"]) is ui_command
