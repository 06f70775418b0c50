"""The facade the headless command and the dashboard share: a project, its schema, its events and
an invoker (the embedded endpoint, a local endpoint URL, or AWS), and chains run against them."""

from __future__ import annotations

import copy
import dataclasses
import weakref
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfn_debug.aws.placeholders import PlaceholderError
from cfn_debug.aws.session import launch_local, open_aws
from cfn_debug.aws.target import AwsTarget
from cfn_debug.chain import ChainControl, ChainOptions, run_chain
from cfn_debug.connect import connect, handler_library
from cfn_debug.contract.expectations import expected_failure, with_expectation
from cfn_debug.debugger.options import DebugOptions
from cfn_debug.debugger.replay import marked, replay_event, replay_target
from cfn_debug.demo import TYPE_NAME as DEMO_TYPE_NAME
from cfn_debug.endpoint.runtimes import endpoint_url_note
from cfn_debug.errors import CfnDebugError
from cfn_debug.events import (
    EventSpec,
    PayloadDefaults,
    Shape,
    load_event,
    resolve_credentials,
    shape_for_handler,
)
from cfn_debug.example_inputs import without_rejected_examples
from cfn_debug.hooks.schema import load_hook_schema
from cfn_debug.hooks.workspace import HookWorkspace
from cfn_debug.invoke.base import Invoker
from cfn_debug.project import InputsChain, Project, discover_project
from cfn_debug.readback import with_read_back
from cfn_debug.records import Action, ChainEvent, RunEnded, RunRecord, Step
from cfn_debug.schema import load_schema
from cfn_debug.schema.models_check import project_model_notices

if TYPE_CHECKING:
    from cfn_debug.aws.session import AwsOptions, AwsSession, Progress
    from cfn_debug.aws.target import AwsTarget
    from cfn_debug.endpoint.pyenv import ProgressCallback
    from cfn_debug.schema import ResourceSchema

TEST_ENTRYPOINT = "TestEntrypoint"
TYPE_FUNCTION = "TypeFunction"
#: The Runtime Interface Emulator serves exactly one function, under this name.
RIE_FUNCTION = "function"


class Workspace:
    """Use ``Workspace.open(...)``; ``close()`` when done (it stops the embedded endpoint)."""

    def __init__(
        self,
        project: Project,
        schema: ResourceSchema | None,
        invoker: Invoker,
        endpoint_label: str,
        *,
        function_name: str | None = None,
        defaults: PayloadDefaults | None = None,
        embedded: Any = None,
        aws: AwsSession | None = None,
        hook: Any = None,
        request_policy: Callable[[EventSpec, Workspace], EventSpec] | None = None,
    ) -> None:
        self.project = project
        #: what each run of an event file does to the event before sending it (the bundled
        #: demo's, ``demo.policy``); None: events are sent as written
        self.request_policy = request_policy
        #: the hook half of a hook project's workspace (cfn_debug.hooks.workspace.HookWorkspace)
        self.hook = hook
        self.schema = schema
        self.invoker = invoker
        self.endpoint_label = endpoint_label
        self.function_name = function_name
        self.defaults = defaults or PayloadDefaults()
        self.embedded = embedded  # the EmbeddedEndpoint this workspace started, if any
        self.aws = aws  # which AWS the handlers talk to (and the local AWS this one started)
        #: Events sent as written (see ``pin``), by identity: an EventSpec is not hashable.
        self._pinned: weakref.WeakValueDictionary[int, EventSpec] = weakref.WeakValueDictionary()

        #: `cfn test`'s order for inputs/: an inputs_N_update updates what inputs_N_create made
        #: in this workspace (every path: `run`, `--watch`, the dashboard)
        self.inputs_chain = InputsChain(schema)
        #: the model the last CREATE, READ or UPDATE that ended SUCCESS returned: what a LIST
        #: event naming no model is sent with, as `cfn test` lists with the current model
        self.current_model: dict[str, Any] | None = None
        #: (event name, model) of every CREATE of an event file that ended SUCCESS here, until a
        #: DELETE of it succeeds: what a scenario's AlreadyExists may be the session's own doing
        self.created: list[tuple[str, dict[str, Any]]] = []
        #: why example_inputs/ sets were left out of the project's events (cfn_debug.example_inputs)
        self.example_notes: list[str] = []

    @property
    def aws_target(self) -> AwsTarget | None:
        return self.aws.target if self.aws is not None else None

    @property
    def setup_missing(self) -> tuple[str, ...]:
        """The setup stack's resources the local AWS did not create ("Logical (Type)")."""
        setup = self.aws.setup if self.aws is not None else None
        return tuple(setup.missing) if setup is not None else ()

    def describe_aws(self) -> str:
        """One line saying which AWS the handlers talk to (the dashboard's header shows it)."""
        target = self.aws_target or AwsTarget("none")
        line = target.describe()
        if self.embedded is not None and target.kind in ("local", "endpoint"):
            note = endpoint_url_note(self.embedded.runtimes.values())
            if note:
                line += f"; {note}"
        return line

    @property
    def events(self) -> list[EventSpec]:
        return self.project.events

    @classmethod
    def open(
        cls,
        project_dir: Path | None = None,
        *,
        endpoint: str | None = None,
        function_name: str | None = None,
        schema_path: Path | None = None,
        region: str | None = None,
        profile: str | None = None,
        env_vars: dict[str, Any] | None = None,
        python: str | None = None,
        on_env_progress: ProgressCallback | None = None,
        aws: AwsOptions | None = None,
        node: str | None = None,
        progress: Progress | None = None,
        type_configuration: str | None = None,
        debug: DebugOptions | None = None,
    ) -> Workspace:
        """Discover the project, load its schema and connect to (or start) the endpoint.

        ``endpoint`` None starts the embedded endpoint for the project; "aws" invokes deployed
        functions (needs ``function_name``); a URL names a local endpoint (SAM, the emulator).
        ``aws`` chooses the AWS the handlers talk to (--local-aws starts one and deploys the
        project's test/setup.yml into it, reporting to ``progress``); its exports fill the
        ``{{ExportName}}`` placeholders of the project's events and inputs. ``debug``: how
        the embedded endpoint's workers stop in a debugger (pdb's front-end, --debug-port,
        --break-at); without it a breakpoint() in a handler is skipped with a notice.
        """
        local = launch_local(aws)  # moto starts while the project is read
        try:
            project = discover_project(project_dir, schema_path=schema_path)
            hook = None
            if project.hook_kind is not None:  # a hook: its own schema and settings
                hook = HookWorkspace.for_project(project, type_configuration)
            schema = _load_schema(project.schema_path) if hook is None else None
            policy = None
            type_name = schema.type_name if schema is not None else project.type_name
            if hook is None and (project.is_demo or type_name == DEMO_TYPE_NAME):
                # lazy: the bundled demo (or a copy) brings its request policy, for it alone
                from cfn_debug.demo.policy import demo_requests

                policy = demo_requests
            credentials = resolve_credentials(profile)
            external = endpoint if endpoint and endpoint.strip().lower() != "aws" else None
            session = open_aws(
                aws,
                root=project.root,
                region=region,
                profile=profile,
                env_vars=env_vars,
                external_endpoint=external,
                progress=progress,
                local=local,
            )
        except BaseException:
            if local is not None:
                local.stop()
            raise
        try:
            project = _with_exports(project, schema_path, session.exports)
            project.events, example_notes = without_rejected_examples(project.events, schema)
            defaults = PayloadDefaults(
                region=region,
                credentials=credentials or session.credentials,
                type_name=schema.type_name if schema is not None else project.type_name,
            )
            if session.account:
                defaults.aws_account_id = session.account
            invoker, label, embedded = connect(
                project,
                endpoint,
                function_name,
                region,
                profile,
                session.env_vars,
                python,
                on_env_progress,
                node,
                debug,
            )
            if embedded is not None:
                defaults.library = handler_library(project, embedded)
        except BaseException:
            session.close()
            raise
        workspace = cls(
            project,
            schema,
            invoker,
            label,
            function_name=function_name,
            defaults=defaults,
            embedded=embedded,
            aws=session,
            hook=hook,
            request_policy=policy,
        )
        workspace.example_notes = example_notes
        return workspace

    @property
    def notices(self) -> list[str]:
        """What to tell the user before the first event: example_inputs/ passed over (see
        example_inputs), a handler's models.py that does not match the schema (see
        models_check)."""
        if self.hook is not None:
            return [self.hook.describe(), *self.hook.notices]

        return [*self.example_notes, *project_model_notices(self.project, self.schema)]

    def reload(self) -> None:
        """Read the project's events and schema again (after the user edited them)."""
        fresh = discover_project(
            self.project.root, schema_path=self._schema_override(), exports=self.project.exports
        )
        if self.hook is None:
            self.schema = _load_schema(fresh.schema_path)
            fresh.events, self.example_notes = without_rejected_examples(fresh.events, self.schema)
        elif fresh.lambda_hook is None and fresh.schema_path is not None:
            self.hook.schema = load_hook_schema(fresh.schema_path)
        fresh.functions = self.project.functions
        self.project = fresh

    def _schema_override(self) -> Path | None:
        path = self.schema.path if self.schema is not None else None
        return path if path is not None and path != self.project.schema_path else None

    def function_for(self, event: EventSpec) -> tuple[str, Shape]:
        """The function an event goes to and the payload shape it takes.

        --function-name wins; else TestEntrypoint when the template has it; else the function
        whose handler is the project's test entrypoint or entrypoint; else the only function.
        A named function the template does not know, and not named by the `cfn init`
        conventions (the emulator's "function", an ARN), gets the event in the shape it is
        written in: the user's file is the best evidence of what that function takes.
        """
        functions = self.project.functions
        if self.hook is not None:
            return self.hook.function_for(functions, self.function_name, event)  # type: ignore[no-any-return]
        if self.function_name:
            spec = functions.get(self.function_name)
            conventional = self.function_name.rsplit(":", 1)[-1] in (TEST_ENTRYPOINT, TYPE_FUNCTION)
            if spec is None and not conventional:
                return self.function_name, event.shape
            handler = spec.handler if spec is not None else None
            return self.function_name, shape_for_handler(self.function_name, handler)
        if TEST_ENTRYPOINT in functions:
            spec = functions[TEST_ENTRYPOINT]
            return TEST_ENTRYPOINT, shape_for_handler(TEST_ENTRYPOINT, spec.handler)
        for wanted in (self.project.test_entrypoint, self.project.entrypoint):
            for name, spec in functions.items():
                if wanted and spec.handler == wanted:
                    return name, shape_for_handler(name, spec.handler)
        if functions:
            name, spec = next(iter(functions.items()))
            return name, shape_for_handler(name, spec.handler)
        # No template: an endpoint the user named. The emulator serves "function".
        name = RIE_FUNCTION if self.project.test_entrypoint is None else TEST_ENTRYPOINT
        return name, Shape.SAM if self.project.test_entrypoint else Shape.HANDLER_REQUEST

    @property
    def is_demo(self) -> bool:
        """The bundled demo project, or a copy of it (a project whose schema is the demo's, as
        it was when the workspace was opened): it was opened with the demo's request policy."""
        return self.request_policy is not None

    def pin(self, event: EventSpec) -> None:
        """Send ``event`` (this object) as written: its clientRequestToken and Name are the
        user's (the dashboard pins an event edited in the session)."""
        self._pinned[id(event)] = event

    def is_pinned(self, event: EventSpec) -> bool:
        return self._pinned.get(id(event)) is event

    def request_for(self, event: EventSpec) -> EventSpec:
        """``event`` as a run of it sends it.

        The workspace's ``request_policy`` decides; the demo's (``demo.policy``): a run of an
        event file is a new request (``demo.runs.fresh_request``: a
        new clientRequestToken, a create's Name with a fresh suffix), so a run reproduces instead
        of answering with the previous run's widget or AlreadyExists; unless the event pins
        them (``pin``: edited in the session; a create naming a seed widget keeps its Name).
        Events built in code (no file: the scenarios', which make their own unique values) and
        every other project's events are sent as written. Before each run of a demo event file
        the demo's seed widgets are restored and an update of a missing widget finds its Name
        free (``demo.seeds``), so every documented fault reproduces on every run.

        An ``inputs_N_update`` is sent with the identifier and previous state the SUCCESS of
        ``inputs_N_create`` returned in this workspace, when the file has no identifier
        (``project.InputsChain``); a pinned (edited) event is sent as the user wrote it."""
        if event.path is None or self.is_pinned(event) or self.hook is not None:
            return event
        event = self._with_current_model(event)
        event = self.inputs_chain.prepare(event)
        if self.request_policy is None:
            return event
        return self.request_policy(event, self)

    def _with_current_model(self, event: EventSpec) -> EventSpec:
        """A LIST event that names no model, sent with :attr:`current_model` (if any)."""
        norm = event.normalized
        if event.action is not Action.LIST or norm.desired is not None:
            return event
        if self.current_model is None:
            return event

        desired = copy.deepcopy(self.current_model)
        return dataclasses.replace(event, normalized=dataclasses.replace(norm, desired=desired))

    def _remember_model(self, run: Any, event: EventSpec) -> None:
        if run.action is Action.DELETE and run.final_status == "SUCCESS" and self.schema:
            gone = self.schema.identifier_of(event.normalized.desired or {})
            self.created = [
                (name, model)
                for name, model in self.created
                if gone is None or self.schema.identifier_of(model) != gone
            ]
        if run.action not in (Action.CREATE, Action.READ, Action.UPDATE):
            return
        if run.final_status != "SUCCESS":
            return
        for step in reversed(run.steps):
            progress = step.result.progress
            model = progress.get("resourceModel") if isinstance(progress, dict) else None
            if isinstance(model, dict):
                self.current_model = model
                if run.action is Action.CREATE and event.path is not None:
                    self.created.append((event.name, model))
                return

    def _creator_of(self, event: EventSpec) -> str | None:
        """The name of the create of this session that made the resource ``event``'s model
        names by its primary identifier (and no delete of the session removed), else None."""
        if self.schema is None:
            return None
        wanted = self.schema.identifier_of(event.normalized.desired or {})
        if wanted is None:
            return None
        for name, model in reversed(self.created):
            if self.schema.identifier_of(model) == wanted:
                return name
        return None

    def run(
        self,
        event: EventSpec,
        options: ChainOptions,
        control: ChainControl | None = None,
        *,
        as_written: bool = False,
    ) -> AsyncIterator[ChainEvent]:
        """Run ``event`` as a chain: the stream of ChainEvents, ending with RunEnded.

        The request sent is ``request_for(event)`` (for the demo, a fresh request), or
        ``event`` itself with ``as_written`` (the caller decided already).

        With ``options.read_back`` (the default), a CREATE or UPDATE that ends SUCCESS is read
        back: one more step, origin "read-back" (see :mod:`cfn_debug.readback`)."""
        if not as_written:
            event = self.request_for(event)
        function_name, shape = self.function_for(event)
        return self._recorded(self._stream(event, function_name, shape, options, control), event)

    async def _recorded(
        self, stream: AsyncIterator[ChainEvent], event: EventSpec
    ) -> AsyncIterator[ChainEvent]:
        """``stream``, with a SUCCESS of an inputs_N_create kept for its inputs_N_update."""
        try:
            async for chain_event in stream:
                if isinstance(chain_event, RunEnded):
                    self.inputs_chain.record(event, chain_event.run)
                    self._remember_model(chain_event.run, event)
                yield chain_event
        finally:
            close = getattr(stream, "aclose", None)
            if close is not None:  # a consumer that stops early closes the chain at once
                await close()

    def _stream(
        self,
        event: EventSpec,
        function_name: str,
        shape: Any,
        options: ChainOptions,
        control: ChainControl | None,
    ) -> AsyncIterator[ChainEvent]:
        control = control or ChainControl()
        if self.hook is not None:  # a hook's event: the hook chain (cfn_debug.hooks)
            return self.hook.stream(  # type: ignore[no-any-return]
                self.invoker,
                event,
                function_name=function_name,
                shape=shape,
                options=options,
                control=control,
                endpoint_label=self.endpoint_label,
                defaults=self.defaults,
                setup_missing=self.setup_missing,
            )
        stream = run_chain(
            self.invoker,
            event,
            function_name=function_name,
            shape=shape,
            schema=self.schema,
            options=options,
            control=control,
            endpoint_label=self.endpoint_label,
            defaults=self.defaults,
        )

        expected = expected_failure(event)
        if expected is not None:  # inputs_N_invalid: FAILED InvalidRequest is its pass
            stream = with_expectation(stream, expected, self._creator_of(event))
        if not options.read_back or event.action not in (Action.CREATE, Action.UPDATE):
            return stream

        return with_read_back(
            stream,
            self.invoker,
            event,
            function_name=function_name,
            shape=shape,
            schema=self.schema,
            defaults=self.defaults,
            control=control,
        )

    def replay(
        self, run: RunRecord, step: Step, control: ChainControl | None = None
    ) -> AsyncIterator[ChainEvent]:
        """``step`` of ``run`` sent again, exactly, once, to a worker whose pdb stops at the
        handler's entry or (a failed step) at its raising line: see cfn_debug.debugger.replay."""
        embedded = self.embedded
        spec = embedded.functions.get(step.function_name) if embedded is not None else None
        if embedded is None or spec is None:
            raise CfnDebugError(
                "replaying a step under the debugger needs the embedded endpoint (no --endpoint)"
            )
        original = None
        if run.event_path is not None and Path(run.event_path).is_file():
            try:
                original = load_event(Path(run.event_path))
            except CfnDebugError:
                original = None
        event = replay_event(run, step, original)
        target = replay_target(step, spec.code_dir, spec.handler)
        options = ChainOptions(max_reinvoke=0, max_delay_s=0.0, read_back=False)
        stream = run_chain(
            self.invoker,
            event,
            function_name=step.function_name,
            shape=event.shape,
            schema=self.schema,
            options=options,
            control=control or ChainControl(),
            endpoint_label=self.endpoint_label,
            defaults=self.defaults,
        )
        embedded.debug_next(entry=target.entry, at=target.at)
        return _disarmed(marked(stream, run, step), embedded)

    def logs_for(self, request_id: str) -> list[str]:
        """The handler's lines of one invocation (embedded endpoint only)."""
        if self.embedded is None:
            return []
        return list(self.embedded.logs_for(request_id))

    async def aclose(self) -> None:
        await self.invoker.aclose()
        self.close()

    def close(self) -> None:
        closer = getattr(self.invoker, "close", None)
        if callable(closer):
            closer()
        if self.embedded is not None:
            embedded, self.embedded = self.embedded, None
            embedded.stop()
        if self.aws is not None:
            self.aws.close()  # the local AWS stops after the workers that used it

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


async def _disarmed(stream: AsyncIterator[ChainEvent], embedded: Any) -> AsyncIterator[ChainEvent]:
    """``stream``; then the endpoint's workers go back to stopping only where asked before."""
    try:
        async for event in stream:
            yield event
    finally:
        embedded.debug_next()


def _with_exports(project: Project, schema_path: Path | None, exports: Any) -> Project:
    """The project with its placeholders filled: read again only when a file had one."""
    if any(isinstance(error, PlaceholderError) for error in project.event_errors):
        return discover_project(project.root, schema_path=schema_path, exports=exports)
    project.exports = exports
    return project


def _load_schema(path: Path | None) -> ResourceSchema | None:
    if path is None:
        return None

    return load_schema(path)
