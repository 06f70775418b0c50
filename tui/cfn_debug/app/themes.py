"""The dashboard's two themes, and the palette the renderers take from the active one."""

from __future__ import annotations

from textual.theme import Theme

from cfn_debug.app.render import Palette

DARK = Theme(
    name="cfn-debug-dark",
    primary="#4EA1FF",
    secondary="#A78BFA",
    accent="#22D3EE",
    warning="#F5B944",
    error="#F26D6D",
    success="#5FD38D",
    foreground="#E4E7EB",
    background="#12161C",
    surface="#1A2029",
    panel="#232B36",
    dark=True,
)

LIGHT = Theme(
    name="cfn-debug-light",
    primary="#1F5FBF",
    secondary="#6D28D9",
    accent="#0E7490",
    warning="#A35F00",
    error="#C42B2B",
    success="#1E7F45",
    foreground="#1C2530",
    background="#F7F8FA",
    surface="#FFFFFF",
    panel="#E6EAF0",
    dark=False,
)

THEMES = (DARK, LIGHT)


def palette_for(theme: Theme) -> Palette:
    return Palette(
        ok=theme.success or "green",
        warn=theme.warning or "yellow",
        error=theme.error or "red",
        accent=theme.accent or theme.primary,
        muted="#8A94A3" if theme.dark else "#5D6875",
    )
