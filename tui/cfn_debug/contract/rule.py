"""A contract rule as data, and the scopes it is checked at."""

from __future__ import annotations

from dataclasses import dataclass

from cfn_debug.records import Action, Level

STEP = "step"
CHAIN = "chain"
READ_BACK = "read-back"  # checked against the READ cfn-debug sends after a SUCCESS


@dataclass(frozen=True)
class Rule:
    """One rule of the catalogue: what it enforces, for which actions, at which level."""

    id: str
    level: Level
    actions: frozenset[Action]
    title: str
    contract: str
    scope: str  # STEP: checked on every invocation; CHAIN: once for the whole chain
    #: why the level is what it is, where it was changed (or chosen against the obvious
    #: reading): `cfn-debug rules` and the README show it beside the level
    level_reason: str = ""

    def contract_for(self, action: Action) -> str:
        """The contract sentences that name ``action`` (all of them when none names one)."""
        lines = self.contract.splitlines()
        named = [line for line in lines if any(f"`{a.value.lower()}`" in line for a in Action)]
        mine = [line for line in named if f"`{action.value.lower()}`" in line]
        unnamed = [line for line in lines if line not in named]
        return "\n".join(mine + unnamed) if mine or unnamed else self.contract
