"""Does the handler's generated ``models.py`` still match the resource schema?

`cfn generate` writes ``ResourceModel`` (a dataclass with one field per top-level schema property)
into the handler package's ``models.py``. A schema edited without running it again, or the sample
`cfn init` leaves in place, gives a ResourceModel whose fields are not the schema's properties: the
library's generated ``_deserialize`` then drops the properties it has no field for, and the
handler never sees them. That is worth a notice before the first event (with the command that
fixes it), not a finding on the handler's contract.

The file is read with ``ast``, never imported: the handler's code runs in the worker only.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MODEL_CLASS = "ResourceModel"


@dataclass(frozen=True)
class ModelMismatch:
    path: Path  # the models.py
    missing: tuple[str, ...]  # schema properties ResourceModel has no field for
    extra: tuple[str, ...]  # ResourceModel fields the schema does not have

    def notice(self, project_root: Path | None = None) -> str:
        where = _shown(self.path, project_root)
        parts = []
        if self.missing:
            parts.append(f"no field for the schema's {_names(self.missing)}")
        if self.extra:
            parts.append(f"fields the schema does not have: {_names(self.extra)}")
        return (
            f"{where}: ResourceModel does not match the schema ({'; '.join(parts)}); the handler "
            "will not see the missing properties. Run `cfn generate` in the project to "
            "regenerate it."
        )


def _names(names: tuple[str, ...], limit: int = 6) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _shown(path: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return str(path.relative_to(root))
        except ValueError:
            pass
    return str(path)


def model_fields(source: str) -> list[str] | None:
    """The annotated fields of ``class ResourceModel`` in ``source``; None when there is none
    (or the file does not parse: the worker reports a syntax error better)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == MODEL_CLASS:
            return [
                item.target.id
                for item in node.body
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
            ]
    return None


def models_files(handlers: Iterable[str], code_dirs: Iterable[Path]) -> list[Path]:
    """The ``models.py`` beside each handler module (``pkg.handlers.resource`` ->
    ``pkg/models.py``) in the code directories, each once."""
    found: list[Path] = []
    for handler in handlers:
        module = handler.rsplit(".", 1)[0]
        package = module.rsplit(".", 1)[0] if "." in module else ""
        for code_dir in code_dirs:
            candidate = Path(code_dir, *package.split("."), "models.py") if package else None
            if candidate is None:
                candidate = Path(code_dir) / "models.py"
            if candidate.is_file() and candidate not in found:
                found.append(candidate)
    return found


def check_models(path: Path, schema_raw: dict[str, Any]) -> ModelMismatch | None:
    """The mismatch between ``path``'s ResourceModel and the schema's top-level properties."""
    properties = schema_raw.get("properties")
    if not isinstance(properties, dict):
        return None
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    fields = model_fields(source)
    if fields is None:
        return None
    missing = tuple(name for name in properties if name not in fields)
    extra = tuple(name for name in fields if name not in properties)
    if not missing and not extra:
        return None
    return ModelMismatch(path, missing, extra)


def project_model_notices(project: Any, schema: Any) -> list[str]:
    """One notice per ``models.py`` of the project's handlers that does not match ``schema``."""
    if schema is None:
        return []
    handlers = [spec.handler for spec in project.functions.values()]
    handlers += [h for h in (project.entrypoint, project.test_entrypoint) if isinstance(h, str)]
    code_dirs = list(dict.fromkeys(spec.code_dir for spec in project.functions.values()))
    if not code_dirs:  # no template: `cfn init`'s layout
        code_dirs.append(project.root / "src")
    notices = []
    for path in models_files(dict.fromkeys(handlers), dict.fromkeys(code_dirs)):
        mismatch = check_models(path, schema.raw)
        if mismatch is not None:
            notices.append(mismatch.notice(project.root))
    return notices
