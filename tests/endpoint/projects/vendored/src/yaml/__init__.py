"""A vendored stand-in for PyYAML: the worker must import this one, not the installed one."""

VENDORED = True
