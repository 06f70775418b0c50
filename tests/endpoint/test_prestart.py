"""endpoint.prestart: the fork server started before the endpoint is the one the endpoint's
workers are forked from, and it ends with its last user."""

from __future__ import annotations

import pytest

from cfn_debug.endpoint.prestart import Prestart
from cfn_debug.endpoint.server import EmbeddedEndpoint
from endpoint.conftest import BASIC

pytestmark = pytest.mark.timeout(120)


def _prestarted(project: object) -> tuple[Prestart, object]:
    prestart = Prestart(project)  # type: ignore[arg-type]
    prestart._thread.join(60)
    assert len(prestart._held) == 1, "the prestart started no fork server"
    return prestart, prestart._held[0][1]


def test_the_endpoint_takes_the_fork_server_the_prestart_started() -> None:
    prestart, server = _prestarted(BASIC)
    try:
        with EmbeddedEndpoint(BASIC) as endpoint:
            prestart.release()
            pool = endpoint.pool("Echo")
            assert pool is not None and pool._forks is not None
            assert pool._forks[1] is server
            assert server.alive  # still held by the endpoint
    finally:
        prestart.release()
    assert server._dead.wait(10), "the fork server outlived the endpoint"


def test_a_prestart_nobody_took_ends_its_fork_server_when_released() -> None:
    prestart, server = _prestarted(BASIC)
    prestart.release()
    assert server._dead.wait(10), "the fork server outlived its prestart"
