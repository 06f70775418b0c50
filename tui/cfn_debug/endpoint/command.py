"""`cfn-debug serve`: the embedded endpoint in the foreground, with SAM-style logs."""

from __future__ import annotations

import argparse
import ipaddress
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from cfn_debug.aws.session import AwsOptions, open_aws
from cfn_debug.aws.setup_stack import SetupProgress
from cfn_debug.debugger.launch import launch_text
from cfn_debug.debugger.options import debug_options
from cfn_debug.endpoint.env_vars import load_env_vars
from cfn_debug.endpoint.runtimes import endpoint_url_note
from cfn_debug.endpoint.server import EmbeddedEndpoint
from cfn_debug.env_progress import console_env_progress
from cfn_debug.errors import CfnDebugError, EndpointError, ExitCode
from cfn_debug.locations import DEMO_DIR
from cfn_debug.options import (
    add_aws_options,
    add_debug_options,
    add_demo_option,
    add_python_option,
    port_number,
)
from cfn_debug.project import discover_project, is_project_dir
from cfn_debug.schema import load_schema
from cfn_debug.schema.models_check import project_model_notices
from cfn_debug.text.terminal import printable


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the endpoint on this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def exposure(host: str, port: int) -> str:
    """Who can reach the endpoint, said when `serve` starts."""
    where = (
        "this machine only (loopback)"
        if is_loopback(host)
        else f"every host that can reach {host} (NOT loopback)"
    )
    return (
        f"Listening on {host}:{port}: reachable from {where}; requests from web browsers "
        "(Origin, Sec-Fetch-*) and for other host names (DNS rebinding) are refused with 403"
    )


def project_to_serve(project_dir: str | None, cwd: Path | None = None) -> Path:
    """PROJECT_DIR, else the current directory when it is a project, else the bundled demo."""
    if project_dir:
        return Path(project_dir).expanduser()
    here = cwd or Path.cwd()
    if is_project_dir(here):
        return here
    return DEMO_DIR


def _model_notices(project: Path) -> list[str]:
    """A handler's models.py out of date with the schema (models_check), else nothing; a
    project whose schema cannot be read gets no notice here (serving does not need it)."""
    try:
        found = discover_project(project)
        schema = load_schema(found.schema_path) if found.schema_path is not None else None
    except (CfnDebugError, OSError, ValueError):
        return []
    return [printable(notice) for notice in project_model_notices(found, schema)]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `cfn-debug serve`."""
    parser.add_argument("project_dir", nargs="?", metavar="PROJECT_DIR")
    add_demo_option(parser)
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1)")
    parser.add_argument(
        "--port", type=port_number, default=3001, help="port to bind, 1-65535 (default: 3001)"
    )
    add_python_option(parser)
    parser.add_argument(
        "--env-vars",
        metavar="FILE",
        help="JSON file of environment variables, as `sam local --env-vars` takes it",
    )
    add_aws_options(parser, env_vars=False)
    parser.add_argument("--region", help="region of the local AWS and its setup stack")
    add_debug_options(parser)


def serve_command(args: argparse.Namespace, *, out: TextIO | None = None) -> int:

    stream = out or sys.stdout
    err = sys.stderr if out is None else out

    def emit(line: str) -> None:
        # a handler's log line may carry escape sequences: shown as \x1b, never sent raw
        stream.write(printable(line) + "\n")
        stream.flush()

    def emit_lines(lines: list[str]) -> None:
        """One invocation's lines in one write (the endpoint calls this once its answer is sent)."""
        stream.write("".join(printable(line) + "\n" for line in lines))
        stream.flush()

    project = project_to_serve(getattr(args, "project_dir", None))
    host = getattr(args, "host", "127.0.0.1") or "127.0.0.1"
    port = int(getattr(args, "port", 3001))
    env_vars_path = getattr(args, "env_vars", None)
    aws = _open_aws(args, project, load_env_vars(env_vars_path), emit)
    try:
        debug = debug_options(args, terminal=True)  # pdb on serve's own terminal, if it has one
        endpoint = EmbeddedEndpoint(
            project,
            host=host,
            port=port,
            env_vars=aws.env_vars,
            on_logs=emit_lines,
            debugger=debug.on_session,
            debug_port=debug.port,
            break_at=debug.break_at,
        )
    except EndpointError as error:
        aws.close()
        if error.path is None and env_vars_path:
            raise EndpointError(error.detail, path=env_vars_path, field=error.field) from None
        raise
    except BaseException:
        aws.close()
        raise
    try:
        with console_env_progress(err) as progress:  # --python, else the project's environment
            endpoint.python_choice = getattr(args, "python", None)
            endpoint.node_choice = getattr(args, "node", None)
            endpoint.on_env_progress = progress
            endpoint.start()
    except BaseException:
        aws.close()
        raise
    try:
        if not is_loopback(host):
            err.write(
                f"cfn-debug: warning: listening on {host}: the functions are exposed to "
                "anyone who can reach this address (no authentication)\n"
            )
            err.flush()
        label = "the bundled demo" if project == DEMO_DIR else str(project)
        emit(f"Serving {label} at {endpoint.url} (Lambda Invoke API, Ctrl-C to stop)")
        emit(exposure(host, endpoint.port))
        for name, spec in endpoint.functions.items():
            runtime = endpoint.runtimes.get(name)
            shown = f"{runtime.describe()}, " if runtime is not None else ""
            emit(
                printable(
                    f"  {name}  {spec.handler}  ({shown}code {spec.code_dir}, "
                    f"timeout {spec.timeout_s:g} s)"
                )
            )
        aws_line = aws.target.describe()
        note = endpoint_url_note(endpoint.runtimes.values())
        if note and aws.target.kind in ("local", "endpoint"):
            aws_line += f"; {note}"
        emit(printable(aws_line))
        if debug.port is not None:
            dirs = [spec.code_dir for spec in endpoint.functions.values()]
            emit(launch_text(debug.port, dirs))
        _emit_exports(aws, emit)
        emit(
            f"Invoke: aws lambda invoke --endpoint-url {endpoint.url} "
            "--no-sign-request --function-name NAME --payload fileb://event.json out.json"
        )
        for notice in _model_notices(project):
            emit(f"notice: {notice}")
        while True:  # until Ctrl-C
            time.sleep(0.5)
    except KeyboardInterrupt:
        emit("Stopping.")
    finally:
        endpoint.stop()
        aws.close()
    return ExitCode.OK


def _open_aws(args: argparse.Namespace, project: Path, env_vars: Any, emit: Any) -> Any:
    """--local-aws (moto started, setup stack deployed), --aws-endpoint-url or the shell's
    AWS_ENDPOINT_URL: what the workers' environment gets; see cfn_debug.aws.session."""
    options = AwsOptions.from_args(args)
    options.env_vars_file = None  # loaded above, with serve's own error messages

    def progress(step: SetupProgress) -> None:
        counter = f"[{step.done}/{step.total}] " if step.total else ""
        emit(f"local AWS: {counter}{step.message}")

    return open_aws(
        options,
        root=project,
        region=getattr(args, "region", None),
        profile=None,
        env_vars=env_vars,
        progress=progress,
    )


def _emit_exports(aws: Any, emit: Any) -> None:
    """The values {{NAME}} placeholders get: the setup stack's exports and --export's."""
    values = {**(aws.exports.listed or {}), **aws.exports.manual}
    if values:
        emit("Exports for {{NAME}} placeholders:")
        for name, value in sorted(values.items()):
            emit(f"  {printable(name)} = {printable(value)}")
