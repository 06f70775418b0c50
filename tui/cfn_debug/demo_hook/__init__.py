"""The bundled demo hook (``CfnDebug::Demo::BucketGuard``): a hook project as `cfn init` lays it
out, opened with ``--demo hook`` (see the README's Hooks section)."""

from pathlib import Path

DEMO_HOOK_DIR = Path(__file__).resolve().parent
