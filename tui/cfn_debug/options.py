"""Command-line options several commands share: what to invoke, which AWS, the handlers' Python.

Argparse only: every command's ``add_arguments`` may use them without importing the engine.
"""

from __future__ import annotations

import argparse

from cfn_debug.locations import DEMO_DIR, DEMO_HOOK_DIR


def port_number(text: str) -> int:
    """A TCP port given on the command line: 1..65535, else a usage error (exit 2)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number 1-65535, got {text!r}") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port number 1-65535, got {port}")
    return port


def add_target_options(parser: argparse.ArgumentParser) -> None:
    """Options naming what to invoke; the names are those of `cfn invoke` and `cfn test`."""
    parser.add_argument(
        "--project",
        metavar="DIR",
        help="resource-type or hook project directory (default: the current one, else the "
        "bundled demo)",
    )
    add_demo_option(parser)
    parser.add_argument(
        "--endpoint",
        metavar="URL",
        help="Lambda endpoint, e.g. http://127.0.0.1:3001 for `sam local start-lambda`, "
        "http://127.0.0.1:8080 for the Runtime Interface Emulator, or 'aws' for deployed "
        "functions (default: start the embedded endpoint for the project)",
    )
    parser.add_argument("--function-name", metavar="NAME", help="function name or ARN to invoke")
    parser.add_argument(
        "--schema", metavar="FILE", help="resource schema file (overrides discovery)"
    )
    add_python_option(parser)
    parser.add_argument("--region", help="region put in the requests (default: us-east-1)")
    parser.add_argument("--profile", help="AWS profile whose credentials go into the requests")
    parser.add_argument(
        "--max-reinvoke",
        type=int,
        default=100,
        metavar="N",
        help="stop a chain after N re-invocations (default: 100)",
    )
    parser.add_argument(
        "--max-delay",
        type=float,
        default=None,
        metavar="S",
        help="wait at most S seconds of a callbackDelaySeconds (default: the full delay)",
    )


def add_demo_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--demo",
        choices=("type", "hook"),
        help="open a bundled demo: the resource type (the default outside a project) or the "
        "hook (CfnDebug::Demo::BucketGuard)",
    )


def add_hook_settings_option(parser: argparse.ArgumentParser) -> None:
    """--type-configuration for `run` and `ui`: a hook's settings, or the typeConfiguration a
    resource type's requests carry (`scenario` has its own)."""
    parser.add_argument(
        "--type-configuration",
        metavar="JSON|FILE",
        help="a resource type's: the typeConfiguration every request carries (a JSON object, "
        "or a file holding one); a hook's: its settings (the requests' hookModel), a file in "
        "the CLI's type configuration format or a JSON object (default: the project's "
        ".type_config.json, else ~/.cfn-cli/typeConfiguration.json, else its schema's defaults)",
    )


def apply_demo(args: argparse.Namespace) -> None:
    """--demo: the bundled demo type or hook, as if its directory had been given."""
    demo = getattr(args, "demo", None)
    if demo is None:
        return
    root = DEMO_HOOK_DIR if demo == "hook" else DEMO_DIR
    args.project = str(root)
    if hasattr(args, "project_dir"):
        args.project_dir = str(root)


def add_python_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--python",
        metavar="PATH",
        help="interpreter (or virtual environment) the embedded endpoint runs handlers with "
        "(default: one built and cached from the project's requirements.txt when cfn-debug's "
        "own lacks something it names)",
    )
    parser.add_argument(
        "--node",
        metavar="PATH",
        help="node executable the embedded endpoint runs Node handlers (nodejs18.x-22.x) with "
        "(default: node on PATH)",
    )


def add_aws_options(parser: argparse.ArgumentParser, *, env_vars: bool = True) -> None:
    """Which AWS the handlers talk to, and what fills the inputs' {{ExportName}} placeholders."""
    group = parser.add_argument_group("AWS for the handlers")
    group.add_argument(
        "--local-aws",
        action="store_true",
        help="start a local AWS (moto's server on 127.0.0.1) for this session, point the "
        "handlers at it and deploy the project's test/setup.yml into it",
    )
    group.add_argument(
        "--aws-endpoint-url",
        metavar="URL",
        help="point the handlers' boto3 at this AWS-compatible endpoint (a moto or LocalStack "
        "server you run); its exports fill placeholders",
    )
    group.add_argument(
        "--setup",
        metavar="TEMPLATE",
        help="with --local-aws: the setup stack to deploy (default: test/setup.yml; 'none': "
        "deploy nothing and give the values with --export)",
    )
    group.add_argument(
        "--export",
        action="append",
        metavar="NAME=VALUE",
        help="fill {{NAME}} placeholders with VALUE (repeatable; over the stack's exports)",
    )
    if env_vars:
        group.add_argument(
            "--env-vars",
            metavar="FILE",
            help="JSON file of the handlers' environment variables, as `sam local --env-vars` "
            "takes it",
        )


def add_debug_options(parser: argparse.ArgumentParser) -> None:
    """--debug-port and --break-at, on a command that starts the embedded endpoint."""
    group = parser.add_argument_group("debugger")
    group.add_argument(
        "--debug-port",
        type=port_number,
        metavar="PORT",
        help="the handler's worker listens with debugpy on 127.0.0.1:PORT and waits for an IDE "
        "to attach (VS Code: a launch.json entry is printed) before it runs the handler",
    )
    group.add_argument(
        "--break-at",
        action="append",
        default=[],
        metavar="FILE:LINE",
        help="stop in pdb at this line of the handler (repeatable); needs a terminal (or the "
        "dashboard)",
    )
