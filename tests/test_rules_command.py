"""`cfn-debug rules`: the catalogue as users and the README see it."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from cfn_debug.contract import CATALOGUE
from cfn_debug.contract.command import rule_document
from cfn_debug.contract.hook_rules import HOOK_RULES
from cfn_debug.contract.sequence_rules import HOW, SEQUENCE_RULES
from support.cli import run_cli

README = Path(__file__).resolve().parents[1] / "README.md"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, timeout=60)


def test_json_lists_every_rule_with_its_contract_sentence() -> None:
    proc = cli("rules", "--json")
    assert proc.returncode == 0, proc.stderr
    documents = json.loads(proc.stdout)
    assert [d["id"] for d in documents] == [r.id for r in CATALOGUE + SEQUENCE_RULES + HOOK_RULES]
    for document in documents:
        assert document["level"] in ("MUST", "SHOULD")
        assert document["contract"].strip(), document["id"]
        assert document["actions"], document["id"]


def test_one_rule_in_full_and_an_unknown_one() -> None:
    proc = cli("rules", "delete-success-no-model")
    assert proc.returncode == 0
    assert "MUST NOT contain a model" in proc.stdout
    proc = cli("rules", "no-such-rule")
    assert proc.returncode == 2
    assert proc.stderr.startswith("cfn-debug: error: no-such-rule: no such rule")
    assert "Traceback" not in proc.stderr


def test_readme_documents_every_rule_at_its_level() -> None:
    rows = dict(re.findall(r"^\| `([a-z0-9-]+)` \| (MUST|SHOULD) \|", README.read_text(), re.M))
    expected = {r.id: r.level.value for r in CATALOGUE + SEQUENCE_RULES + HOOK_RULES}
    assert rows == expected


def test_every_reasoned_level_shows_its_reason_in_the_readme_and_rules() -> None:
    """A level that was changed (or chosen against the obvious reading) says why, in the
    README's table and in `cfn-debug rules --json`."""
    rows = dict(
        re.findall(r"^\| `([a-z0-9-]+)` \| (?:MUST|SHOULD) \|(.*)$", README.read_text(), re.M)
    )
    documents = {d["id"]: d for d in json.loads(cli("rules", "--json").stdout)}
    reasoned = [r for r in CATALOGUE + SEQUENCE_RULES + HOOK_RULES if r.level_reason]
    assert reasoned
    for entry in reasoned:
        assert entry.level_reason in rows[entry.id], entry.id
        assert documents[entry.id]["level_reason"] == entry.level_reason
    proc = cli("rules", reasoned[0].id)
    assert f"Why {reasoned[0].level.value}: " in proc.stdout


def test_every_scenario_rule_explains_how_it_is_checked() -> None:
    """`rules --json` and `rules RULE_ID` show a scenario rule's HOW text as its explanation."""
    assert set(HOW) <= {r.id for r in SEQUENCE_RULES}
    for entry in SEQUENCE_RULES:
        assert rule_document(entry)["explanation"] == HOW[entry.id], entry.id
    proc = cli("rules", "scenario-list-empty")
    assert proc.returncode == 0, proc.stderr
    assert "resourceModels []" in proc.stdout
