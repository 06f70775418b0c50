"""The bundled demo hook (``CfnDebug::Demo::BucketGuard``): a hook project as `cfn init` lays it
out, opened with ``--demo hook`` (see the README's Hooks section)."""

from cfn_debug.locations import DEMO_HOOK_DIR

__all__ = ["DEMO_HOOK_DIR"]
