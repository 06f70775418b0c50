"""A handler whose every string is hostile to a terminal: escape sequences (OSC 52 writes the
clipboard, OSC 0 the title, CSI 2J clears the screen), C1 controls, Rich markup and a lone
surrogate, in its log lines, its message, its model and its callbackContext."""

import sys

#: What a terminal must never receive raw; ``\udcff`` is what os.fsdecode gives for byte 0xff.
HOSTILE = (
    "\x1b]52;c;cHduZWQ=\x07\x1b]0;owned\x07\x1b[2J\x9b31m\x00\x7f"
    "[@click=app.quit]click[/] [bold red]loud[/bold red] [/] \udcff end"
)


def handler(event, context):
    data = event.get("requestData") or {}
    model = dict(data.get("resourceProperties") or {})
    model["Id"] = "thing-1"
    model["Name"] = HOSTILE
    # the log line is written as bytes: a lone surrogate cannot be printed, its byte can
    sys.stdout.buffer.write(HOSTILE.encode("utf-8", "surrogateescape") + b"\n")
    sys.stdout.flush()
    print("second line \x1b[31mred\x1b[0m [link=https://example.com]x[/link]", flush=True)
    return {
        "status": "FAILED",
        "errorCode": "InvalidRequest",
        "message": HOSTILE,
        "resourceModel": model,
        "callbackContext": {"note": HOSTILE},
    }
