"""The `cfn-debug` command line: argument parsing and dispatch only.

Each subcommand lives in its package's ``command`` module, which adds its own options
(``add_arguments``) and runs it. Only the module of the command being run is imported, so that
`cfn-debug run` never pays for textual and `cfn-debug serve` never pays for the engine.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from importlib import import_module
from types import ModuleType
from typing import NamedTuple, NoReturn

from cfn_debug import __version__
from cfn_debug.errors import CfnDebugError, ExitCode
from cfn_debug.options import apply_demo


class Command(NamedTuple):
    """Where a subcommand lives: its module, the function adding its options, the one running it."""

    module: str
    add_arguments: str
    run: str
    help: str


COMMANDS: dict[str, Command] = {
    "ui": Command(
        "cfn_debug.app.command",
        "add_ui_arguments",
        "ui_command",
        "open the dashboard (the default command)",
    ),
    "open": Command(
        "cfn_debug.app.command",
        "add_open_arguments",
        "open_command",
        "reopen a saved session (JSON transcript or .jsonl journal) read-only",
    ),
    "serve": Command(
        "cfn_debug.endpoint.command",
        "add_arguments",
        "serve_command",
        "serve the project's functions on a Docker-free local Lambda endpoint",
    ),
    "run": Command(
        "cfn_debug.headless.command",
        "add_arguments",
        "run_command",
        "run events headless and report contract findings",
    ),
    "scenario": Command(
        "cfn_debug.scenarios.command",
        "add_arguments",
        "scenario_command",
        "run the contract scenarios (sequences of actions) headless",
    ),
    "rules": Command(
        "cfn_debug.contract.command",
        "add_arguments",
        "rules_command",
        "list the contract rules the checks enforce",
    ),
    "schema": Command(
        "cfn_debug.schema.command",
        "add_arguments",
        "schema_command",
        "check resource schemas as cfn-debug reads them (one line per problem)",
    ),
    "export": Command(
        "cfn_debug.export.command",
        "add_arguments",
        "export_command",
        "write a journal or transcript as JSON, Markdown, HTML or JUnit",
    ),
}


def _crash() -> ModuleType:
    """cfn_debug.crash: error lines made safe, crash reports."""
    # lazy: redaction and terminal safety (~40 ms of imports) load only when a command fails
    from cfn_debug import crash

    return crash


def _one_line(text: str) -> str:
    """An error's text on one safe line (crash.one_line)."""
    return _crash().one_line(text)


class _Parser(argparse.ArgumentParser):
    """argparse, with its error line made safe: it quotes unrecognized arguments as given, and an
    argument may carry escape sequences (a file name from a script, say)."""

    def error(self, message: str) -> NoReturn:
        super().error(_one_line(message))


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; with ``only``, every subcommand is listed but only that one's options
    are added (its module alone is imported)."""
    parser = _Parser(
        prog="cfn-debug",
        description="Debug CloudFormation resource-type handlers: replay IN_PROGRESS chains, "
        "check the handler contract, diff models, time every invocation.",
    )
    parser.add_argument("--version", action="version", version=f"cfn-debug {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, command in COMMANDS.items():
        subparser = sub.add_parser(name, help=command.help)
        if only is None or name == only:
            getattr(import_module(command.module), command.add_arguments)(subparser)
    return parser


def _resolve(command: Command) -> Callable[[argparse.Namespace], int]:
    return getattr(import_module(command.module), command.run)  # type: ignore[no-any-return]


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    # `cfn-debug [PROJECT_DIR] [options]` opens the dashboard.
    if not args_list or (
        args_list[0] not in COMMANDS and args_list[0] not in ("-h", "--help", "--version")
    ):
        first = args_list[0] if args_list else ""
        if first and not first.startswith("-") and not os.path.isdir(first):
            # a mistyped command must not open the full-screen dashboard
            print(
                f"cfn-debug: error: unknown command {_one_line(first)!r} (expected one of "
                f"{', '.join(COMMANDS)}, or a PROJECT_DIR that exists); see cfn-debug --help",
                file=sys.stderr,
            )
            return ExitCode.ERROR
        args_list.insert(0, "ui")
    args = build_parser(only=args_list[0]).parse_args(args_list)
    apply_demo(args)
    try:
        return _resolve(COMMANDS[args.command])(args)
    except CfnDebugError as error:
        # One line, whatever the error quotes (a file name, a handler's text): no escape
        # sequence reaches the terminal and no markup is interpreted (this is print, not Rich).
        print(f"cfn-debug: error: {_one_line(str(error))}", file=sys.stderr)
        return ExitCode.ERROR
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`| head`): not an error. Point stdout at nothing so the flush at
        # interpreter exit does not complain either.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return ExitCode.OK
    except Exception as error:  # a bug in cfn-debug: exit 2 (never 1), one line, a crash report
        crash = _crash()
        report = crash.write_crash_report(error, args_list)
        print(crash.crash_message(error, report), file=sys.stderr)
        return ExitCode.ERROR


if __name__ == "__main__":
    sys.exit(main())
