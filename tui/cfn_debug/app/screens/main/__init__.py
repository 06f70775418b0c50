"""The main screen, the dashboard's job: ``screen`` lays it out and holds its state, ``stream``
follows the engine (one handler per message of its stream), ``actions`` runs its keys."""

from cfn_debug.app.screens.main.screen import MainScreen

__all__ = ["MainScreen"]
