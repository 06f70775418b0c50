"""The `cfn-debug` command line: argument parsing and dispatch only.

Each subcommand lives in the module that owns its job and is imported only when it runs, so that
`cfn-debug run` never pays for textual and `cfn-debug serve` never pays for the engine.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from importlib import import_module
from typing import NoReturn

from cfn_debug import __version__
from cfn_debug.errors import CfnDebugError

#: subcommand -> "module:function" taking the parsed arguments and returning an exit code.
COMMANDS: dict[str, str] = {
    "ui": "cfn_debug.app.launch:ui_command",
    "serve": "cfn_debug.endpoint.command:serve_command",
    "run": "cfn_debug.headless:run_command",
    "export": "cfn_debug.export.command:export_command",
    "rules": "cfn_debug.contract.command:rules_command",
    "scenario": "cfn_debug.scenarios.command:scenario_command",
    "open": "cfn_debug.app.launch:open_command",
    "schema": "cfn_debug.schema_command:schema_command",
}

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    """argparse, with its error line made safe: it quotes unrecognized arguments as given, and an
    argument may carry escape sequences (a file name from a script, say)."""

    def error(self, message: str) -> NoReturn:
        from cfn_debug.crash import one_line

        super().error(one_line(message))


def port_number(text: str) -> int:
    """A TCP port given on the command line: 1..65535, else a usage error (exit 2)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number 1-65535, got {text!r}") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port number 1-65535, got {port}")
    return port


def _add_target_options(parser: argparse.ArgumentParser) -> None:
    """Options naming what to invoke; the names are those of `cfn invoke` and `cfn test`."""
    parser.add_argument(
        "--project",
        metavar="DIR",
        help="resource-type project directory (default: the current one, else the bundled demo)",
    )
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
    _add_python_option(parser)
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


def _add_python_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--python",
        metavar="PATH",
        help="interpreter (or virtual environment) the embedded endpoint runs handlers with "
        "(default: one built and cached from the project's requirements.txt when cfn-debug's "
        "own lacks something it names)",
    )


def _add_aws_options(parser: argparse.ArgumentParser, *, env_vars: bool = True) -> None:
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


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="cfn-debug",
        description="Debug CloudFormation resource-type handlers: replay IN_PROGRESS chains, "
        "check the handler contract, diff models, time every invocation.",
    )
    parser.add_argument("--version", action="version", version=f"cfn-debug {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    ui = sub.add_parser("ui", help="open the dashboard (the default command)")
    ui.add_argument("project_dir", nargs="?", metavar="PROJECT_DIR")
    _add_target_options(ui)
    _add_aws_options(ui)
    ui.add_argument("--watch", action="store_true", help="re-run on every save")
    ui.add_argument(
        "--no-read-back",
        action="store_true",
        help="do not READ the resource after a CREATE or UPDATE ends SUCCESS",
    )
    ui.add_argument(
        "--build",
        metavar="CMD",
        help="in watch mode: shell command run before each re-run (e.g. 'sam build'); "
        "a failed build is shown and nothing re-runs",
    )
    ui.add_argument(
        "--journal",
        metavar="FILE",
        help="write the session journal here (default: a new file under "
        "$XDG_STATE_HOME/cfn-debug/journals)",
    )
    ui.add_argument(
        "--screenshot-dir",
        metavar="DIR",
        help="where Ctrl+S saves screenshots (default: $XDG_STATE_HOME/cfn-debug/screenshots)",
    )

    open_ = sub.add_parser(
        "open", help="reopen a saved session (JSON transcript or .jsonl journal) read-only"
    )
    open_.add_argument(
        "transcript", metavar="TRANSCRIPT", help="JSON transcript or session journal (.jsonl)"
    )
    open_.add_argument(
        "--screenshot-dir",
        metavar="DIR",
        help="where Ctrl+S saves screenshots (default: $XDG_STATE_HOME/cfn-debug/screenshots)",
    )

    serve = sub.add_parser(
        "serve", help="serve the project's functions on a Docker-free local Lambda endpoint"
    )
    serve.add_argument("project_dir", nargs="?", metavar="PROJECT_DIR")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1)")
    serve.add_argument(
        "--port", type=port_number, default=3001, help="port to bind, 1-65535 (default: 3001)"
    )
    _add_python_option(serve)
    serve.add_argument(
        "--env-vars",
        metavar="FILE",
        help="JSON file of environment variables, as `sam local --env-vars` takes it",
    )
    _add_aws_options(serve, env_vars=False)
    serve.add_argument("--region", help="region of the local AWS and its setup stack")

    run = sub.add_parser("run", help="run events headless and report contract findings")
    run.add_argument(
        "events",
        nargs="*",
        metavar="EVENT",
        help="event file(s) to run, or inputs/inputs_N_create|update|invalid.json (default: "
        "every event the project has)",
    )
    _add_target_options(run)
    _add_aws_options(run)
    run.add_argument("--json", action="store_true", help="print one machine-readable document")
    run.add_argument(
        "--journal",
        metavar="FILE",
        help="append the session journal to FILE (default: a new file in the user's state dir)",
    )
    run.add_argument("--no-journal", action="store_true", help="keep no journal of this run")
    run.add_argument(
        "--reveal-write-only",
        action="store_true",
        help="print writeOnly property values instead of masking them",
    )
    run.add_argument(
        "--logs", action="store_true", help="print the handler's log lines of every step"
    )
    run.add_argument(
        "--no-read-back",
        action="store_true",
        help="do not READ the resource after a CREATE or UPDATE ends SUCCESS (by default "
        "cfn-debug sends one with the returned identifier and compares)",
    )
    run.add_argument(
        "--watch",
        action="store_true",
        help="run, then run again on every save of the handler sources, the schema or an "
        "event file, until Ctrl-C",
    )
    run.add_argument(
        "--build",
        metavar="CMD",
        help="with --watch: shell command run before each re-run (e.g. 'sam build'); "
        "a failed build is reported and nothing re-runs",
    )

    scenario = sub.add_parser(
        "scenario", help="run the contract scenarios (sequences of actions) headless"
    )
    scenario.add_argument(
        "names",
        nargs="*",
        default=["all"],
        metavar="NAME",
        help="scenario(s) to run (default: all)",
    )
    _add_target_options(scenario)
    _add_aws_options(scenario)
    scenario.add_argument("--json", action="store_true", help="print one machine-readable document")
    scenario.add_argument(
        "--logs", action="store_true", help="print the handler's log lines of every step"
    )
    scenario.add_argument(
        "--type-configuration",
        metavar="JSON|FILE",
        help="type configuration sent with every request (a JSON object, or a file holding one)",
    )
    scenario.add_argument(
        "--fault", metavar="NAME", help='the demo\'s faults: short for {"Fault": NAME}'
    )
    scenario.add_argument(
        "--shape",
        choices=("sam", "handler-request"),
        help="payload shape, when the function name does not tell (the emulator's 'function')",
    )
    scenario.add_argument(
        "--examples",
        type=int,
        default=20,
        metavar="N",
        help="generated-inputs: inputs to generate from the schema (default: 20)",
    )
    scenario.add_argument("--seed", type=int, help="generated-inputs: Hypothesis seed")
    scenario.add_argument(
        "--generate",
        action="store_true",
        help="run generated-inputs too (`all` leaves it out when the project has inputs/)",
    )
    scenario.add_argument(
        "--reveal-write-only",
        action="store_true",
        help="print writeOnly property values instead of masking them",
    )
    uniqueness = scenario.add_mutually_exclusive_group()
    uniqueness.add_argument(
        "--unique",
        action="store_true",
        help="give the identifiers the inputs write a per-run suffix (by default they are sent "
        "as written; a create answered AlreadyExists is retried once with a suffix)",
    )
    uniqueness.add_argument(
        "--no-unique",
        action="store_true",
        help="never add a suffix, not even to retry a create answered AlreadyExists",
    )
    scenario.add_argument("--list", action="store_true", help="list the scenarios and exit")

    rules = sub.add_parser("rules", help="list the contract rules the checks enforce")
    rules.add_argument("rule_id", nargs="?", metavar="RULE_ID", help="show one rule in full")
    rules.add_argument("--json", action="store_true", help="print the catalogue as JSON")

    schema = sub.add_parser(
        "schema", help="check resource schemas as cfn-debug reads them (one line per problem)"
    )
    schema.add_argument("schemas", nargs="+", metavar="SCHEMA", help="resource schema file(s)")
    schema.add_argument("--json", action="store_true", help="print the problems as JSON")

    export = sub.add_parser(
        "export", help="write a journal or transcript as JSON, Markdown, HTML or JUnit"
    )
    export.add_argument(
        "journal", metavar="JOURNAL", help="session journal (.jsonl) or JSON transcript"
    )
    export.add_argument(
        "--format", choices=("json", "md", "html", "junit"), default="json", help="output format"
    )
    export.add_argument(
        "--output", "-o", metavar="FILE", help="write here (default: standard output)"
    )
    export.add_argument("--schema", metavar="FILE", help="schema whose writeOnly values to mask")
    export.add_argument(
        "--reveal-write-only", action="store_true", help="do not mask writeOnly property values"
    )
    return parser


def _resolve(spec: str) -> Callable[[argparse.Namespace], int]:
    module, _, name = spec.partition(":")
    return getattr(import_module(module), name)  # type: ignore[no-any-return]


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    # `cfn-debug [PROJECT_DIR] [options]` opens the dashboard.
    if not args_list or (
        args_list[0] not in COMMANDS and args_list[0] not in ("-h", "--help", "--version")
    ):
        args_list.insert(0, "ui")
    args = build_parser().parse_args(args_list)
    try:
        return _resolve(COMMANDS[args.command])(args)
    except CfnDebugError as error:
        from cfn_debug.crash import one_line

        # One line, whatever the error quotes (a file name, a handler's text): no escape
        # sequence reaches the terminal and no markup is interpreted (this is print, not Rich).
        print(f"cfn-debug: error: {one_line(str(error))}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`| head`): not an error. Point stdout at nothing so the flush at
        # interpreter exit does not complain either.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except Exception as error:  # a bug in cfn-debug: exit 2 (never 1), one line, a crash report
        from cfn_debug.crash import crash_message, write_crash_report

        print(crash_message(error, write_crash_report(error, args_list)), file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
