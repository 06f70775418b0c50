"""Long sessions and Python's cyclic garbage collector."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a session is exported or loaded.

    Masking allocates many small acyclic dicts while the whole session is alive; every
    generation-2 collection would walk that session again, which made a 10,000-step export
    several times slower. Nothing here builds reference cycles, so nothing is left for it.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
