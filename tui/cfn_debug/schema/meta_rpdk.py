"""The provider definition meta-schema as rpdk (cloudformation-cli, optional) ships it: rpdk's
own validator for it, and the code fastjsonschema generates for it.

schema/meta.py imports this module only when it needs one of them (a schema its kept compiled
check does not pass, or no compiled check kept yet); without rpdk the import fails and that
layer of schema loading is skipped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import fastjsonschema
import rpdk.core.data_loaders as loaders
from jsonschema_specifications import REGISTRY


def compile_meta() -> tuple[str, Any] | None:
    """(entry function name, code object) of the meta-schema's fastjsonschema validator; its
    references resolve to rpdk's own files and the Draft 7 meta-schema jsonschema ships, never
    to the network. None for an rpdk layout this does not know."""
    root = Path(loaders.__file__).parent / "data" / "schema"

    def local(uri: str) -> Any:
        if "json-schema.org" in uri:
            return REGISTRY.contents("http://json-schema.org/draft-07/schema")
        name = uri.split("#")[0].rsplit("/", 1)[-1]
        return json.loads((root / name).read_text(encoding="utf-8"))

    try:
        meta = json.loads((root / "provider.definition.schema.v1.json").read_text("utf-8"))
        source = fastjsonschema.compile_to_code(
            meta, handlers={"https": local, "http": local}, use_formats=False, use_default=False
        )
        # the root schema's function comes first in the generated module
        entry = source.split("\ndef ", 1)[1].split("(", 1)[0]
        return entry, compile(source, "<provider definition meta-schema>", "exec")
    except Exception:  # an rpdk layout we do not know: the jsonschema validator alone
        return None


def meta_validator() -> Any:
    """rpdk's own validator for the provider definition meta-schema; None when it cannot be
    built."""
    try:
        return loaders.make_resource_validator()
    except Exception:  # a broken rpdk install must not stop cfn-debug: skip this layer
        return None
