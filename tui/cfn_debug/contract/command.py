"""`cfn-debug rules [RULE_ID] [--json]`: the rule catalogue, as the checks, the docs and the
exporters read it, so a finding's rule id can be looked up from any terminal or CI log."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rich.console import Console
from rich.table import Table

from cfn_debug.contract import CATALOGUE, explain, rule
from cfn_debug.contract.hook_rules import HOOK_RULES
from cfn_debug.contract.rule import Rule
from cfn_debug.contract.sequence_rules import HOW, SEQUENCE_RULES
from cfn_debug.errors import CfnDebugError, ExitCode
from cfn_debug.records import Action


def all_rules() -> tuple[Rule, ...]:
    return CATALOGUE + SEQUENCE_RULES + HOOK_RULES


def rule_document(entry: Rule) -> dict[str, Any]:
    return {
        "id": entry.id,
        "level": entry.level.value,
        "scope": entry.scope,
        "actions": [a.value for a in Action if a in entry.actions],  # in the enum's order
        "title": entry.title,
        "contract": entry.contract,
        # how the rule is checked: the step and chain rules' explain(), the scenarios' HOW
        "explanation": explain(entry.id) if entry in CATALOGUE else HOW.get(entry.id, ""),
        "level_reason": entry.level_reason,
    }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `cfn-debug rules`."""
    parser.add_argument("rule_id", nargs="?", metavar="RULE_ID", help="show one rule in full")
    parser.add_argument("--json", action="store_true", help="print the catalogue as JSON")


def rules_command(args: argparse.Namespace) -> int:
    if args.rule_id:
        try:
            entries: tuple[Rule, ...] = (rule(args.rule_id),)
        except KeyError:
            known = ", ".join(r.id for r in all_rules())
            raise CfnDebugError(
                f"no such rule (known rules: {known})", field=args.rule_id
            ) from None
    else:
        entries = all_rules()
    if args.json:
        json.dump([rule_document(e) for e in entries], sys.stdout, indent=2)
        sys.stdout.write("\n")
        return ExitCode.OK

    # Off a terminal (a CI log, a pipe) nothing limits the width to Rich's default 80 columns.
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)
    if args.rule_id:
        doc = rule_document(entries[0])
        console.print(f"[bold]{doc['id']}[/]  {doc['level']}  ({', '.join(doc['actions'])})")
        console.print(doc["title"])
        console.print()
        for sentence in doc["contract"].splitlines():
            console.print(f"  [italic]“{sentence}”[/]")
        if doc["explanation"]:
            console.print()
            console.print(doc["explanation"], markup=False)
        if doc["level_reason"]:
            console.print()
            console.print(f"Why {doc['level']}: {doc['level_reason']}")
        return ExitCode.OK
    table = Table("rule", "level", "scope", "actions", "what it checks", box=None)
    for entry in entries:
        doc = rule_document(entry)
        level = "[bold red]MUST[/]" if doc["level"] == "MUST" else "[yellow]SHOULD[/]"
        actions = ", ".join(a.lower() for a in doc["actions"])
        title = doc["title"]
        if doc["level_reason"]:
            title += f" [dim](why {doc['level']}: {doc['level_reason']})[/]"
        table.add_row(doc["id"], level, doc["scope"], actions, title)
    console.print(table)
    return ExitCode.OK
