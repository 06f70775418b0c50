"""A Node handler whose package needs a module node_modules lacks: one line naming the package.

Lambda's Node runtimes from nodejs18.x on carry no aws-sdk (v2), which the TypeScript handler
library 1.0.x requires by a subpath ('aws-sdk/clients/all'); a published project that installs
without it (org-formation's Community::CloudFormation::Delay: `optional = false` in .npmrc) could
not be loaded. The answer is the one cfn-debug's Node runtime gives (its errorMessage and trace,
as runtime.js writes them for MODULE_NOT_FOUND); before, a subpath was not read as a package and
the error was Node's whole multi-line message with its require stack."""

from __future__ import annotations

import json

from cfn_debug.invoke.outcome import classify
from cfn_debug.records import OutcomeKind

PROXY = "/p/node_modules/@amazon-web-services-cloudformation/cloudformation-cli-typescript-lib"


def _answer(message: str) -> bytes:
    return json.dumps(
        {
            "errorType": "Runtime.ImportModuleError",
            "errorMessage": message,
            "trace": ["Error: " + message.splitlines()[0], "    at Module._resolveFilename"],
        }
    ).encode()


def test_a_subpath_of_a_missing_package_names_the_package_on_one_line() -> None:
    message = (
        "Error: Cannot find module 'aws-sdk/clients/all'\nRequire stack:\n"
        f"- {PROXY}/dist/proxy.js\n- {PROXY}/dist/index.js\n- /p/dist/handlers.js"
    )
    result = classify(_answer(message), duration_s=0.1, function_error="Unhandled")
    assert result.kind is OutcomeKind.HTTP_ERROR  # the environment's problem: exit 2
    assert result.error_type == "Runtime.ImportModuleError"
    text = result.error_message or ""
    assert "\n" not in text
    assert "(package 'aws-sdk')" in text and "`npm install aws-sdk`" in text
    assert "required by node_modules/@amazon-web-services-cloudformation/" in text


def test_a_scoped_package_and_the_handlers_own_module() -> None:
    scoped = _answer("Error: Cannot find module '@aws-sdk/client-s3/dist-cjs/index.js'")
    text = classify(scoped, duration_s=0.1, function_error="Unhandled").error_message or ""
    assert "(package '@aws-sdk/client-s3')" in text
    # the Handler's own module missing (the project not built) is no package to install
    own = _answer(
        "Error: Cannot find module 'dist/handlers' (looked for /p/dist/handlers.js, .mjs, .cjs: "
        "is the project built?)"
    )
    result = classify(own, duration_s=0.1, function_error="Unhandled")
    assert result.kind is OutcomeKind.CRASH and "is the project built?" in (
        result.error_message or ""
    )
