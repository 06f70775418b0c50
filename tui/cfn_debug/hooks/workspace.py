"""What a Workspace holds and does for a hook project: the hook schema, the hook's settings,
which function a hook request goes to and in which shape, and the chain that runs it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfn_debug.errors import ProjectError
from cfn_debug.events import Shape, shape_for_handler
from cfn_debug.hooks.chain import HookTarget, run_hook_chain
from cfn_debug.hooks.events import HookEventSpec
from cfn_debug.hooks.project import HookSettings, hook_settings
from cfn_debug.hooks.schema import HookSchema, load_hook_schema

if TYPE_CHECKING:
    from cfn_debug.chain import ChainControl, ChainOptions
    from cfn_debug.records import ChainEvent

TYPE_FUNCTION = "TypeFunction"
TEST_ENTRYPOINT = "TestEntrypoint"


@dataclass
class HookWorkspace:
    """The hook half of a Workspace (``workspace.hook``)."""

    schema: HookSchema
    settings: HookSettings
    #: a Lambda Hook: a plain function with the Lambda Hooks request and answer, 30 s limit
    lambda_hook: bool = False
    notices: list[str] = field(default_factory=list)
    #: a Lambda Hook's function (the template's logical id)
    function: str | None = None

    @classmethod
    def open(
        cls,
        schema_path: Path,
        type_configuration: str | None = None,
        *,
        root: Path | None = None,
        lambda_hook: bool = False,
    ) -> HookWorkspace:
        schema = load_hook_schema(schema_path)
        settings = hook_settings(schema, type_configuration, root)
        return cls(schema, settings, lambda_hook, list(settings.notices))

    @classmethod
    def for_project(cls, project: Any, type_configuration: str | None = None) -> HookWorkspace:
        """The hook half of a workspace on ``project`` (a hook or Lambda Hook project)."""
        if project.lambda_hook is not None:
            schema = project.lambda_hook.schema
            settings = hook_settings(schema, type_configuration, project.root)
            return cls(schema, settings, True, list(settings.notices), project.lambda_hook.function)
        if project.schema_path is None:
            raise ProjectError(
                "no hook schema found: expected the file .rpdk-config's typeName names "
                "(org-service-hook.json), or give --schema FILE",
                path=project.root,
            )
        return cls.open(project.schema_path, type_configuration, root=project.root)

    def describe(self) -> str:
        model = self.settings.model
        shown = ", ".join(f"{k}={v}" for k, v in (model or {}).items()) or "none"
        source = self.settings.source
        return f"hook {self.schema.type_name}; settings (hookModel) from {source}: {shown}"

    def function_for(
        self, functions: dict[str, Any], function_name: str | None, event: HookEventSpec
    ) -> tuple[str, Shape]:
        """--function-name wins; else TypeFunction (CloudFormation's request, as `cfn test`
        sends it); else TestEntrypoint (the library's test event); else the only function."""
        function_name = function_name or self.function
        if function_name:
            spec = functions.get(function_name)
            handler = spec.handler if spec is not None else None
            if spec is None and function_name not in (TYPE_FUNCTION, TEST_ENTRYPOINT):
                return function_name, Shape.HANDLER_REQUEST
            return function_name, shape_for_handler(function_name, handler)
        for name in (TYPE_FUNCTION, TEST_ENTRYPOINT):
            if name in functions:
                return name, shape_for_handler(name, functions[name].handler)
        if functions:
            name, spec = next(iter(functions.items()))
            return name, shape_for_handler(name, spec.handler)
        return TYPE_FUNCTION, Shape.HANDLER_REQUEST

    def stream(
        self,
        invoker: Any,
        event: HookEventSpec,
        *,
        function_name: str,
        shape: Shape,
        options: ChainOptions,
        control: ChainControl | None,
        endpoint_label: str,
        defaults: Any,
        setup_missing: tuple[str, ...] = (),
    ) -> AsyncIterator[ChainEvent]:
        target = HookTarget(
            type_name=self.schema.type_name,
            hook_model=self.settings.model,
            credentials=defaults.credentials,
            account=defaults.aws_account_id,
            region=defaults.region,
            lambda_hook=self.lambda_hook,
            setup_missing=setup_missing,
        )
        return run_hook_chain(
            invoker,
            event,
            function_name=function_name,
            shape=shape,
            target=target,
            options=options,
            control=control,
            endpoint_label=endpoint_label,
        )
