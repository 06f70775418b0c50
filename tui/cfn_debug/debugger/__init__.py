"""Stopping inside a handler, on cfn-debug's side: pdb on the terminal, the IDE's launch.json."""
