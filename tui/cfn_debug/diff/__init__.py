"""Schema-aware model diff (models.py), with the exact encodings of a step's models and what is
known of long arrays across steps (encodings.py)."""

from cfn_debug.diff.encodings import ArrayFacts, Encodings
from cfn_debug.diff.models import MULTISET_NOTE, NOTED_CLASSES, canonical_key, diff_models

__all__ = [
    "MULTISET_NOTE",
    "NOTED_CLASSES",
    "ArrayFacts",
    "Encodings",
    "canonical_key",
    "diff_models",
]
