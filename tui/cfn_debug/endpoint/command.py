"""`cfn-debug serve`: the embedded endpoint in the foreground, with SAM-style logs."""

from __future__ import annotations

import argparse
import ipaddress
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from cfn_debug.errors import EndpointError
from cfn_debug.events import read_json
from cfn_debug.project import is_project_dir

DEMO_DIR = Path(__file__).resolve().parents[1] / "demo"


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the endpoint on this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def project_to_serve(project_dir: str | None, cwd: Path | None = None) -> Path:
    """PROJECT_DIR, else the current directory when it is a project, else the bundled demo."""
    if project_dir:
        return Path(project_dir).expanduser()
    here = cwd or Path.cwd()
    if is_project_dir(here):
        return here
    return DEMO_DIR


def load_env_vars(path: str | None) -> dict[str, Any] | None:
    """The --env-vars file: {"Parameters": {...}, "FunctionName": {...}} as SAM takes it."""
    if not path:
        return None
    data = read_json(Path(path).expanduser(), EndpointError)
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise EndpointError(
            'expected an object such as {"Parameters": {"VAR": "value"}, '
            '"FunctionName": {"VAR": "value"}}',
            path=path,
        )
    return data


def serve_command(args: argparse.Namespace, *, out: TextIO | None = None) -> int:
    from cfn_debug.endpoint.server import EmbeddedEndpoint

    stream = out or sys.stdout
    err = sys.stderr if out is None else out

    def emit(line: str) -> None:
        stream.write(line + "\n")
        stream.flush()

    project = project_to_serve(getattr(args, "project_dir", None))
    host = getattr(args, "host", "127.0.0.1") or "127.0.0.1"
    port = int(getattr(args, "port", 3001))
    env_vars_path = getattr(args, "env_vars", None)
    aws = _open_aws(args, project, load_env_vars(env_vars_path), emit)
    try:
        endpoint = EmbeddedEndpoint(
            project, host=host, port=port, env_vars=aws.env_vars, on_log=emit
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
        for name, spec in endpoint.functions.items():
            emit(f"  {name}  {spec.handler}  (code {spec.code_dir}, timeout {spec.timeout_s:g} s)")
        from cfn_debug.textsafe import printable

        emit(printable(aws.target.describe()))
        _emit_exports(aws, emit)
        emit(
            f"Invoke: aws lambda invoke --endpoint-url {endpoint.url} "
            "--no-sign-request --function-name NAME --payload fileb://event.json out.json"
        )
        while True:  # until Ctrl-C
            time.sleep(0.5)
    except KeyboardInterrupt:
        emit("Stopping.")
    finally:
        endpoint.stop()
        aws.close()
    return 0


def _open_aws(args: argparse.Namespace, project: Path, env_vars: Any, emit: Any) -> Any:
    """--local-aws (moto started, setup stack deployed), --aws-endpoint-url or the shell's
    AWS_ENDPOINT_URL: what the workers' environment gets; see cfn_debug.aws.session."""
    from cfn_debug.aws.session import AwsOptions, open_aws
    from cfn_debug.aws.setup_stack import SetupProgress

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
    from cfn_debug.textsafe import printable

    values = {**(aws.exports.listed or {}), **aws.exports.manual}
    if values:
        emit("Exports for {{NAME}} placeholders:")
        for name, value in sorted(values.items()):
            emit(f"  {printable(name)} = {printable(value)}")
