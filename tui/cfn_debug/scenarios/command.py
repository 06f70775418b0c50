"""`cfn-debug scenario [NAME ...|all]`: run the contract scenarios headless, for terminals and CI.

Exit status: 0 when every scenario passed (or passed with SHOULD warnings, or did not apply),
1 when any failed a MUST rule or was blocked (a setup step the scenario needs did not succeed),
2 for usage and infrastructure errors (an endpoint that cannot be used, a broken schema, ...).

The type configuration a scenario sends is the user's choice, as it is in an account: give it
with --type-configuration (a JSON object, or a file holding one); --fault NAME is short for
{"Fault": NAME}, the bundled demo's switch for its faults (see cfn_debug/type_configuration.py).

This module holds the options, imported at start-up; suite.py runs the scenarios.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from cfn_debug.aws.session import prelaunch_local
from cfn_debug.endpoint.prestart import Prestart
from cfn_debug.options import add_aws_options, add_debug_options, add_target_options

__all__ = ["add_arguments", "scenario_command"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `cfn-debug scenario`."""
    parser.add_argument(
        "names",
        nargs="*",
        default=["all"],
        metavar="NAME",
        help="scenario(s) to run (default: all)",
    )
    add_target_options(parser)
    add_aws_options(parser)
    add_debug_options(parser)
    parser.add_argument("--json", action="store_true", help="print one machine-readable document")
    parser.add_argument(
        "--logs", action="store_true", help="print the handler's log lines of every step"
    )
    parser.add_argument(
        "--type-configuration",
        metavar="JSON|FILE",
        help="type configuration sent with every request (a JSON object, or a file holding one)",
    )
    parser.add_argument(
        "--fault", metavar="NAME", help='the demo\'s faults: short for {"Fault": NAME}'
    )
    parser.add_argument(
        "--shape",
        choices=("sam", "handler-request"),
        help="payload shape, when the function name does not tell (the emulator's 'function')",
    )
    parser.add_argument(
        "--examples",
        type=int,
        default=20,
        metavar="N",
        help="generated-inputs: inputs to generate from the schema (default: 20)",
    )
    parser.add_argument("--seed", type=int, help="generated-inputs: Hypothesis seed")
    parser.add_argument(
        "--generate",
        action="store_true",
        help="run generated-inputs too (`all` leaves it out when the project has inputs/)",
    )
    parser.add_argument(
        "--reveal-write-only",
        action="store_true",
        help="print writeOnly property values instead of masking them",
    )
    uniqueness = parser.add_mutually_exclusive_group()
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
    parser.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help="scenarios played at once, at most, where they claim no identifier or createOnly "
        "value in common (default 1; only with the embedded endpoint and no debugger): for "
        "handlers that keep no other property unique",
    )
    parser.add_argument(
        "--junit",
        metavar="FILE",
        help="also write the results as JUnit XML, one testcase per scenario (for CI)",
    )
    parser.add_argument(
        "--journal",
        metavar="FILE",
        help="append the scenarios' runs and results to this session journal "
        "(`cfn-debug export` reads it)",
    )
    parser.add_argument("--list", action="store_true", help="list the scenarios and exit")


def scenario_command(args: argparse.Namespace) -> int:
    """`cfn-debug scenario`: the local AWS (--local-aws) and the embedded endpoint's fork server
    (endpoint.prestart) start first, so that moto imports its services and the fork server the
    handlers' libraries while the engine is imported and the workspace opens; then
    suite.run_scenario_command runs the scenarios."""
    local = None if args.list else prelaunch_local(args)
    prestart = _prestart(args)
    try:
        # lazy: the engine's imports run while the fork server preloads and moto starts
        from cfn_debug.scenarios.suite import run_scenario_command

        return run_scenario_command(args)
    finally:
        if prestart is not None:
            prestart.release()
        if local is not None:
            local.stop()  # nothing when the workspace took it over and stopped it


def _prestart(args: argparse.Namespace) -> Prestart | None:
    """The fork server of the embedded endpoint the run will start, started now; None when the
    run starts none (--list, --endpoint) or another interpreter's (--python)."""
    if args.list or args.endpoint is not None or getattr(args, "python", None):
        return None
    return Prestart(Path(args.project) if args.project else None)
