"""What a scenario does its work with: one :class:`Play` per scenario run.

A Play sends the actions (each a chain through ``Workspace.run``, so every step carries the live
findings of a single run), follows list pages, records verdicts, remembers every identifier a
create (or an upserting update) named, and deletes them all at the end, saying so when it cannot.
"""

from __future__ import annotations

import copy
import dataclasses
import uuid
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from cfn_debug.chain import run_chain
from cfn_debug.chain_end import inconclusive
from cfn_debug.contract import rule
from cfn_debug.contract.requested import as_answered, short
from cfn_debug.errors import CfnDebugError
from cfn_debug.events import parse_event
from cfn_debug.infrastructure import infrastructure_error
from cfn_debug.records import Action, ChainEvent, EndReason, RunEnded, RunRecord
from cfn_debug.scenarios.inputs import (
    create_only_names,
    drop_pointers,
    identifier_key,
    identifier_text,
    make_unique,
    retry_keys,
    unique_suffix,
)
from cfn_debug.scenarios.outcome import (
    Created,
    Listing,
    describe,
    failed_with,
    final_progress,
    model_of,
    models_of_chain,
    read_back_problems,
    status_of,
    succeeded,
)
from cfn_debug.scenarios.results import (
    ActionStarted,
    Outcome,
    Purpose,
    ScenarioAction,
    ScenarioEvent,
    ScenarioNote,
    ScenarioResult,
    Verdict,
    VerdictReached,
    VerdictStatus,
)
from cfn_debug.schema import ResourceSchema, identifier_model

if TYPE_CHECKING:
    from cfn_debug.scenarios.runner import ScenarioRunner

Emit = Callable[[ScenarioEvent], None]


class EndpointUnusable(Exception):
    """A chain ended with EndReason.ERROR: nothing more can be asked of this endpoint."""


# --- the play ---------------------------------------------------------------------------------


class Play:
    """The actions, verdicts and cleanup of one scenario run."""

    def __init__(
        self,
        runner: ScenarioRunner,
        name: str,
        title: str,
        emit: Emit,
        *,
        rules: tuple[str, ...] = (),
        quiet: bool = False,
    ) -> None:
        self.runner = runner
        #: the ids of the rules this scenario judges (the catalogue's entry for it)
        self.rules = rules
        self.schema: ResourceSchema = runner.schema
        self.name = name
        self.result = ScenarioResult(name, title)
        self.emit: Emit = (lambda _event: None) if quiet else emit
        self.suffix = unique_suffix()
        self.create_input, self.unique_values = self.make_unique(
            runner.inputs.create, generated=not runner.inputs.written
        )
        self.live: dict[str, dict[str, Any]] = {}  # identifier key -> identifier to delete
        #: identifier key -> the last model the handler returned for it (what cleanup deletes
        #: with, as CloudFormation deletes with the whole model it holds)
        self.last_models: dict[str, dict[str, Any]] = {}
        self.unknown_creations: list[str] = []  # creates that named no identifier at all
        #: generated-inputs' attempts: why the create cleanly FAILED (nothing to judge as a MUST)
        self.refused: str | None = None

    def make_unique(
        self, model: dict[str, Any], *, generated: bool = True
    ) -> tuple[dict[str, Any], dict[str, str]]:
        """``model`` with this run's suffix on its natural keys: for values cfn-debug
        generated, or with --unique; never with --no-unique (inputs.py's module docstring)."""
        unique = self.runner.options.unique
        if unique is False or (unique is None and not generated):
            return copy.deepcopy(model), {}
        exempt = self.runner.inputs.unique_exempt | self.runner.options.unique_exempt
        only = None if generated else retry_keys(self.schema, model, exempt)
        return make_unique(self.schema, model, self.suffix, exempt, only)

    def _unique_retry(self) -> dict[str, Any] | None:
        """The create input with a suffix, for one retry after AlreadyExists on values the
        user wrote (the previous run's resource in the way); None when that is not allowed
        (--no-unique, values made unique already) or changes nothing."""
        if self.runner.options.unique is False or self.unique_values:
            return None
        exempt = self.runner.inputs.unique_exempt | self.runner.options.unique_exempt
        only = retry_keys(self.schema, self.create_input, exempt)
        retried, changed = make_unique(self.schema, self.create_input, self.suffix, exempt, only)
        if not changed:
            return None
        self.create_input, self.unique_values = retried, changed
        return retried

    # -- sending --

    def _request(
        self,
        action: Action,
        desired: dict[str, Any] | None,
        *,
        previous: dict[str, Any] | None = None,
        token: str | None = None,
        next_token: str | None = None,
    ) -> dict[str, Any]:
        request: dict[str, Any] = {"clientRequestToken": token or str(uuid.uuid4())}
        if desired is not None:
            request["desiredResourceState"] = desired
        if previous is not None:
            request["previousResourceState"] = previous
        if next_token is not None:
            request["nextToken"] = next_token
        if self.runner.options.type_configuration is not None:
            request["typeConfiguration"] = self.runner.options.type_configuration
        return {"action": action.value, "request": request, "callbackContext": None}

    async def chain(
        self,
        action: Action,
        desired: dict[str, Any] | None,
        label: str,
        *,
        previous: dict[str, Any] | None = None,
        token: str | None = None,
        next_token: str | None = None,
        purpose: Purpose = Purpose.SCENARIO,
        waived: tuple[str, ...] = (),
    ) -> RunRecord:
        data = self._request(action, desired, previous=previous, token=token, next_token=next_token)
        event = parse_event(data, name=f"{self.name}: {label}")
        self.emit(ActionStarted(self.name, label, purpose, waived))
        run: RunRecord | None = None
        async for chain_event in self._stream(event):
            self.emit(chain_event)
            if isinstance(chain_event, RunEnded):
                run = chain_event.run
        assert run is not None  # run_chain always ends with RunEnded
        self.result.actions.append(ScenarioAction(label, purpose, run, waived))
        why = inconclusive(run)
        if why is not None and purpose is Purpose.SCENARIO:
            raise CfnDebugError(f"{label}: {why}")  # no verdict: the scenario stops, cleans up
        if run.end_reason is EndReason.ERROR:
            last = run.steps[-1].result if run.steps else None
            detail = (last.error_message or last.kind.value) if last else "no answer"
            cause = infrastructure_error(last) if last else None
            if cause:  # the endpoint answered: what this scenario created can still be deleted
                raise CfnDebugError(f"{label}: {cause}")
            raise EndpointUnusable(f"{label}: the endpoint could not be used: {detail}")
        return run

    def _stream(self, event: Any) -> AsyncIterator[ChainEvent]:
        runner = self.runner
        workspace = runner.workspace
        if runner.options.shape is None:
            # the scenarios read back on their own, where the sequence says
            options = dataclasses.replace(runner.options.chain, read_back=False)
            return workspace.run(event, options, runner.control)

        function_name, _ = workspace.function_for(event)
        return run_chain(
            workspace.invoker,
            event,
            function_name=function_name,
            shape=runner.options.shape,
            schema=workspace.schema,
            options=runner.options.chain,
            control=runner.control,
            endpoint_label=workspace.endpoint_label,
            defaults=workspace.defaults,
        )

    # -- the actions --

    def _track(
        self, identifier: dict[str, Any] | None, model: dict[str, Any] | None = None
    ) -> None:
        if identifier:
            key = identifier_key(identifier)
            self.live.setdefault(key, identifier)
            if model is not None:
                self.last_models[key] = {**model, **identifier_model(identifier)}

    async def create(
        self, model: dict[str, Any], label: str = "create", *, token: str | None = None
    ) -> Created:
        run = await self.chain(Action.CREATE, model, label, token=token)
        named = []
        for returned in models_of_chain(run):
            identifier = self.schema.identifier_of(returned)
            if identifier:
                named.append(identifier)
                self._track(identifier, returned)
        first = named[0] if named else None
        if first is None and status_of(run) != "FAILED":
            self.unknown_creations.append(label)
        final = model_of(run) or {}
        merged = {**final, **identifier_model(first)} if first else dict(final)
        return Created(run, first, merged)

    async def read(self, model: dict[str, Any], label: str = "read") -> RunRecord:
        return await self.chain(Action.READ, model, label)

    async def update(
        self,
        desired: dict[str, Any],
        previous: dict[str, Any] | None,
        label: str = "update",
        *,
        waived: tuple[str, ...] = (),
    ) -> RunRecord:
        run = await self.chain(Action.UPDATE, desired, label, previous=previous, waived=waived)
        if succeeded(run):  # an update that "succeeds" on nothing may have made something
            self._track(self.schema.identifier_of(desired))
            for model in models_of_chain(run):
                self._track(self.schema.identifier_of(model), model)
        return run

    async def delete(
        self, model: dict[str, Any], label: str = "delete", purpose: Purpose = Purpose.SCENARIO
    ) -> RunRecord:
        run = await self.chain(Action.DELETE, model, label, purpose=purpose)
        if succeeded(run):
            key = identifier_key(self.schema.identifier_of(model))
            self.live.pop(key, None)
            self.last_models.pop(key, None)
        return run

    async def list_all(self, label: str = "list", model: dict[str, Any] | None = None) -> Listing:
        """Every page, following nextToken until it is null (or repeats, or the cap).

        Each page carries ``model`` (the resource the scenario is about; before it exists, the
        create input) as its desiredResourceState, as `cfn test` sends the current model with
        every LIST: a handler that lists within a parent (the objects of the model's bucket)
        needs it."""
        if model is None:
            model = self.create_input
        listing = Listing()
        token: str | None = None
        seen: set[str] = set()
        cap = self.runner.options.max_list_pages
        for page in range(1, cap + 1):
            page_label = label if page == 1 else f"{label} (page {page})"
            run = await self.chain(Action.LIST, model, page_label, next_token=token)
            listing.runs.append(run)
            progress = final_progress(run)
            if page == 1:
                listing.first_page = progress
            if not succeeded(run):
                return listing
            models = progress.get("resourceModels")
            if isinstance(models, list):
                listing.models.extend(m for m in models if isinstance(m, dict))
            next_token = progress.get("nextToken")
            if not next_token:
                listing.complete = True
                if page > 1:
                    self.verdict(
                        "scenario-list-pagination",
                        True,
                        f"followed nextToken through {page} pages to a null nextToken",
                        page_label,
                    )
                return listing
            if not isinstance(next_token, str) or next_token in seen:
                self.verdict(
                    "scenario-list-pagination",
                    False,
                    f"nextToken {short(next_token)} came back again on page {page}: the "
                    "pagination does not advance (stopped following it)",
                    page_label,
                    "/nextToken",
                )
                return listing
            seen.add(next_token)
            token = next_token
        self.verdict(
            "scenario-list-pagination",
            False,
            f"still a nextToken after {cap} pages (the cap): stopped following it",
            label,
            "/nextToken",
        )
        return listing

    # -- the scenarios' building blocks --

    async def setup_create(
        self, label: str = "create", *, token: str | None = None
    ) -> Created | None:
        created = await self.create(self.create_input, label, token=token)
        if failed_with(created.run, "AlreadyExists") and self._unique_retry() is not None:
            written = ", ".join(f"{k}={v}" for k, v in self.unique_values.items())
            self.note(
                f"{label} ended AlreadyExists for the values as written: retried once with a "
                f"unique suffix ({written})"
            )
            created = await self.create(self.create_input, f"{label} (unique)", token=token)
        if succeeded(created.run) and created.identifier:
            self.runner.create_succeeded = True
            return created
        if not succeeded(created.run) and not failed_with(created.run, "AlreadyExists"):
            self.runner.create_failed = self.runner.create_failed or describe(created.run)
        if failed_with(created.run, "AlreadyExists") and self.runner.leaked:
            self.leak_skip(f"{label} ended {describe(created.run)}")
            return None
        mine = self._session_made() if failed_with(created.run, "AlreadyExists") else None
        if mine is not None:  # the session's own run made it: say so, delete it, try again
            name, model = mine
            text = identifier_text(self.schema.identifier_of(model))
            self.note(
                f"{label} ended {describe(created.run)}: {text} was created earlier in this "
                f"session by {name}; deleting it (cleanup) and creating again"
            )
            removed = await self.delete(model, f"cleanup: delete {text}", Purpose.CLEANUP)
            if succeeded(removed):  # (the workspace forgets it: Workspace._remember_model)
                created = await self.create(self.create_input, f"{label} (again)", token=token)
                if succeeded(created.run) and created.identifier:
                    return created
            else:
                self.block(
                    f"{label} ended {describe(created.run)}: {text}, created earlier in this "
                    f"session by {name}, could not be deleted ({describe(removed)}): delete it, "
                    "or run the scenarios without --no-unique"
                )
                return None
        if succeeded(created.run):
            self.block(f"{label} returned SUCCESS without a primary identifier: cannot go on")
        else:
            hint = ""
            if not self.runner.inputs.written and failed_with(created.run, "InvalidRequest"):
                hint = (
                    " (the create input was generated from the schema, and the handler refuses "
                    "it as invalid: a rule the schema cannot say; write one it takes in "
                    "inputs/inputs_1_create.json)"
                )
            self.block(
                f"{label} ended {describe(created.run)}: the scenario needs it to succeed{hint}"
            )
        return None

    def _session_made(self) -> tuple[str, dict[str, Any]] | None:
        """The resource an event file's create made earlier in this session with the values
        this create input asks for (its createOnly ones), if any."""
        names = create_only_names(self.schema, self.create_input)
        if not names:
            return None
        for entry in reversed(getattr(self.runner.workspace, "created", [])):
            _, model = entry
            if all(model.get(n) == self.create_input.get(n) for n in names):
                return entry
        return None

    def update_request(self, created: Created) -> dict[str, Any]:
        """The update input over the created resource: its readOnly values and identifier,
        the update input (unique values as in create), createOnly values as created."""
        base = self.runner.inputs.update
        if base is None:
            base = self.runner.default_update()
        update = copy.deepcopy(base)
        for name, value in self.unique_values.items():
            if name in update:
                update[name] = value
        for name in create_only_names(self.schema, self.create_input):
            update[name] = copy.deepcopy(self.create_input[name])
        read_only = {
            k: v
            for k, v in created.model.items()
            if k not in drop_pointers(created.model, self.schema.read_only)
        }
        return {**read_only, **update, **identifier_model(created.identifier or {})}

    async def setup_update(self, created: Created, label: str = "update") -> RunRecord | None:
        run = await self.update(self.update_request(created), created.model, label)
        if self.runner.update_outcome is None and status_of(run) in ("SUCCESS", "FAILED"):
            self.runner.update_outcome = run
        if succeeded(run):
            return run
        self.block(f"{label} ended {describe(run)}: the scenario needs it to succeed")
        return None

    async def setup_delete(self, created: Created, label: str = "delete") -> RunRecord | None:
        run = await self.delete(created.model, label)
        if succeeded(run):
            return run
        self.block(f"{label} ended {describe(run)}: the scenario needs it to succeed")
        return None

    def check_read_back(self, expected: dict[str, Any], run: RunRecord, label: str) -> None:
        model = model_of(run)
        if model is None:
            self.verdict("scenario-read-back-equal", False, "read returned no resourceModel", label)
            return
        model = as_answered(self.schema, final_progress(run), model)  # the Go plugin's strings
        problems = read_back_problems(self.schema, expected, model)
        if problems:
            text = "; ".join(t for _, t in problems[:6])
            more = f" (and {len(problems) - 6} more)" if len(problems) > 6 else ""
            self.verdict("scenario-read-back-equal", False, text + more, label, problems[0][0])
        else:
            self.verdict(
                "scenario-read-back-equal",
                True,
                f"every requested property reads back equal ({len(expected)} checked)",
                label,
            )

    # -- verdicts and notes --

    def verdict(
        self,
        rule_id: str,
        ok: bool,
        message: str,
        action: str | None = None,
        pointer: str | None = None,
    ) -> Verdict:
        status = VerdictStatus.PASS if ok else VerdictStatus.FAIL
        found = Verdict(rule_id, rule(rule_id).level, status, message, action, pointer)
        self.result.verdicts.append(found)
        self.emit(VerdictReached(self.name, found))
        return found

    def skip(self, rule_id: str, message: str) -> None:
        found = Verdict(rule_id, rule(rule_id).level, VerdictStatus.SKIP, message)
        self.result.verdicts.append(found)
        if self.result.outcome is Outcome.PASSED:
            self.result.outcome = Outcome.SKIPPED
        self.emit(VerdictReached(self.name, found))

    def leak_skip(self, what: str) -> None:
        """An AlreadyExists that a resource left behind by an earlier scenario explains: not
        judged (the leak was reported once, where it happened)."""
        left = ", ".join(f"{identifier_text(i)} ({name})" for name, i in self.runner.leaked)
        message = f"{what}, while {left} could not be deleted earlier: not judged"
        for rule_id in self.rules:
            found = Verdict(rule_id, self._level(rule_id), VerdictStatus.SKIP, message)
            self.result.verdicts.append(found)
            self.emit(VerdictReached(self.name, found))
        self.result.outcome = Outcome.SKIPPED
        self.note(message, warning=True)

    @staticmethod
    def _level(rule_id: str) -> Any:
        return rule(rule_id).level

    def block(self, message: str) -> None:
        self.result.outcome = Outcome.BLOCKED
        self.note(message, warning=True)

    def note(self, message: str, *, warning: bool = False) -> None:
        self.result.notes.append(message)
        self.emit(ScenarioNote(self.name, message, warning))

    # -- cleanup --

    async def cleanup(self) -> None:
        """Delete every identifier still live, with the last model the handler returned for it
        (as CloudFormation deletes with the whole model it holds), once more if that fails;
        say what could not be deleted (once: :attr:`ScenarioRunner.leaked` keeps it)."""
        for label in self.unknown_creations:
            self._cleanup_note(
                f"{label} named no primary identifier: whatever it created cannot be deleted "
                f"by cfn-debug (look for {self._unique_hint()})",
                ok=False,
            )
        for key, identifier in list(self.live.items()):
            text = identifier_text(identifier)
            model = self.last_models.get(key) or identifier_model(identifier)
            run = await self.delete(model, f"cleanup: delete {text}", Purpose.CLEANUP)
            if not succeeded(run) and not failed_with(run, "NotFound"):
                run = await self.delete(model, f"cleanup: delete {text} (again)", Purpose.CLEANUP)
            self.live.pop(key, None)
            if succeeded(run):
                self._cleanup_note(f"deleted {text}", ok=True)
            elif failed_with(run, "NotFound"):
                self._cleanup_note(f"{text} was already gone (NotFound)", ok=True)
            else:
                self._leaked(identifier)
                self._cleanup_note(f"could not delete {text}: {describe(run)}", ok=False)

    def _leaked(self, identifier: dict[str, Any]) -> None:
        self.result.leaked.append(identifier)
        self.runner.leaked.append((self.name, identifier))

    def abandon(self, why: str) -> None:
        """No more invocations (cancelled, endpoint gone): report what stays behind."""
        for identifier in self.live.values():
            self._leaked(identifier)
            self._cleanup_note(f"not deleted ({why}): {identifier_text(identifier)}", ok=False)
        self.live.clear()

    def _cleanup_note(self, message: str, *, ok: bool) -> None:
        self.result.cleanup.append(message)
        self.emit(ScenarioNote(self.name, "cleanup: " + message, warning=not ok))

    def _unique_hint(self) -> str:
        if not self.unique_values:
            return "a resource made from the create input"
        return ", ".join(f"{k}={v}" for k, v in self.unique_values.items())
