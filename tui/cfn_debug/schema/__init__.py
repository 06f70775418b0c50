"""The resource schema: loading, self-validation, property classes, insertionOrder and timeouts.

The public API is re-exported here: the loaders, the schema model and its notes, JSON pointers.
"""

from cfn_debug.schema.load import load_schema, schema_from_dict
from cfn_debug.schema.model import DEFAULT_TIMEOUT_MINUTES, ResourceSchema
from cfn_debug.schema.notes import SchemaNote
from cfn_debug.schema.pointers import (
    MISSING,
    escape_token,
    expand_pattern,
    join_pointer,
    resolve_pointer,
    split_pointer,
    unescape_token,
)
from cfn_debug.schema.validators import SHAPE_EXEMPT_KEYWORDS

__all__ = [
    "DEFAULT_TIMEOUT_MINUTES",
    "MISSING",
    "SHAPE_EXEMPT_KEYWORDS",
    "ResourceSchema",
    "SchemaNote",
    "escape_token",
    "expand_pattern",
    "join_pointer",
    "load_schema",
    "resolve_pointer",
    "schema_from_dict",
    "split_pointer",
    "unescape_token",
]
