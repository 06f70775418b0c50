"""Redaction of the handler's output as a stream (issue 12 item 3, first sentence).

Tries: a credential split across a read of the worker's output, at every offset, for each kind of
secret the redactor knows (a credential value of the request, an access key id, an assigned secret
key, an assigned session token), through the log buffer with reads of several sizes, and end to
end through the real endpoint, whose worker output is read 64 KiB at a time. Must hold: no
credential, and no part of one as long as 8 characters, survives in any kept line.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from cfn_debug.endpoint.logs import LogBuffer
from cfn_debug.endpoint.server import EmbeddedEndpoint
from cfn_debug.text.redact import REDACTED, redact_text
from cfn_debug.text.redact_stream import StreamRedactor

STRADDLE = Path(__file__).parent / "projects" / "straddle"
KEY_ID = "ASIAQWERTYUIOPASDFGH"
SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY"[:40]
TOKEN = "IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQDexampletoken0123456789"
VALUES = (TOKEN, SECRET, KEY_ID)

pytestmark = pytest.mark.timeout(300)


def _fragments(secret: str, size: int = 8) -> list[str]:
    return [secret[i : i + size] for i in range(len(secret) - size + 1)]


def _assert_clean(text: str, secret: str) -> None:
    assert secret not in text
    leaked = [part for part in _fragments(secret) if part in text]
    assert not leaked, f"a piece of the credential survived: {leaked[:3]}"


CASES = [
    ("value", TOKEN, VALUES, "token is {s} ok"),
    ("access key id", KEY_ID, (), "key {s} used"),
    ("assigned secret key", SECRET, (), "aws_secret_access_key = {s} done"),
    ("assigned session token", TOKEN, (), "'sessionToken': '{s}' done"),
]


@pytest.mark.parametrize(("kind", "secret", "values", "template"), CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("read", [65_536, 4_096, 1_000])
def test_a_credential_split_by_a_read_at_every_offset_is_removed(
    kind: str, secret: str, values: tuple[str, ...], template: str, read: int
) -> None:
    line = template.format(s=secret)
    at = line.index(secret)
    for offset in range(-2, len(line) - at + 2):
        # The read boundary falls ``offset`` characters into the line's secret part.
        pad = "x" * (read - at - offset) if read - at - offset >= 0 else ""
        data = (pad + line + "\n").encode()
        buffer = LogBuffer(values)
        for start in range(0, len(data), read):
            buffer.add_raw(data[start : start + read])
        kept = "\n".join(buffer.lines())
        _assert_clean(kept, secret)
        assert REDACTED in kept
        assert kept.replace("\n", "").startswith(pad[:100])  # the rest of the line is kept


def test_every_two_piece_split_of_a_line_is_redacted_like_the_whole_line() -> None:
    line = f"start {KEY_ID} mid aws_secret_access_key={SECRET} then {TOKEN} end" * 2
    whole = redact_text(line, VALUES)
    for cut in range(len(line) + 1):
        stream = StreamRedactor(VALUES)
        out = stream.feed(line[:cut]) + stream.feed(line[cut:]) + stream.flush()
        for secret in VALUES:
            _assert_clean(out, secret)
        assert out.count(REDACTED) == whole.count(REDACTED), cut


def test_one_character_at_a_time_is_still_redacted() -> None:
    line = f"a {TOKEN} b {KEY_ID} c sessionToken={TOKEN[::-1]} d"
    stream = StreamRedactor(VALUES)
    out = "".join(stream.feed(char) for char in line) + stream.flush()
    for secret in (*VALUES, TOKEN[::-1]):
        _assert_clean(out, secret)


@pytest.fixture(scope="module")
def straddle() -> Iterator[EmbeddedEndpoint]:
    with EmbeddedEndpoint(STRADDLE) as endpoint:
        yield endpoint


def test_the_endpoint_removes_credentials_its_64k_reads_cut(straddle: EmbeddedEndpoint) -> None:
    credentials = {"accessKeyId": KEY_ID, "secretAccessKey": SECRET, "sessionToken": TOKEN}
    with httpx.Client(base_url=straddle.url, timeout=30) as client:
        for offset in range(0, len(TOKEN) + 2):
            answer = client.post(
                "/2015-03-31/functions/Straddle/invocations",
                json={"credentials": credentials, "offset": offset},
            )
            assert answer.status_code == 200, answer.text
            lines = straddle.logs_for(answer.headers["x-amzn-RequestId"])
            kept = "\n".join(lines)
            assert kept.count("tail") == 3, kept[-300:]  # every line arrived
            for secret in (KEY_ID, SECRET, TOKEN):
                if offset <= len(secret) + 1:
                    _assert_clean(kept, secret)
