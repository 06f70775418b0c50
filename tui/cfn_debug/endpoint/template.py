"""A project's Lambda functions, read from its SAM template (or, failing that, its .rpdk-config).

Only what the embedded endpoint needs: each AWS::Serverless::Function's handler, code directory,
timeout, memory size, runtime and environment variables, with ``Globals.Function`` merged in as
SAM merges it. CloudFormation short-form tags (``!Ref``, ``!GetAtt``, ``!Sub`` ...) are tolerated:
they load as plain values, since nothing here evaluates them.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from cfn_debug.errors import ProjectError
from cfn_debug.filesafe import read_json, read_text
from cfn_debug.text.jsondigits import TOO_MANY_DIGITS, is_digit_limit

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


#: How many nodes a template may hold once its aliases are expanded. A real SAM template has a
#: few thousand at most; a "billion laughs" alias bomb has 10^9 from a few hundred bytes.
MAX_TEMPLATE_NODES = 100_000


def _expanded_size(root: yaml.Node, path: Path) -> int:
    """The node count of ``root`` with every alias expanded, computed on the composed graph
    (each node once, memoized), so that a bomb is measured without being expanded."""
    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            on_path.discard(key)
            children = _children(node)
            sizes[key] = min(1 + sum(sizes[id(c)] for c in children), MAX_TEMPLATE_NODES + 1)
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise ProjectError("expected a template without recursive YAML aliases", path=path)
        on_path.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in sizes)
    return sizes[id(root)]


#: The top-level sections the endpoint reads; the others (Outputs, Metadata, Parameters...) are
#: neither measured nor built, so whatever they hold (an alias bomb included) harms nothing.
USED_SECTIONS = frozenset({"Resources", "Globals"})


def _used_sections(node: yaml.Node) -> yaml.Node:
    """The top-level mapping with only the sections in USED_SECTIONS (the composed graph is
    kept: an alias in them still reaches what it names elsewhere, and is measured)."""
    if not isinstance(node, yaml.MappingNode):
        return node
    pairs = [
        (key, value)
        for key, value in node.value
        if isinstance(key, yaml.ScalarNode) and key.value in USED_SECTIONS
    ]
    return yaml.MappingNode(node.tag, pairs, node.start_mark, node.end_mark, node.flow_style)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _load_yaml(text: str, path: Path) -> Any:
    """Parse the template; an alias bomb is refused from the composed graph, before any value is
    built, and an integer over Python's digit limit or nesting too deep is a ProjectError."""
    loader = _TolerantLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        node = _used_sections(node)
        if _expanded_size(node, path) > MAX_TEMPLATE_NODES:
            raise ProjectError(
                f"expected a template of at most {MAX_TEMPLATE_NODES:,} values once its YAML "
                "aliases are expanded; this one holds more (an alias bomb?), so it is not read",
                path=path,
            )
        return loader.construct_document(node)
    except RecursionError:
        raise ProjectError(
            "expected YAML nested at most a few hundred levels deep", path=path
        ) from None
    except ValueError as error:
        if not is_digit_limit(error):
            raise
        raise ProjectError(TOO_MANY_DIGITS, path=path) from None
    finally:
        loader.dispose()


def _from_template(path: Path) -> dict[str, FunctionSpec]:
    try:
        doc = _load_yaml(read_text(path), path)
    except OSError as error:
        raise ProjectError(f"cannot read: {error.strerror}", path=path) from error
    except UnicodeDecodeError as error:
        raise ProjectError(
            f"expected UTF-8 text: {error.reason} at byte {error.start}", path=path
        ) from None
    except yaml.YAMLError as error:
        raise ProjectError(f"expected YAML: {_one_line(error)}", path=path) from None
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


#: Runtimes whose Handler names a binary (``bootstrap``) and whose CodeUri is a build output
#: (``bin/``, ``target/x.jar``) that may not exist before the runtime builds it.
BUILT_RUNTIMES = re.compile(r"^(provided(\.al2|\.al2023)?|go1\.x|java(8|8\.al2|11|17|21))$")


def _spec(name: str, props: dict[str, Any], path: Path, where: str) -> FunctionSpec:
    handler = props.get("Handler")
    runtime = props.get("Runtime")
    if runtime is not None and not isinstance(runtime, str):
        raise ProjectError(
            f"expected a runtime name, got {runtime!r}", path=path, field=f"{where}.Runtime"
        )
    built = runtime is not None and BUILT_RUNTIMES.match(runtime) is not None
    if not isinstance(handler, str) or not handler or ("." not in handler and not built):
        raise ProjectError(
            f"expected a handler such as 'package.module.function', got {handler!r}",
            path=path,
            field=f"{where}.Handler",
        )
    return FunctionSpec(
        name=name,
        handler=handler,
        code_dir=_code_dir(props.get("CodeUri"), path, f"{where}.CodeUri", built=built),
        timeout_s=_whole_number(
            _settled(props.get("Timeout", DEFAULT_TIMEOUT_S), TIMEOUT_RANGE, CONTRACT_TIMEOUT_S),
            TIMEOUT_RANGE,
            path,
            f"{where}.Timeout",
        ),
        memory_mb=int(
            _whole_number(
                _settled(
                    props.get("MemorySize", DEFAULT_MEMORY_MB), MEMORY_RANGE, DEFAULT_MEMORY_MB
                ),
                MEMORY_RANGE,
                path,
                f"{where}.MemorySize",
            )
        ),
        runtime=runtime,
        environment=_variables(props.get("Environment"), path, f"{where}.Environment"),
    )


def _code_dir(code_uri: Any, path: Path, where: str, *, built: bool = False) -> Path:
    """The function's code: a directory of the project; for a runtime whose code is built
    (``built``: Go's bin/, Java's target/x.jar) also a jar file, or a path not built yet."""
    root = path.parent
    if code_uri is None:
        return root.resolve()
    if not isinstance(code_uri, str) or code_uri.startswith("s3://"):
        raise ProjectError(
            f"expected a local directory, got {code_uri!r} (S3 locations cannot run locally)",
            path=path,
            field=where,
        )
    # Inside the project, compared before links are followed (a linked src/ is fine): the code
    # directory goes on the workers' import path and is watched for saves.
    lexical = Path(os.path.normpath(root.absolute() / code_uri))
    if lexical == Path(lexical.anchor) or not lexical.is_relative_to(root.absolute()):
        raise ProjectError(
            f"expected a directory inside the project ({root}), got {code_uri!r}",
            path=path,
            field=where,
        )
    code_dir = (root / code_uri).resolve()
    if code_dir == Path(code_dir.anchor):
        raise ProjectError(
            f"expected a directory inside the project, got {code_uri!r}, which is {code_dir}",
            path=path,
            field=where,
        )
    if code_dir.is_dir() or (built and not code_dir.exists()):
        return code_dir
    if built and code_dir.is_file() and code_dir.suffix == ".jar":
        return code_dir
    # `cfn submit --dry-run` / `sam build` fill build/; before that the sources are in src/.
    if Path(code_uri.rstrip("/")).name == "build" and (root / "src").is_dir():
        return (root / "src").resolve()
    raise ProjectError(f"expected a directory, {code_dir} does not exist", path=path, field=where)


#: Lambda's own bounds: Timeout 1-900 seconds, MemorySize 128-10,240 MB, both whole numbers.
TIMEOUT_RANGE = (1, 900)
MEMORY_RANGE = (128, 10_240)


#: The handler contract's limit on one answer: the timeout of a function whose Timeout is an
#: intrinsic with no number in it (``!Ref TimeoutParameter``'s long form).
CONTRACT_TIMEOUT_S = 60


def _settled(value: Any, bounds: tuple[int, int], otherwise: float) -> Any:
    """A Timeout or MemorySize given as an intrinsic (``!If [Debug, 900, 60]``, whose tag the
    loader drops, or ``{"Fn::If": ...}``): nothing here evaluates conditions or parameters, so
    the largest whole number in bounds among its branches (a handler is never stopped sooner
    than its deployed configuration would allow), else ``otherwise``. Any other value as is."""
    if not isinstance(value, (dict, list)):
        return value
    found: list[float] = []
    stack: list[Any] = [value]
    while stack:  # finite: the loader refuses recursive aliases and bounds the expanded size
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif (number := _as_whole(item, bounds)) is not None:
            found.append(number)
    return max(found, default=otherwise)


def _as_whole(value: Any, bounds: tuple[int, int]) -> float | None:
    """``value`` as a whole number within ``bounds`` (an int, a float with no fraction or a
    short string of one), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    if isinstance(value, str) and len(value.strip()) > 20:
        return None
    try:
        number = float(value)
    except (ValueError, OverflowError):
        return None
    low, high = bounds
    if not math.isfinite(number) or not number.is_integer() or not low <= number <= high:
        return None
    return number


def _whole_number(value: Any, bounds: tuple[int, int], path: Path, where: str) -> float:
    """A whole number within ``bounds`` (an int, a float with no fraction or a string of one);
    NaN, infinities, fractions, zero, negatives and anything else are a ProjectError."""
    low, high = bounds
    number = _as_whole(value, bounds)
    if number is None:
        shown = repr(value) if not isinstance(value, str) or len(value) <= 40 else repr(value[:40])
        raise ProjectError(
            f"expected a number from {low:,} to {high:,} with no fraction, got {shown}",
            path=path,
            field=where,
        )
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
