"""Python handlers: ``python -u worker_main.py MODULE.ATTR`` (awslambdaric where installed, else the
portable loop), forked from the project environment's fork server where one runs.

The interpreter is the endpoint's choice (``--python``, else the project's cached environment:
see pyenv.interpreter_for), set on ``python`` before the first worker starts.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import ClassVar

from cfn_debug.endpoint.runtimes.base import Launch, Runtime

WORKER_MAIN = Path(__file__).resolve().parent.parent / "worker_main.py"


class PythonRuntime(Runtime):
    family: ClassVar[str] = "python"
    forks_python: ClassVar[bool] = True
    endpoint_url_readers: ClassVar[str] = "boto3 1.28+"

    #: The interpreter the workers run with (the endpoint sets it once it has chosen it).
    python: str = sys.executable

    def launch(self, env: dict[str, str]) -> Launch:
        return Launch(
            [self.python, "-u", str(WORKER_MAIN), self.spec.handler], env, self.spec.code_dir
        )

    def describe(self) -> str:
        return f"{self.spec.runtime or 'python'} ({self.python})"
