"""A project's Lambda functions, read from its SAM template (or, failing that, its .rpdk-config).

Only what the embedded endpoint needs: each AWS::Serverless::Function's handler, code directory,
timeout, memory size, runtime and environment variables, with ``Globals.Function`` merged in as
SAM merges it. CloudFormation short-form tags (``!Ref``, ``!GetAtt``, ``!Sub`` ...) are tolerated:
they load as plain values, since nothing here evaluates them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from cfn_debug.errors import ProjectError
from cfn_debug.events import read_json

TEMPLATE_NAMES = ("template.yml", "template.yaml")
RPDK_CONFIG = ".rpdk-config"
SERVERLESS_FUNCTION = "AWS::Serverless::Function"
DEFAULT_TIMEOUT_S = 3.0  # SAM's default
DEFAULT_MEMORY_MB = 128  # SAM's default


@dataclass(frozen=True)
class FunctionSpec:
    """One function the endpoint can run."""

    name: str
    handler: str  # "module.attr"
    code_dir: Path
    timeout_s: float = DEFAULT_TIMEOUT_S
    memory_mb: int = DEFAULT_MEMORY_MB
    runtime: str | None = None
    environment: dict[str, str] = field(default_factory=dict)


class _TolerantLoader(yaml.SafeLoader):
    """A safe YAML loader that reads CloudFormation's ``!Tag value`` forms as their plain value."""


def _any_tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node, deep=True)
    return None  # pragma: no cover - the three node kinds above are all YAML has


_TolerantLoader.add_multi_constructor("!", _any_tag)


def load_functions(project_dir: Path) -> dict[str, FunctionSpec]:
    """The functions of the project at ``project_dir``, by logical id (template) or entry name.

    Raises ProjectError naming the file and the field when the project cannot be understood.
    """
    project_dir = Path(project_dir)
    for name in TEMPLATE_NAMES:
        path = project_dir / name
        if path.is_file():
            return _from_template(path)
    config = project_dir / RPDK_CONFIG
    if config.is_file():
        return _from_rpdk_config(config)
    raise ProjectError(
        f"no {' or '.join(TEMPLATE_NAMES)} and no {RPDK_CONFIG}: expected a SAM template or a "
        "resource-type project",
        path=project_dir,
    )


def _from_template(path: Path) -> dict[str, FunctionSpec]:
    try:
        doc = yaml.load(path.read_text(encoding="utf-8"), Loader=_TolerantLoader)
    except OSError as error:
        raise ProjectError(f"cannot read: {error.strerror}", path=path) from error
    except UnicodeDecodeError as error:
        raise ProjectError(
            f"expected UTF-8 text: {error.reason} at byte {error.start}", path=path
        ) from None
    except yaml.YAMLError as error:
        raise ProjectError(f"expected YAML: {_one_line(error)}", path=path) from error
    if not isinstance(doc, dict):
        raise ProjectError("expected a mapping at the top level of the template", path=path)
    resources = doc.get("Resources")
    if not isinstance(resources, dict):
        raise ProjectError("expected a mapping of resources", path=path, field="Resources")
    globals_ = _mapping(doc.get("Globals") or {}, path, "Globals")
    defaults = _mapping(globals_.get("Function") or {}, path, "Globals.Function")

    functions: dict[str, FunctionSpec] = {}
    for logical_id, resource in resources.items():
        where = f"Resources.{logical_id}"
        if not isinstance(resource, dict) or resource.get("Type") != SERVERLESS_FUNCTION:
            continue
        props = _mapping(resource.get("Properties") or {}, path, f"{where}.Properties")
        merged = _merge(defaults, props)
        functions[str(logical_id)] = _spec(str(logical_id), merged, path, f"{where}.Properties")
    if not functions:
        raise ProjectError(
            f"no {SERVERLESS_FUNCTION} resources: expected at least one function",
            path=path,
            field="Resources",
        )
    return functions


def _merge(defaults: dict[str, Any], props: dict[str, Any]) -> dict[str, Any]:
    """SAM's Globals merge: maps merge (resource wins), everything else is overridden."""
    merged = dict(defaults)
    for key, value in props.items():
        base = merged.get(key)
        if isinstance(base, dict) and isinstance(value, dict):
            merged[key] = _merge(base, value)
        else:
            merged[key] = value
    return merged


def _spec(name: str, props: dict[str, Any], path: Path, where: str) -> FunctionSpec:
    handler = props.get("Handler")
    if not isinstance(handler, str) or "." not in handler:
        raise ProjectError(
            f"expected a handler such as 'package.module.function', got {handler!r}",
            path=path,
            field=f"{where}.Handler",
        )
    runtime = props.get("Runtime")
    if runtime is not None and not isinstance(runtime, str):
        raise ProjectError(
            f"expected a runtime name, got {runtime!r}", path=path, field=f"{where}.Runtime"
        )
    return FunctionSpec(
        name=name,
        handler=handler,
        code_dir=_code_dir(props.get("CodeUri"), path, f"{where}.CodeUri"),
        timeout_s=_number(props.get("Timeout", DEFAULT_TIMEOUT_S), path, f"{where}.Timeout"),
        memory_mb=int(
            _number(props.get("MemorySize", DEFAULT_MEMORY_MB), path, f"{where}.MemorySize")
        ),
        runtime=runtime,
        environment=_variables(props.get("Environment"), path, f"{where}.Environment"),
    )


def _code_dir(code_uri: Any, path: Path, where: str) -> Path:
    root = path.parent
    if code_uri is None:
        return root.resolve()
    if not isinstance(code_uri, str) or code_uri.startswith("s3://"):
        raise ProjectError(
            f"expected a local directory, got {code_uri!r} (S3 locations cannot run locally)",
            path=path,
            field=where,
        )
    code_dir = (root / code_uri).resolve()
    if code_dir.is_dir():
        return code_dir
    # `cfn submit --dry-run` / `sam build` fill build/; before that the sources are in src/.
    if Path(code_uri.rstrip("/")).name == "build" and (root / "src").is_dir():
        return (root / "src").resolve()
    raise ProjectError(f"expected a directory, {code_dir} does not exist", path=path, field=where)


def _number(value: Any, path: Path, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ProjectError(f"expected a number, got {value!r}", path=path, field=where)
    try:
        number = float(value)
    except ValueError as error:
        raise ProjectError(f"expected a number, got {value!r}", path=path, field=where) from error
    if number <= 0:
        raise ProjectError(f"expected a positive number, got {value!r}", path=path, field=where)
    return number


def _variables(environment: Any, path: Path, where: str) -> dict[str, str]:
    if environment is None:
        return {}
    env = _mapping(environment, path, where)
    variables = _mapping(env.get("Variables") or {}, path, f"{where}.Variables")
    out: dict[str, str] = {}
    for key, value in variables.items():
        if isinstance(value, (dict, list)):
            # An unresolved intrinsic (!Ref, !Sub ... in long form): nothing to evaluate it with.
            out[str(key)] = ""
        else:
            out[str(key)] = env_string(value)
    return out


def env_string(value: Any) -> str:
    """A scalar environment value as Lambda sets it: true/false, "" for null, else its text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def _mapping(value: Any, path: Path, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ProjectError(
            f"expected a mapping, got {type(value).__name__}", path=path, field=where
        )
    return value


def _from_rpdk_config(path: Path) -> dict[str, FunctionSpec]:
    config = read_json(path, ProjectError)
    if not isinstance(config, dict):
        raise ProjectError("expected a JSON object", path=path)
    code_dir = path.parent / "src"
    if not code_dir.is_dir():
        raise ProjectError(
            f"expected the handler code in {code_dir}, which does not exist", path=path
        )
    runtime = config.get("runtime") if isinstance(config.get("runtime"), str) else None
    functions: dict[str, FunctionSpec] = {}
    for key, name in (("entrypoint", "TypeFunction"), ("testEntrypoint", "TestEntrypoint")):
        handler = config.get(key)
        if handler is None:
            continue
        if not isinstance(handler, str) or "." not in handler:
            raise ProjectError(
                f"expected a handler such as 'package.handlers.resource', got {handler!r}",
                path=path,
                field=key,
            )
        functions[name] = FunctionSpec(
            name=name,
            handler=handler,
            code_dir=code_dir.resolve(),
            timeout_s=60.0,  # the handler contract's limit; `cfn` generates Timeout: 60 too
            memory_mb=256,
            runtime=runtime,
        )
    if not functions:
        raise ProjectError("expected an entrypoint", path=path, field="entrypoint")
    return functions


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split())
